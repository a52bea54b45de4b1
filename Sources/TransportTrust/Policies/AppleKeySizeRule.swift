import _CryptoExtras
import X509

/// Apple's TLS server key size rule: RSA keys of at least 2048 bits in the leaf and in every issuing CA, whatever
/// the anchor, from iOS 13 and macOS 10.15 (support.apple.com/103769). EC keys need no bound here: swift-certificates
/// parses only P-256 and larger.
///
/// swift-certificates cannot parse a certificate with an RSA key under 2048 bits at all, so such a certificate never
/// reaches a rule: `Diagnosis` reports it from its raw DER, in the words of `weakRSAKey(_:bits:at:platform:)`, and
/// `unparsableRSAKey(_:bits:at:policy:)` says so when the platform would not have refused the key.
package struct AppleKeySizeRule: ChainRule {
    package static let minimumRSABits = 2048
    package var platform: ApplePlatform

    package init(platform: ApplePlatform) { self.platform = platform }

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        for i in chain.indices {
            if let rsa = _RSA.Signing.PublicKey(chain[i].publicKey), rsa.keySizeInBits < Self.minimumRSABits {
                failures.append(Self.weakRSAKey(chain[i].label, bits: rsa.keySizeInBits, at: i, platform: platform))
            }
        }
    }

    /// The failure for an RSA key below 2048 bits when the rule applies, from this rule and from `Diagnosis` alike.
    static func weakRSAKey(_ label: String, bits: Int, at index: Int, platform: ApplePlatform?) -> TrustFailure {
        let who = platform.map { "\($0) requires" } ?? "Apple (iOS 13 and later) and ATS require"
        return TrustFailure(.weakKey, certificate: index,
            "\(label) has an RSA \(bits)-bit key; \(who) at least \(minimumRSABits) bits in every certificate of a TLS server chain "
            + "(support.apple.com/103769). The certificate must be reissued with a stronger key")
    }

    /// The refusal of a certificate whose RSA key of `bits` (under 2048) swift-certificates cannot parse. When neither
    /// this rule (an SSL policy for iOS 13, macOS 10.15 or later) nor ATS strength applies, the platform would accept
    /// the key, and the chain is refused only because it cannot be checked here.
    static func unparsableRSAKey(_ label: String, bits: Int, at index: Int, policy: TrustPolicy) -> TrustFailure {
        // Under 1024 bits trustd refuses a key under every policy (its weak-key floor).
        guard bits >= 1024 else {
            return TrustFailure(.weakKey, certificate: index,
                "\(label) has an RSA \(bits)-bit key; at least 2048 bits are required. The certificate must be reissued with a stronger key")
        }
        let platformRule = policy.isSSL && policy.platform.requiresRSA2048ForTLSServers
        if platformRule || policy.requiresATSStrength {
            return weakRSAKey(label, bits: bits, at: index, platform: platformRule ? policy.platform : nil)
        }
        let why = policy.isSSL ? "\(policy.platform) accepts for a TLS server" : "the basic X.509 policy accepts"
        return TrustFailure(.unsupportedAlgorithm, certificate: index,
            "\(label) has an RSA \(bits)-bit key, which \(why), but this verifier cannot check RSA keys under "
            + "\(minimumRSABits) bits (swift-certificates refuses them); the chain is refused because it cannot be checked", isVerifierLimitation: true)
    }
}
