import TestSupport
import Foundation
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

/// What a verdict says about a certificate swift-certificates cannot parse although its key is one it supports:
/// the signature algorithm or the encoding is to blame, never the key.
@Suite struct DiagnosisTests {
    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func namesAnECDSAWithSHA1IntermediateAsAWeakSignature() async throws {
        let root = PKI.root()
        let tool = try OpenSSLTool()
        let rootName = try tool.export(root, as: "root")
        try tool.newKey("ca", OpenSSLTool.p256Key)
        let ca = try tool.issue("ca", cn: "SHA-1 EC CA", issuer: rootName, extensions: OpenSSLTool.caExtensions, signing: ["-sha1"])
        #expect(ca.certificate == nil, "swift-certificates cannot parse ecdsa-with-SHA1, so the engine must explain it")
        try tool.newKey("leaf", OpenSSLTool.p256Key)
        let leaf = try tool.issue("leaf", cn: "www.example.com", issuer: "ca", extensions: OpenSSLTool.leafExtensions)

        for policy in [PKI.ssl("www.example.com"), TrustPolicy.basicX509] {
            let verdict = await PKI.evaluate(ServerTrust(chain: [leaf, ca], anchors: PKI.anchors(root), policy: policy, validationTime: PKI.now))
            #expect(verdict.codes == [.weakSignature])
            let failure = try #require(verdict.failures.first)
            #expect(failure.certificate == 1)
            #expect(failure.message.contains("CN=SHA-1 EC CA") && failure.message.contains("ecdsaWithSHA1"), "\(failure.message)")
            #expect(!failure.message.contains("curve"), "the P-256 key is not the problem: \(failure.message)")
        }
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func namesADSASignatureAsUnsupportedAndTheDSAKeyByName() async throws {
        let root = PKI.root()
        let tool = try OpenSSLTool()
        let rootName = try tool.export(root, as: "root")
        try tool.run(["genpkey", "-genparam", "-algorithm", "DSA", "-pkeyopt", "dsa_paramgen_bits:2048", "-out", "dsa.params"])
        try tool.newKey("dsaca", ["-paramfile", "dsa.params"])
        let dsaCA = try tool.issue("dsaca", cn: "DSA CA", issuer: rootName, extensions: OpenSSLTool.caExtensions)
        try tool.newKey("leaf", OpenSSLTool.p256Key)
        let leaf = try tool.issue("leaf", cn: "www.example.com", issuer: "dsaca", extensions: OpenSSLTool.leafExtensions)
        #expect(leaf.certificate == nil && leaf.raw?.keyAlgorithm == .ecdsa(curve: "P-256", bits: 256))

        let verdict = await PKI.evaluate(ServerTrust(chain: [leaf, dsaCA], anchors: PKI.anchors(root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(verdict.codes == [.unsupportedAlgorithm])
        let failure = try #require(verdict.failures.first)
        #expect(failure.certificate == 0)
        #expect(failure.message.contains("CN=www.example.com") && failure.message.contains("signed with dsaWithSHA256"), "\(failure.message)")
        #expect(!failure.message.contains("curve"), "\(failure.message)")
        // A DSA signature might verify on Apple's side; a DSA key is refused there too.
        #expect(failure.isVerifierLimitation)

        let caVerdict = await PKI.evaluate(ServerTrust(chain: [dsaCA], anchors: PKI.anchors(root), policy: .basicX509, validationTime: PKI.now))
        #expect(caVerdict.codes == [.unsupportedAlgorithm])
        #expect(caVerdict.failures.first?.message.contains("unsupported key type (DSA)") == true, "\(caVerdict.failures)")
        #expect(caVerdict.failures.first?.isVerifierLimitation == false)
    }

    /// An anchor swift-certificates cannot use (here RSA-1024) is why the path stops, not a re-keyed CA.
    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func namesAnAnchorWithAWeakKey() async throws {
        let tool = try OpenSSLTool()
        try tool.newKey("weakroot", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        try tool.run(["req", "-x509", "-key", "weakroot.key", "-subj", "/O=Transport Trust Tests/CN=Weak Root", "-days", "60",
                      "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", "weakroot.pem"])
        let root = try tool.load("weakroot")
        #expect(root.certificate == nil)
        try tool.newKey("leaf", OpenSSLTool.p256Key)
        let leaf = try tool.issue("leaf", cn: "www.example.com", issuer: "weakroot", extensions: OpenSSLTool.leafExtensions)

        let verdict = await PKI.evaluate(ServerTrust(chain: [leaf], anchors: TrustAnchors(custom: [root]), policy: PKI.ssl("www.example.com"),
                                                     validationTime: PKI.now))
        #expect(verdict.codes == [.weakKey], "\(verdict.failures)")
        #expect(verdict.failures.first?.certificate == 1)
        #expect(verdict.failures.first?.message.contains("'CN=Weak Root,O=Transport Trust Tests' has an RSA 1024-bit key") == true, "\(verdict.failures)")
        #expect(verdict.chainDER == [leaf.der, root.der])
    }

    @Test func namesACertificateWithADuplicatedExtensionAsMalformed() async throws {
        let (root, intermediate, _) = PKI.chain()
        // Two private extensions whose OIDs differ only in the last arc; one byte makes them the same.
        let first: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 32473, 1]
        let second: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 32473, 2]
        let leaf = intermediate.leaf("duplicated.example.com", extra: [
            Certificate.Extension(oid: first, critical: false, value: [0x05, 0x00]),
            Certificate.Extension(oid: second, critical: false, value: [0x05, 0x00]),
        ])
        let der = try Self.replacing(Self.encoded(second), with: Self.encoded(first), in: leaf.der)
        let input = try InputCertificate(der: der)
        #expect(input.certificate == nil, "swift-certificates refuses a repeated extension")

        let verdict = await PKI.evaluate(ServerTrust(chain: [input, intermediate.input], anchors: PKI.anchors(root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(verdict.codes == [.malformedCertificate])
        let failure = try #require(verdict.failures.first)
        #expect(failure.certificate == 0)
        #expect(failure.message.contains("CN=duplicated.example.com") && failure.message.contains("cannot be parsed"), "\(failure.message)")
        #expect(failure.message.contains("carries the extension \(first) twice"), "the reason names the repeated extension: \(failure.message)")
        #expect(!failure.message.contains("curve"), "\(failure.message)")
        #expect(!failure.message.contains(".swift:"), "no source location of swift-certificates: \(failure.message)")

        // A named extension is called by its name: an issuerAltName (2.5.29.18) becomes a second subjectAltName.
        let issuerAltName: ASN1ObjectIdentifier = [2, 5, 29, 18]
        let withIssuerAltName = intermediate.leaf("twice.example.com", extra: [
            Certificate.Extension(oid: issuerAltName, critical: false, value: [0x30, 0x00]),
        ])
        let twice = try InputCertificate(der: Self.replacing(Self.encoded(issuerAltName), with: Self.encoded(.X509ExtensionID.subjectAlternativeName),
                                                             in: withIssuerAltName.der))
        #expect(twice.certificate == nil)
        #expect(Diagnosis.unusable(twice, index: 0, policy: .basicX509).message.contains("carries the extension subjectAltName (2.5.29.17) twice"),
                "\(Diagnosis.unusable(twice, index: 0, policy: .basicX509).message)")
    }

    /// RFC 5280 §4.1.2.2: a serial number is a positive INTEGER. swift-asn1 refuses a negative one as "INTEGER encoded
    /// with top bit set!", which the verdict puts in words.
    @Test func namesANegativeSerialNumber() async throws {
        let (root, intermediate, _) = PKI.chain()
        let serial: [UInt8] = [0x11, 0x23, 0x35, 0x47, 0x59, 0x6B, 0x7D, 0x0F, 0x21, 0x33, 0x45, 0x57, 0x69, 0x7B, 0x0D, 0x1F]
        let leaf = intermediate.leaf("negative.example.com", serial: Certificate.SerialNumber(bytes: serial[...]))
        let der = try Self.replacing([0x02, 0x10] + serial, with: [0x02, 0x10, 0x91] + serial.dropFirst(), in: leaf.der)
        let input = try InputCertificate(der: der)
        #expect(input.certificate == nil, "swift-certificates refuses a negative serial")
        #expect(input.parseFailure?.contains(".swift:") == false, "\(input.parseFailure ?? "")")

        let verdict = await PKI.evaluate(ServerTrust(chain: [input, intermediate.input], anchors: PKI.anchors(root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(verdict.codes == [.malformedCertificate])
        let failure = try #require(verdict.failures.first)
        #expect(failure.certificate == 0)
        #expect(failure.message == "\(leaf.label) cannot be parsed: its serial number is negative, and RFC 5280 §4.1.2.2 requires a positive integer; the CA must reissue it")
    }

    @Test func namesAnUnreadableRSAKeyAsMalformedNotAsAZeroBitKey() async throws {
        let (root, intermediate, _) = PKI.chain()
        let leaf = intermediate.leaf("unreadable.example.com", key: .rsa2048(0))
        // The BIT STRING of a 2048-bit RSA key, then the RSAPublicKey SEQUENCE: turn that SEQUENCE into an OCTET STRING.
        let keyStart: [UInt8] = [0x03, 0x82, 0x01, 0x0F, 0x00, 0x30, 0x82, 0x01, 0x0A]
        let der = try Self.replacing(keyStart, with: [0x03, 0x82, 0x01, 0x0F, 0x00, 0x04, 0x82, 0x01, 0x0A], in: leaf.der)
        let input = try InputCertificate(der: der)
        #expect(input.certificate == nil && input.raw?.keyAlgorithm == .rsa(bits: 0))

        let verdict = await PKI.evaluate(ServerTrust(chain: [input, intermediate.input], anchors: PKI.anchors(root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(verdict.codes == [.malformedCertificate])
        let failure = try #require(verdict.failures.first)
        #expect(failure.message.contains("CN=unreadable.example.com") && failure.message.contains("RSA public key that cannot be read"), "\(failure.message)")
        #expect(!failure.message.contains("0-bit"), "\(failure.message)")
    }

    static func encoded(_ oid: ASN1ObjectIdentifier) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(oid)
        return serializer.serializedBytes
    }

    /// `bytes` with the only occurrence of `old` replaced by `new`, which has the same length.
    static func replacing(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8]) throws -> [UInt8] {
        let starts = bytes.indices.filter { bytes[$0...].starts(with: old) }
        try #require(starts.count == 1 && old.count == new.count)
        var out = bytes
        out.replaceSubrange(starts[0] ..< starts[0] + old.count, with: new)
        return out
    }

    /// RFC 5758 §3.2: ecdsa-with-SHA256 has no parameters. OpenSSL tolerates a NULL there; swift-certificates refuses
    /// it, and the verdict says so in words instead of with swift-certificates' error and source line.
    @Test func anECDSASignatureAlgorithmWithParametersIsNamed() async throws {
        let pki = PKI.chain()
        let withNull = try DER.parse([0x30, 0x0c, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02, 0x05, 0x00])
        guard case .constructed(let top) = try DER.parse(pki.leaf.der).content, case .constructed(let tbsFields) = Array(top)[0].content else {
            Issue.record("the test leaf is not a SEQUENCE of a TBSCertificate")
            return
        }
        var fields = Array(tbsFields)
        fields[2] = withNull   // [0] version, serial, signature
        var tbsSerializer = DER.Serializer()
        tbsSerializer.appendConstructedNode(identifier: .sequence) { coder in
            for field in fields { coder.serializeRawBytes(field.encodedBytes) }
        }
        let tbs = tbsSerializer.serializedBytes
        let signature = try pki.intermediate.key.sign(tbs).signature
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            coder.serializeRawBytes(tbs)
            coder.serializeRawBytes(withNull.encodedBytes)
            try coder.serialize(ASN1BitString(bytes: signature[...]))
        }
        let verdict = await PKI.evaluate(ServerTrust(certificates: [serializer.serializedBytes, pki.intermediate.der], anchors: PKI.anchors(pki.root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(verdict.codes == [.malformedCertificate])
        let message = verdict.failures.first?.message ?? ""
        #expect(message.contains("\(pki.leaf.label) is signed with ecdsaWithSHA256 but its signature algorithm carries parameters (NULL)"), "\(message)")
        #expect(message.contains("RFC 5758"))
        #expect(!message.contains(".swift:"), "\(message)")
    }

    /// A chain sent issuer first: the fault is the order, not the intermediate's lack of serverAuth and a SAN.
    @Test func aChainSentIntermediateFirstSaysTheLeafMustComeFirst() async throws {
        let (root, intermediate, leaf) = PKI.chain()
        let verdict = await PKI.evaluate(ServerTrust(chain: [intermediate.input, leaf.input], anchors: PKI.anchors(root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes == [.basicConstraints], "\(verdict.failures)")
        let message = try #require(verdict.failures.first?.message)
        #expect(message.contains("starts with the CA certificate '\(intermediate.subject)'") && message.contains("must come first"), "\(message)")
        #expect(message.contains("'\(leaf.subject)' (certificate 1 as sent) looks like it"), "\(message)")
        #expect(!message.contains("serverAuth") && !message.contains("subjectAltName"), "\(message)")
        // In the right order, the same certificates are trusted.
        #expect(await PKI.evaluate(ServerTrust(chain: [leaf.input, intermediate.input], anchors: PKI.anchors(root),
                                               policy: PKI.ssl("www.example.com"), validationTime: PKI.now)).isTrusted)
    }

    @Test func aCAAloneIsNotCalledMisordered() async {
        let (root, intermediate, _) = PKI.chain()
        let verdict = await PKI.evaluate(ServerTrust(chain: [intermediate.input], anchors: PKI.anchors(root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(!verdict.isTrusted)
        #expect(!verdict.failures.contains { $0.message.contains("must come first") })
    }

    @Test func anIssuerWithAnEmptyNameIsSaidToHaveOne() async throws {
        let (root, intermediate, _) = PKI.chain()
        let leaf = PKI.issue(subject: PKI.name("www.example.com"), key: .p256(), issuer: intermediate, issuerName: DistinguishedName(),
                             extensions: [try Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false)])
        let verdict = await PKI.evaluate(ServerTrust(chain: [leaf.input], anchors: PKI.anchors(root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(verdict.codes == [.unknownIssuer])
        #expect(verdict.failures.first?.message.contains("the intermediate '' (an empty name) that issued 'CN=www.example.com,O=Transport Trust Tests'") == true,
                "\(verdict.failures)")
    }
}
