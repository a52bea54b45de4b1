import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

@Suite struct KeyStrengthRuleTests {
    static var atsPolicy: TrustPolicy {
        var policy = PKI.ssl("www.example.com")
        policy.requiresATSStrength = true
        return policy
    }

    @Test func acceptsRSA2048AndECKeys() async {
        let rsaRoot = PKI.root(key: .rsa2048(0))
        let rsaLeaf = rsaRoot.leaf(key: .rsa2048(1))
        #expect(await RuleProbe.failures(KeyStrengthRule(), leaf: rsaLeaf, anchors: [rsaRoot]) == [])
        let ecRoot = PKI.root(key: .p384())
        let ecLeaf = ecRoot.leaf(key: .p256())
        #expect(await RuleProbe.failures(KeyStrengthRule(), leaf: ecLeaf, anchors: [ecRoot]) == [])
    }

    @Test func refusesRSAKeysBelowTheMinimumOnEveryCertificate() async {
        let root = PKI.root(key: .rsa2048(0))
        let intermediate = root.intermediate("RSA CA", key: .rsa2048(1))
        let leaf = intermediate.leaf(key: .p256())
        let failures = await RuleProbe.failures(KeyStrengthRule(minimumRSABits: 3072), leaf: leaf, intermediates: [intermediate], anchors: [root])
        #expect(failures?.map(\.code) == [.weakKey, .weakKey])
        #expect(failures?.map(\.certificate) == [1, 2])
        #expect(failures?.first?.message.contains(intermediate.label) == true)
        #expect(failures?.first?.message.contains("RSA 2048-bit key; at least 3072 bits") == true)
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func namesAnRSA1024LeafAsAWeakKey() async throws {
        let (root, intermediate, _) = PKI.chain()
        let leaf = try OpenSSLTool.rsa1024Leaf(cn: "weak.example.com", issuer: intermediate)
        #expect(leaf.certificate == nil, "swift-certificates refuses RSA-1024, so the engine must explain it")
        #expect(leaf.raw?.keyAlgorithm == .rsa(bits: 1024))

        for policy in [Self.atsPolicy, PKI.ssl("www.example.com")] {
            let verdict = await PKI.evaluate(ServerTrust(chain: [leaf, intermediate.input], anchors: PKI.anchors(root), policy: policy, validationTime: PKI.now))
            #expect(!verdict.isTrusted)
            #expect(verdict.codes == [.weakKey])
            #expect(verdict.failures[0].certificate == 0)
            #expect(verdict.failures[0].message.contains("CN=weak.example.com"), "\(verdict.failures[0].message)")
            #expect(verdict.failures[0].message.contains("RSA 1024-bit key"))
            #expect(verdict.chainSummaries.first?.keyType == "RSA 1024")
        }
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func namesAnRSA1024Intermediate() async throws {
        let (root, weakCA, leaf) = try OpenSSLTool.chainWithRSA1024Intermediate()
        #expect(leaf.certificate != nil)

        let verdict = await PKI.evaluate(ServerTrust(chain: [leaf, weakCA], anchors: PKI.anchors(root), policy: Self.atsPolicy, validationTime: PKI.now))
        #expect(verdict.codes == [.weakKey])
        #expect(verdict.failures[0].certificate == 1)
        #expect(verdict.failures[0].message.contains("CN=Weak RSA CA"), "\(verdict.failures[0].message)")
        #expect(verdict.chainDER == [leaf.der, weakCA.der])
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func namesAnRSAPSSKeyAsUnsupported() async throws {
        let (root, intermediate, _) = PKI.chain()
        let tool = try OpenSSLTool()
        let ca = try tool.export(intermediate, as: "ca")
        try tool.newKey("leaf", ["-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:2048"])
        let leaf = try tool.issue("leaf", cn: "pss.example.com", issuer: ca, extensions: OpenSSLTool.leafExtensions)
        #expect(leaf.raw?.keyAlgorithm == .rsaPSS(bits: 2048))

        let verdict = await PKI.evaluate(ServerTrust(chain: [leaf, intermediate.input], anchors: PKI.anchors(root), policy: Self.atsPolicy, validationTime: PKI.now))
        #expect(verdict.codes == [.unsupportedAlgorithm])
        #expect(verdict.failures[0].certificate == 0)
        #expect(verdict.failures[0].message.contains("CN=pss.example.com"), "\(verdict.failures[0].message)")
        #expect(verdict.failures[0].message.contains("RSA-PSS"))
        #expect(verdict.failures[0].isVerifierLimitation)
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func namesAnECKeyBelow256BitsAsWeak() async throws {
        let (root, intermediate, _) = PKI.chain()
        let tool = try OpenSSLTool()
        let ca = try tool.export(intermediate, as: "ca")
        try tool.newKey("leaf", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-224"])
        let leaf = try tool.issue("leaf", cn: "p224.example.com", issuer: ca, extensions: OpenSSLTool.leafExtensions)

        let verdict = await PKI.evaluate(ServerTrust(chain: [leaf, intermediate.input], anchors: PKI.anchors(root), policy: Self.atsPolicy, validationTime: PKI.now))
        #expect(verdict.codes == [.weakKey])
        #expect(verdict.failures[0].certificate == 0)
        #expect(verdict.failures[0].message.contains("CN=p224.example.com"), "\(verdict.failures[0].message)")
        #expect(verdict.failures[0].message.contains("P-224"))
    }
}
