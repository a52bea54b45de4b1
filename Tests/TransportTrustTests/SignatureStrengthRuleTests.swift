import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

@Suite struct SignatureStrengthRuleTests {
    @Test func refusesASHA1SignedLeafUnderTheSSLPolicy() async {
        let root = PKI.root(key: .rsa2048(0))
        let intermediate = root.intermediate("RSA CA", key: .rsa2048(1))
        let leaf = intermediate.leaf(signatureAlgorithm: .sha1WithRSAEncryption)
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(verdict.codes == [.weakSignature])
        #expect(verdict.failures[0].certificate == 0)
        #expect(verdict.failures[0].message.contains(leaf.label))
        #expect(verdict.failures[0].message.contains("SHA-256"))
    }

    @Test func refusesASHA1SignedIntermediateUnderEveryPolicy() async {
        let root = PKI.root(key: .rsa2048(0))
        let intermediate = root.intermediate("SHA-1 CA", key: .rsa2048(1), signatureAlgorithm: .sha1WithRSAEncryption)
        let leaf = intermediate.leaf(key: .rsa2048(2))
        for policy in [PKI.ssl("www.example.com"), TrustPolicy.basicX509] {
            let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: policy))
            #expect(verdict.codes == [.weakSignature])
            #expect(verdict.failures[0].certificate == 1)
            #expect(verdict.failures[0].message.contains(intermediate.label))
        }
    }

    @Test func ignoresTheAnchorsOwnSelfSignature() async {
        let sha1Root = PKI.issue(subject: PKI.name("SHA-1 Root"), key: .rsa2048(0), issuer: nil, signatureAlgorithm: .sha1WithRSAEncryption, extensions: [
            try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
            try! Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
        ])
        #expect(sha1Root.certificate.signatureAlgorithm == .sha1WithRSAEncryption)
        let intermediate = sha1Root.intermediate("Modern CA", key: .rsa2048(1))
        let leaf = intermediate.leaf()
        var policy = PKI.ssl("www.example.com")
        policy.requiresATSStrength = true
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate, sha1Root], anchors: [sha1Root], policy: policy))
        #expect(verdict.isTrusted, "\(verdict.failures)")
    }

    @Test func acceptsSHA384AndSHA512() async {
        let root = PKI.root(key: .rsa2048(0))
        let leaf384 = root.leaf(signatureAlgorithm: .sha384WithRSAEncryption)
        let leaf512 = root.leaf(signatureAlgorithm: .sha512WithRSAEncryption)
        #expect(await RuleProbe.failures(SignatureStrengthRule(), leaf: leaf384, anchors: [root]) == [])
        #expect(await RuleProbe.failures(SignatureStrengthRule(), leaf: leaf512, anchors: [root]) == [])
        let sha1 = root.leaf(signatureAlgorithm: .sha1WithRSAEncryption)
        let failures = await RuleProbe.failures(SignatureStrengthRule(), leaf: sha1, anchors: [root])
        #expect(failures?.map(\.code) == [.weakSignature])
        #expect(failures?.first?.certificate == 0)
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func namesAnRSAPSSSignatureAsUnsupported() async throws {
        let root = PKI.root(key: .rsa2048(0))
        let intermediate = root.intermediate("RSA CA", key: .rsa2048(1))
        let tool = try OpenSSLTool()
        let ca = try tool.export(intermediate, as: "ca")
        try tool.newKey("leaf", OpenSSLTool.p256Key)
        let leaf = try tool.issue("leaf", cn: "pss-signed.example.com", issuer: ca, extensions: OpenSSLTool.leafExtensions,
                                  signing: ["-sha256", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:32"])
        #expect(leaf.raw.map { SignatureNames.name(of: $0.signatureAlgorithmOID) } == "rsassaPss")

        let verdict = await PKI.evaluate(ServerTrust(chain: [leaf, intermediate.input], anchors: PKI.anchors(root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes == [.unsupportedAlgorithm])
        #expect(verdict.failures[0].certificate == 0)
        #expect(verdict.failures[0].message.contains("CN=pss-signed.example.com"), "\(verdict.failures[0].message)")
        #expect(verdict.failures[0].message.contains("RSA-PSS"))
    }
}
