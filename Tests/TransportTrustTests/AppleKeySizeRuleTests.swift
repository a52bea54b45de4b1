import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

/// RSA keys of at least 2048 bits in TLS server chains from iOS 13 and macOS 10.15. swift-certificates cannot parse
/// a certificate with a smaller RSA key, so those chains reach the engine's diagnosis, which must say the same as the rule.
@Suite struct AppleKeySizeRuleTests {
    static let ios12 = ApplePlatform(.iOS, 12, 4)
    static let ios13 = ApplePlatform(.iOS, 13)

    func policy(_ platform: ApplePlatform) -> TrustPolicy {
        var policy = PKI.ssl("www.example.com")
        policy.platform = platform
        return policy
    }

    @Test func theRuleJoinsTheSSLPolicyFromIOS13() {
        #expect(policy(Self.ios13).rules.contains { $0 is AppleKeySizeRule })
        #expect(policy(ApplePlatform(.macOS, 10, 15)).rules.contains { $0 is AppleKeySizeRule })
        #expect(!policy(Self.ios12).rules.contains { $0 is AppleKeySizeRule })
        var basic = TrustPolicy.basicX509
        basic.platform = Self.ios13
        #expect(!basic.rules.contains { $0 is AppleKeySizeRule })
    }

    @Test(arguments: [ios12, ios13, ApplePlatform.newest])
    func rsa2048InLeafAndIntermediateIsTrustedOnEveryPlatform(platform: ApplePlatform) async {
        let (root, intermediate, leaf) = PKI.chain(key: .rsa2048())
        let failures = await RuleProbe.failures(AppleKeySizeRule(platform: platform), leaf: leaf, intermediates: [intermediate], anchors: [root])
        #expect(failures == [])
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: policy(platform)))
        #expect(verdict.isTrusted, "\(verdict.failures)")
    }

    /// iOS 13 refuses an RSA-1024 leaf for its size; iOS 12 would take it, and the verdict says it is refused only
    /// because this verifier cannot check it.
    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func anRSA1024LeafPerPlatform() async throws {
        let (root, intermediate, _) = PKI.chain()
        let leaf = try OpenSSLTool.rsa1024Leaf(cn: "weak.example.com", issuer: intermediate)
        func verdict(_ platform: ApplePlatform, ats: Bool = false) async -> TrustVerdict {
            var policy = policy(platform)
            policy.requiresATSStrength = ats
            return await PKI.evaluate(ServerTrust(chain: [leaf, intermediate.input], anchors: PKI.anchors(root), policy: policy, validationTime: PKI.now))
        }
        let ios13 = await verdict(Self.ios13)
        #expect(ios13.codes == [.weakKey])
        #expect(ios13.failures.first?.certificate == 0)
        #expect(ios13.failures.first?.message.contains("'CN=weak.example.com,O=Transport Trust Tests' has an RSA 1024-bit key; iOS 13 requires at least 2048 bits") == true,
                "\(ios13.failures)")
        #expect(ios13.failures.first?.message.contains("support.apple.com/103769") == true)

        let ios12 = await verdict(Self.ios12)
        #expect(ios12.codes == [.unsupportedAlgorithm])
        #expect(ios12.failures.first?.message.contains("which iOS 12.4 accepts for a TLS server, but this verifier cannot check RSA keys under 2048 bits") == true,
                "\(ios12.failures)")
        // Only the refusal iOS 12 would not make is this verifier's limit.
        #expect(ios12.failures.map(\.isVerifierLimitation) == [true])
        #expect(ios13.failures.map(\.isVerifierLimitation) == [false])

        // ATS asks for 2048 bits on every platform.
        let ats = await verdict(Self.ios12, ats: true)
        #expect(ats.codes == [.weakKey])
        #expect(ats.failures.first?.message.contains("Apple (iOS 13 and later) and ATS require at least 2048 bits") == true, "\(ats.failures)")
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func anRSA1024IntermediatePerPlatform() async throws {
        let (root, weakCA, leaf) = try OpenSSLTool.chainWithRSA1024Intermediate()
        for (platform, code) in [(Self.ios13, TrustFailureCode.weakKey), (Self.ios12, .unsupportedAlgorithm)] {
            let verdict = await PKI.evaluate(ServerTrust(chain: [leaf, weakCA], anchors: PKI.anchors(root), policy: policy(platform), validationTime: PKI.now))
            #expect(verdict.codes == [code], "\(platform): \(verdict.failures)")
            #expect(verdict.failures.first?.certificate == 1)
            #expect(verdict.failures.first?.isVerifierLimitation == (code == .unsupportedAlgorithm))
            #expect(verdict.failures.first?.message.contains("'CN=Weak RSA CA,O=Transport Trust Tests' has an RSA 1024-bit key") == true, "\(verdict.failures)")
        }
    }

    /// The rule's own wording and the diagnosis's are one function's.
    @Test func theRuleAndTheDiagnosisWordARefusalAlike() {
        let failure = AppleKeySizeRule.weakRSAKey("'CN=x'", bits: 1024, at: 1, platform: Self.ios13)
        #expect(failure == TrustFailure(.weakKey, certificate: 1,
            "'CN=x' has an RSA 1024-bit key; iOS 13 requires at least 2048 bits in every certificate of a TLS server chain (support.apple.com/103769). The certificate must be reissued with a stronger key"))
    }
}
