import TestSupport
import Foundation
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

/// v2/v3 certificates with issuerUniqueID or subjectUniqueID (RFC 5280 §4.1.2.8) parse, and the fields are ignored.
@Suite struct UniqueIdentifiersTests {
    struct Malformed: Error {}

    /// `cert` re-encoded with `[1] IMPLICIT BIT STRING` and `[2] IMPLICIT BIT STRING` after its key, as RFC 5280's
    /// ASN.1 module writes them (swift-certificates writes them EXPLICIT), signed by `signer`. `signer` nil keeps the
    /// signature made over the certificate without them.
    static func withUniqueIDs(_ cert: TestCert, issuerID: [UInt8]? = nil, subjectID: [UInt8]? = nil, signer: TestKey?) throws -> [UInt8] {
        let root = try DER.parse(cert.der)
        guard case .constructed(let top) = root.content else { throw Malformed() }
        let parts = Array(top)
        guard parts.count == 3, case .constructed(let tbsFields) = parts[0].content else { throw Malformed() }
        let fields = Array(tbsFields)
        var tbs = DER.Serializer()
        tbs.appendConstructedNode(identifier: .sequence) { t in
            // version, serial, signature, issuer, validity, subject, subjectPublicKeyInfo; then the extensions.
            for f in fields.prefix(7) { t.serializeRawBytes(f.encodedBytes) }
            for (tag, id) in [(UInt(1), issuerID), (2, subjectID)] {
                guard let id else { continue }
                t.appendPrimitiveNode(identifier: ASN1Identifier(tagWithNumber: tag, tagClass: .contextSpecific)) { $0.append(0); $0.append(contentsOf: id) }
            }
            for f in fields.dropFirst(7) { t.serializeRawBytes(f.encodedBytes) }
        }
        var out = DER.Serializer()
        let signature: ArraySlice<UInt8>
        if let signer {
            signature = ArraySlice(try signer.sign(tbs.serializedBytes).signature)
        } else {
            signature = try ASN1BitString(derEncoded: parts[2]).bytes
        }
        try out.appendConstructedNode(identifier: .sequence) { o in
            o.serializeRawBytes(tbs.serializedBytes)
            o.serializeRawBytes(parts[1].encodedBytes)
            try o.serialize(ASN1BitString(bytes: signature))
        }
        return out.serializedBytes
    }

    @Test func aCertificateWithUniqueIdentifiersParsesAndKeepsItsEncoding() throws {
        let (root, ca, _) = PKI.chain()
        let der = try Self.withUniqueIDs(ca, issuerID: [0x01, 0x02], subjectID: [0x03], signer: root.key)
        let input = try InputCertificate(der: der)
        let certificate = try #require(input.certificate, "\(input.parseFailure ?? "")")
        #expect(certificate.subject == ca.subject)
        #expect(input.der == der)
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        #expect(serializer.serializedBytes == der, "it encodes as it was sent")
        #expect(root.key.publicKey.isValidSignature(certificate.signature, for: certificate), "the signature covers the bytes sent")
    }

    @Test func aChainThroughUniqueIdentifiersIsTrusted() async throws {
        let (root, ca, leaf) = PKI.chain()
        let caDER = try Self.withUniqueIDs(ca, subjectID: [0x20], signer: root.key)
        let leafDER = try Self.withUniqueIDs(leaf, issuerID: [0x20], signer: ca.key)
        let trust = ServerTrust(certificates: [leafDER, caDER], anchors: PKI.anchors(root), policy: PKI.ssl("www.example.com"), validationTime: PKI.now)
        let verdict = await PKI.evaluate(trust)
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.chainDER == [leafDER, caDER, root.der])
    }

    /// The identifiers are signed like every other field: added after signing, the signature no longer verifies.
    @Test func uniqueIdentifiersAddedAfterSigningBreakTheSignature() async throws {
        let (root, ca, leaf) = PKI.chain()
        let forged = try Self.withUniqueIDs(leaf, issuerID: [0x20], signer: nil)
        #expect(try InputCertificate(der: forged).certificate != nil)
        let trust = ServerTrust(certificates: [forged, ca.der], anchors: PKI.anchors(root), policy: PKI.ssl("www.example.com"), validationTime: PKI.now)
        let verdict = await PKI.evaluate(trust)
        #expect(!verdict.isTrusted)
        #expect(verdict.codes == [.unknownIssuer], "\(verdict.failures)")
    }
}
