import Foundation
import TestSupport
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

/// What `InputCertificate` refuses beyond swift-certificates' own parse.
@Suite struct InputCertificateTests {
    /// The DER offset of a BIT STRING's unused-bits octet.
    static func unusedBitsOffset(of node: ASN1Node) throws -> Int {
        guard case .primitive(let content) = node.content else { throw ASN1Error.invalidASN1Object(reason: "not primitive") }
        return content.startIndex
    }

    static func children(_ node: ASN1Node) throws -> [ASN1Node] {
        guard case .constructed(let nodes) = node.content else { throw ASN1Error.invalidASN1Object(reason: "not constructed") }
        return Array(nodes)
    }

    /// A leaf whose DER ends in a zero bit, so that one unused bit in its signature is still valid DER: the change
    /// is then only the count, which is what swift-certificates does not read.
    static func leafEndingInAZeroBit(_ pki: (root: TestCert, intermediate: TestCert, leaf: TestCert), _ last: (TestCert) throws -> UInt8) throws -> TestCert {
        for _ in 0..<64 {
            let leaf = pki.intermediate.leaf()
            if try last(leaf) & 1 == 0 { return leaf }
        }
        throw ASN1Error.invalidASN1Object(reason: "64 leaves in a row ended in a one bit")
    }

    @Test func aSignatureWithUnusedBitsIsRefusedThoughItStillVerifies() async throws {
        let pki = PKI.chain()
        let leaf = try Self.leafEndingInAZeroBit(pki) { try #require($0.der.last) }
        var der = leaf.der
        der[try Self.unusedBitsOffset(of: try Self.children(try DER.parse(der))[2])] = 1
        // The gap: swift-certificates reads the changed certificate as the original, signature and all.
        let parsed = try Certificate(derEncoded: der)
        #expect(parsed.signature == leaf.certificate.signature && parsed.tbsCertificateBytes == leaf.certificate.tbsCertificateBytes)
        #expect(pki.intermediate.certificate.publicKey.isValidSignature(parsed.signature, for: parsed))

        let input = try InputCertificate(der: der)
        #expect(input.certificate == nil)
        #expect(input.parseFailure?.contains("its signature is a BIT STRING with 1 unused bit,") == true, "\(input.parseFailure ?? "")")

        let verdict = await PKI.evaluate(ServerTrust(chain: [input, pki.intermediate.input], anchors: PKI.anchors(pki.root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes == [.malformedCertificate])
        #expect(verdict.failures.first?.certificate == 0)
        #expect(verdict.failures.first?.message.contains("send the certificate exactly as its CA issued it") == true, "\(verdict.failures)")

        let original = await PKI.evaluate(ServerTrust(chain: [leaf.input, pki.intermediate.input], anchors: PKI.anchors(pki.root),
                                                      policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(original.isTrusted)
    }

    /// Found by the certificate fuzz target (Fuzz/Regressions/certificate/crash-772d…): swift-crypto 3.12.3 frees an RSA
    /// key twice when BoringSSL refuses it, so a certificate with such a key must never reach swift-certificates. An even
    /// exponent is one BoringSSL refuses (RSA_check_key); a well-formed key still parses.
    @Test func anRSAKeyBoringSSLRefusesNeverReachesSwiftCrypto() throws {
        let leaf = PKI.root(key: .rsa2048(0)).leaf(key: .rsa2048(2))
        #expect(try InputCertificate(der: leaf.der).certificate != nil)
        var der = leaf.der
        let exponent: [UInt8] = [0x02, 0x03, 0x01, 0x00, 0x01]
        let at = try #require((0...(der.count - exponent.count)).last { der[$0..<($0 + exponent.count)].elementsEqual(exponent) })
        der[at + 4] = 0x00
        let fuzzed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Regressions/certificate/crash-772d3b9f513d64ad7e19ccb59956dbff6db45551")
        for bytes in [der, Array(try Data(contentsOf: fuzzed))] {
            let input = try InputCertificate(der: bytes)
            #expect(input.certificate == nil)
            #expect(input.parseFailure?.contains("its RSA public key is malformed") == true, "\(input.parseFailure ?? "")")
        }
    }

    @Test func aPublicKeyWithUnusedBitsIsRefusedEvenWhenItsCASignedIt() throws {
        let pki = PKI.chain()
        let spkiKey = { (leaf: TestCert) throws -> ASN1Node in
            let tbs = try Self.children(try Self.children(try DER.parse(leaf.der))[0])
            return try Self.children(tbs[6])[1]   // [0] version, serial, signature, issuer, validity, subject, SPKI
        }
        let leaf = try Self.leafEndingInAZeroBit(pki) { try #require(spkiKey($0).encodedBytes.last) }
        let parts = try Self.children(try DER.parse(leaf.der))
        var tbs = Array(parts[0].encodedBytes)
        tbs[try Self.unusedBitsOffset(of: spkiKey(leaf)) - parts[0].encodedBytes.startIndex] = 1
        let signature = try pki.intermediate.key.sign(tbs).signature
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            coder.serializeRawBytes(tbs)
            coder.serializeRawBytes(parts[1].encodedBytes)
            try coder.serialize(ASN1BitString(bytes: signature[...]))
        }
        let der = serializer.serializedBytes
        #expect(try Certificate(derEncoded: der).publicKey == leaf.certificate.publicKey, "the gap: the count is not read")

        let input = try InputCertificate(der: der)
        #expect(input.certificate == nil)
        #expect(input.parseFailure?.contains("its subjectPublicKey is a BIT STRING with 1 unused bit,") == true, "\(input.parseFailure ?? "")")
        #expect(input.parseFailure?.contains("the certificate must be reissued") == true)
    }

    /// RSA's AlgorithmIdentifier may carry NULL parameters or none; swift-certificates reads both as the same
    /// algorithm and verifies with the outer one, which no signature covers.
    @Test func anOuterSignatureAlgorithmThatDiffersFromTheSignedOneIsRefused() async throws {
        let root = PKI.root(key: .rsa2048(0))
        let intermediate = root.intermediate("RSA CA", key: .rsa2048(1))
        let leaf = intermediate.leaf()
        let parts = try Self.children(try DER.parse(leaf.der))
        let algorithm = Array(parts[1].encodedBytes)
        #expect(algorithm.suffix(2) == [0x05, 0x00], "sha256WithRSAEncryption with NULL parameters")
        let withoutParameters: [UInt8] = [0x30, UInt8(algorithm.count - 4)] + algorithm[2..<(algorithm.count - 2)]
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: .sequence) { coder in
            coder.serializeRawBytes(parts[0].encodedBytes)
            coder.serializeRawBytes(withoutParameters)
            coder.serializeRawBytes(parts[2].encodedBytes)
        }
        let der = serializer.serializedBytes
        // The gap: swift-certificates reads the changed certificate and its signature still verifies.
        let parsed = try Certificate(derEncoded: der)
        #expect(intermediate.certificate.publicKey.isValidSignature(parsed.signature, for: parsed))

        let input = try InputCertificate(der: der)
        #expect(input.certificate == nil)
        #expect(input.parseFailure?.contains("its signatureAlgorithm differs from the signature algorithm inside its signed part") == true,
                "\(input.parseFailure ?? "")")
        let verdict = await PKI.evaluate(ServerTrust(chain: [input, intermediate.input], anchors: PKI.anchors(root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(verdict.codes == [.malformedCertificate])
    }

    /// A cut-off or padded certificate used to be explained with swift-asn1's text ("ASN1Error.truncatedASN1Field: ");
    /// the reason now says what is wrong and at which byte.
    @Test func aCutOrPaddedCertificateSaysWhereInWords() throws {
        let (_, _, leaf) = PKI.chain()
        let cases: [([UInt8], String)] = [
            (Array(leaf.der.prefix(leaf.der.count - 7)), "the data ends 7 bytes early, at byte \(leaf.der.count - 7)"),
            (leaf.der + [0x00, 0x00], "it starts with a DER element of \(leaf.der.count) bytes, then 2 more bytes follow"),
        ]
        for (der, words) in cases {
            #expect { try InputCertificate(der: der) } throws: { error in
                let text = "\(error)"
                return text.contains(words) && !text.contains("ASN1Error")
            }
        }
    }

    /// swift-asn1 and swift-certificates end their error text with their own source location; readers get the reason.
    @Test func dependencyErrorsLoseTheirSourceLocationAndNothingElse() throws {
        let (_, _, leaf) = PKI.chain()
        do {
            _ = try Certificate(derEncoded: Array(leaf.der.prefix(40)))
            Issue.record("a truncated certificate parsed")
        } catch {
            let raw = "\(error)"
            try #require(raw.hasPrefix("ASN1Error.") && raw.contains(".swift:"), "swift-asn1's text changed: \(raw)")
            let text = dependencyErrorText(error)
            #expect(raw.hasPrefix(text + " ") && !text.contains(".swift:"), "\(text)")
        }
        // Only the location is cut: a reason that itself ends like one stays whole. Other errors are untouched.
        #expect(dependencyErrorText(ASN1Error.invalidASN1Object(reason: "see x.swift:1")) == "ASN1Error.invalidASN1Object: see x.swift:1")
        struct Other: Error, CustomStringConvertible { var description: String }
        #expect(dependencyErrorText(Other(description: "see Foo.swift:12")) == "see Foo.swift:12")
    }
}
