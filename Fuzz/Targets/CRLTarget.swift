import Crypto
import SwiftASN1
import TransportTrust
import X509

extension FuzzTarget {
    /// A CRL (DER or PEM) through `CertificateRevocationList`, then, signed again by the fixture CA, through hard-fail CRL
    /// revocation (`RevocationCheck` via `TrustEngine`) for the fixture leaf. Signing the fuzzed tbsCertList again
    /// (with the signature algorithm it names) lets every mutation reach the decision instead of stopping at the
    /// signature. Invariants: a second parse reads the same list; each entry it reports is found by a lookup; and the
    /// chain is never trusted while an entry revokes the leaf.
    static let crl = FuzzTarget(name: "crl", summary: "CRL → CertificateRevocationList, re-signed → CRL revocation via TrustEngine") { bytes in
        guard let first = try? CertificateRevocationList(bytes: bytes) else { return }
        guard let second = try? CertificateRevocationList(bytes: bytes) else { violated("a CRL parsed once and not twice") }
        let entries = first.revokedEntries
        if first.derEncoded != second.derEncoded || first.issuer != second.issuer || first.thisUpdate != second.thisUpdate
            || first.nextUpdate != second.nextUpdate || first.isDelta != second.isDelta || entries != second.revokedEntries {
            violated("a second parse read another CRL")
        }
        for entry in entries where !first.lists(Certificate.SerialNumber(bytes: entry.serial)) {
            violated("serial \(entry.serial) is reported revoked but a lookup does not find it")
        }

        guard let signed = resigned(first.derEncoded), let crl = try? CertificateRevocationList(bytes: signed) else { return }
        var policy = TrustPolicy.ssl(host: host)
        policy.revocation = RevocationOptions(mode: .hard, crls: [crl], methods: .crl)
        let trust = ServerTrust(chain: Fixtures.crlLeaf, anchors: Fixtures.crlAnchors, policy: policy, validationTime: fuzzTime)
        let (cold, again) = runBlocking {
            (await TrustEngine(cacheCapacity: 0).evaluate(trust), await TrustEngine(cacheCapacity: 0).evaluate(trust))
        }
        checkVerdict(cold, presented: Fixtures.crlLeaf.map(\.der), anchors: Fixtures.crlAnchors)
        checkSame(cold, again, "a second evaluation")
        guard cold.isTrusted else { return }
        // removeFromCRL (8) revokes nothing in a complete CRL (RFC 5280 §5.3.1); any other entry for the leaf under its
        // issuer must keep it from being trusted.
        if let entry = crl.revokedEntries.first(where: { revokes($0, leaf: crlLeafCertificate) }) {
            violated("the leaf is trusted while the CRL revokes it (reason \(entry.reason.map(String.init) ?? "none"))")
        }
    }

    static let crlLeafCertificate: Certificate = {
        guard let leaf = Fixtures.crlLeaf.first?.certificate else { violated("Fuzz/Fixtures/crl/leaf.pem does not parse") }
        return leaf
    }()

    /// The fixture CA's key, raw: swift-crypto's key type is not Sendable, so each signature makes its own.
    static let crlSigningKey: [UInt8] = {
        guard let pem = String(validating: Fixtures.bytes("Fuzz/Fixtures/crl/ca.key"), as: UTF8.self),
              let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else { violated("Fuzz/Fixtures/crl/ca.key is not a P-256 key") }
        return Array(key.rawRepresentation)
    }()

    static func revokes(_ entry: CertificateRevocationList.RevokedEntry, leaf: Certificate) -> Bool {
        guard entry.reason != 8, entry.serial == Array(leaf.serialNumber.bytes.drop { $0 == 0 }) else { return false }
        return entry.certificateIssuer.map { $0.contains(.directoryName(leaf.issuer)) } ?? true
    }

    /// The CertificateList with its tbsCertList and algorithm kept and a fresh signature by the fixture CA's key.
    static func resigned(_ der: [UInt8]) -> [UInt8]? {
        guard let root = try? DER.parse(der), case .constructed(let fields) = root.content else { return nil }
        let parts = Array(fields)
        guard parts.count == 3, let key = try? P256.Signing.PrivateKey(rawRepresentation: crlSigningKey),
              let signature = try? key.signature(for: Array(parts[0].encodedBytes)) else { return nil }
        var serializer = DER.Serializer()
        try? serializer.appendConstructedNode(identifier: .sequence) { list in
            list.serializeRawBytes(parts[0].encodedBytes)
            list.serializeRawBytes(parts[1].encodedBytes)
            try list.serialize(ASN1BitString(bytes: ArraySlice(signature.derRepresentation)))
        }
        return serializer.serializedBytes
    }
}
