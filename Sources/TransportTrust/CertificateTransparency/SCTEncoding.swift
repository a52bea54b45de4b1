import X509
import SwiftASN1

/// The RFC 6962 encodings an SCT signature covers and a CA embeds, for the verifier and for `ats serve`, whose test
/// log signs SCTs for its CT cases. (The tests encode them on their own, from the RFC, to check this.)
package enum SCTEncoding {
    /// The `digitally-signed` content of a v1 SCT over a `precert_entry` (RFC 6962 §3.2).
    package static func precertEntry(timestamp: UInt64, issuerKeyHash: [UInt8], tbs: [UInt8], extensions: [UInt8] = []) -> [UInt8] {
        var w = TLSWriter()
        w.byte(0)  // sct_version v1
        w.byte(0)  // signature_type certificate_timestamp
        w.integer(timestamp, bytes: 8)
        w.integer(1, bytes: 2)  // entry_type precert_entry
        w.bytes.append(contentsOf: issuerKeyHash)
        w.vector(tbs, lengthBytes: 3)
        w.vector(extensions, lengthBytes: 2)
        return w.bytes
    }

    /// A serialized v1 SCT: `signatureAlgorithm` 3 for ECDSA, 1 for RSA, hashed with SHA-256.
    package static func sct(logID: [UInt8], timestamp: UInt64, signatureAlgorithm: UInt8, signature: [UInt8]) -> [UInt8] {
        var w = TLSWriter()
        w.byte(0)
        w.bytes.append(contentsOf: logID)
        w.integer(timestamp, bytes: 8)
        w.vector([], lengthBytes: 2)
        w.byte(4)
        w.byte(signatureAlgorithm)
        w.vector(signature, lengthBytes: 2)
        return w.bytes
    }

    /// The SCT list extension (RFC 6962 §3.3) around serialized SCTs.
    package static func listExtension(_ scts: [[UInt8]]) throws -> Certificate.Extension {
        var list = TLSWriter()
        for sct in scts { list.vector(sct, lengthBytes: 2) }
        var outer = TLSWriter()
        outer.vector(list.bytes, lengthBytes: 2)
        var serializer = DER.Serializer()
        try serializer.serialize(ASN1OctetString(contentBytes: outer.bytes[...]))
        return Certificate.Extension(oid: EmbeddedSCTs.extensionOID, critical: false, value: serializer.serializedBytes[...])
    }
}
