import Crypto
import SwiftASN1
import X509

/// The SCTs a CA embedded in a certificate (RFC 6962 §3.3), and the `precert_entry` their signatures cover.
///
/// swift-nio-ssl exposes neither the TLS `signed_certificate_timestamp` extension nor a stapled OCSP response,
/// so embedded SCTs are the only ones this package can check.
package enum EmbeddedSCTs {
    /// 1.3.6.1.4.1.11129.2.4.2, the X.509v3 extension that carries the SCT list.
    package static let extensionOID: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 4, 2]

    enum Reading: Sendable {
        case absent
        case unreadable(String)
        case present([SignedCertificateTimestamp])
    }

    static func read(from leaf: Certificate) -> Reading {
        guard let ext = leaf.extensions[oid: extensionOID] else { return .absent }
        let inner: ASN1OctetString
        do { inner = try ASN1OctetString(derEncoded: ext.value) } catch {
            return .unreadable(SCTListError.notAnOctetString.description)
        }
        do { return .present(try SCTListReader.read(inner.bytes)) } catch { return .unreadable(error.description) }
    }

    /// The TBSCertificate with the SCT list extension removed, re-encoded in DER: what the log signed
    /// (RFC 6962 §3.2, `PreCert.tbs_certificate`).
    static func precertificateTBS(of leaf: Certificate) throws -> [UInt8] {
        let root = try DER.parse(leaf.tbsCertificateBytes)
        guard case .constructed(let fields) = root.content else { throw PrecertError.notASequence }
        let extensionsTag = ASN1Identifier(tagWithNumber: 3, tagClass: .contextSpecific)
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: root.identifier) { coder in
            for field in fields {
                guard field.identifier == extensionsTag else {
                    coder.serializeRawBytes(field.encodedBytes)
                    continue
                }
                guard case .constructed(let wrapped) = field.content, let list = wrapped.first(where: { _ in true }),
                      case .constructed(let extensions) = list.content
                else { throw PrecertError.malformedExtensions }
                let kept = try extensions.filter { try !Self.isSCTList($0) }
                // An empty Extensions SEQUENCE is not allowed (SIZE (1..MAX)); with none left the field is omitted.
                guard !kept.isEmpty else { continue }
                coder.appendConstructedNode(identifier: extensionsTag) { explicit in
                    explicit.appendConstructedNode(identifier: .sequence) { seq in
                        for e in kept { seq.serializeRawBytes(e.encodedBytes) }
                    }
                }
            }
        }
        return serializer.serializedBytes
    }

    private static func isSCTList(_ node: ASN1Node) throws -> Bool {
        guard case .constructed(let parts) = node.content, let oidNode = parts.first(where: { _ in true }) else {
            throw PrecertError.malformedExtensions
        }
        return try ASN1ObjectIdentifier(derEncoded: oidNode) == extensionOID
    }

    /// SHA-256 of the issuer's SubjectPublicKeyInfo exactly as encoded (`PreCert.issuer_key_hash`).
    package static func issuerKeyHash(_ issuer: Certificate) throws -> [UInt8] {
        let root = try DER.parse(issuer.tbsCertificateBytes)
        guard case .constructed(let children) = root.content else { throw PrecertError.notASequence }
        var fields = Array(children)
        if fields.first?.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) { fields.removeFirst() }
        guard fields.count >= 6 else { throw PrecertError.notASequence }
        return Array(SHA256.hash(data: Array(fields[5].encodedBytes)))
    }

    enum PrecertError: Error {
        case notASequence
        case malformedExtensions
    }
}
