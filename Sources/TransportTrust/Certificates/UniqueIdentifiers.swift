import SwiftASN1
import X509

/// Certificates that carry issuerUniqueID or subjectUniqueID (RFC 5280 §4.1.2.8), which RFC 5280 allows in v2 and
/// v3 certificates and which path validation ignores.
///
/// swift-certificates 1.21.1 reads the two fields as EXPLICITLY tagged, where RFC 5280's ASN.1 module tags them
/// IMPLICITLY (`[1] IMPLICIT UniqueIdentifier`, a BIT STRING), so it refuses every such certificate. The fields are
/// taken out with swift-asn1 and the rest is parsed by swift-certificates; the signed bytes are then put back, so that
/// the signature is checked over what the issuer signed and the certificate encodes as it was sent. DEVELOPERS.md
/// lists the gap.
enum UniqueIdentifiers {
    private static let issuerUniqueID = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)
    private static let subjectUniqueID = ASN1Identifier(tagWithNumber: 2, tagClass: .contextSpecific)

    /// The certificate `root` (whose encoding is `der`) with its unique identifiers ignored; nil when it has none, is
    /// a version 1 certificate, or cannot be read even without them.
    static func certificate(_ root: ASN1Node, der: [UInt8]) -> Certificate? {
        guard case .constructed(let top) = root.content else { return nil }
        var parts = top.makeIterator()
        guard let tbs = parts.next(), let algorithm = parts.next(), let signature = parts.next(), parts.next() == nil,
              case .constructed(let fields) = tbs.content else { return nil }
        var kept: [ASN1Node] = []
        var removed = false
        for field in fields {
            if field.identifier == issuerUniqueID || field.identifier == subjectUniqueID {
                // IMPLICIT BIT STRING: primitive. A constructed one is the form swift-certificates would have read.
                guard case .primitive = field.content else { return nil }
                removed = true
            } else {
                kept.append(field)
            }
        }
        guard removed else { return nil }
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: root.identifier) { outer in
            outer.appendConstructedNode(identifier: tbs.identifier) { inner in
                for field in kept { inner.serializeRawBytes(field.encodedBytes) }
            }
            outer.serializeRawBytes(algorithm.encodedBytes)
            outer.serializeRawBytes(signature.encodedBytes)
        }
        guard var certificate = try? Certificate(derEncoded: serializer.serializedBytes), certificate.version != .v1,
              let offset = MemoryLayout<Certificate>.offset(of: \Certificate.tbsCertificateBytes) else { return nil }
        // swift-certificates has no initializer taking the signed bytes; its stored property gets them back. Checked
        // below: should its layout ever change, the certificate is refused as before, never trusted over other bytes.
        withUnsafeMutableBytes(of: &certificate) { bytes in
            guard let base = bytes.baseAddress, offset + MemoryLayout<ArraySlice<UInt8>>.size <= bytes.count else { return }
            base.advanced(by: offset).assumingMemoryBound(to: ArraySlice<UInt8>.self).pointee = tbs.encodedBytes
        }
        var check = DER.Serializer()
        guard certificate.tbsCertificateBytes.elementsEqual(tbs.encodedBytes), (try? check.serialize(certificate)) != nil,
              check.serializedBytes == der else { return nil }
        return certificate
    }
}
