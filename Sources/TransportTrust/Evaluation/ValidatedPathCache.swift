import Foundation
import NIOConcurrencyHelpers
import X509

/// A bounded LRU of paths whose signatures have been verified, keyed by the exact DER presented and the
/// anchor set. A hit lets an evaluation skip parsing, path building and every signature verification.
///
/// Each entry also remembers the policies its path has fully passed, and the window in which every
/// certificate of the path is valid. Only `ValidityRule` and revocation depend on the time, so a repeat
/// evaluation under a remembered policy rechecks the time against that window and nothing else.
final class ValidatedPathCache: Sendable {
    struct Key: Hashable {
        let presented: [[UInt8]]
        let extra: [[UInt8]]
        let anchors: [UInt8]

        func hash(into h: inout Hasher) {
            h.combine(presented.count)
            for der in presented { DERKey.hashTail(of: der, into: &h) }
            for der in extra { DERKey.hashTail(of: der, into: &h) }
            anchors.withUnsafeBytes { h.combine(bytes: $0) }
        }
    }

    struct Entry {
        let path: [InputCertificate]
        let chain: UnverifiedCertificateChain
        let anchorIsCustom: Bool
        /// Whether the anchor is a root of the public store (`TrustAnchors/isPublic`), where Apple's public-root rules apply.
        let anchorIsPublic: Bool
        /// The latest notBefore and the earliest notAfter of the path.
        let validFrom: Date
        let validUntil: Date
        /// Policies under which every time-independent rule passed, newest last.
        var passed: [RuleFingerprint] = []
        /// Which insertion this is: `remember` records a policy only on the entry its caller checked, not on one
        /// another evaluation stored under the same key meanwhile (another path of the same input).
        var generation: UInt64 = 0
        /// The leaf's SCTs with their signatures checked, when a policy looked at them.
        var sctAnalysis: SCTAnalysis?
        /// The last CT findings on this path, under the check that produced them: its options and whether the
        /// platform requires CT, since findings where CT is not required must not answer where it is.
        var transparency: (check: CertificateTransparencyCheck, findings: TransparencyFindings)?

        /// As `ValidityRule`: whole seconds, both ends inclusive.
        func isValid(at time: Date) -> Bool {
            let now = ValidityRule.wholeSeconds(time)
            return validFrom <= now && now <= validUntil
        }
    }

    /// Most policies remembered per path: a wildcard certificate may serve many hosts.
    static let policiesPerPath = 16

    private struct State {
        var entries = BoundedLRU<Key, Entry>()
        /// Stamps each insertion, so that `remember` knows the entry its caller checked.
        var generation: UInt64 = 0
        var answered = 0
    }

    private let capacity: Int
    private let state = NIOLockedValueBox(State())

    init(capacity: Int) { self.capacity = max(0, capacity) }

    func lookup(_ key: Key) -> Entry? {
        state.withLockedValue { $0.entries.value(for: key) }
    }

    func insert(_ key: Key, path: [InputCertificate], chain: UnverifiedCertificateChain, anchorIsCustom: Bool, anchorIsPublic: Bool,
                passed fingerprint: RuleFingerprint?, transparency: (check: CertificateTransparencyCheck, findings: TransparencyFindings)? = nil) {
        guard capacity > 0, let validFrom = chain.map(\.notValidBefore).max(),
            let validUntil = chain.map(\.notValidAfter).min()
        else { return }
        var entry = Entry(path: path, chain: chain, anchorIsCustom: anchorIsCustom, anchorIsPublic: anchorIsPublic, validFrom: validFrom,
                          validUntil: validUntil)
        if let fingerprint { entry.passed = [fingerprint] }
        entry.sctAnalysis = transparency?.findings.analysis
        entry.transparency = transparency
        state.withLockedValue { state in
            state.generation &+= 1
            entry.generation = state.generation
            state.entries.insert(entry, for: key, capacity: capacity)
        }
    }

    /// Records that the path cached under `key`, as inserted in `generation`, passed every time-independent rule of
    /// a policy. Nothing is recorded when the entry was replaced since: the rules ran on another path.
    func remember(_ fingerprint: RuleFingerprint, for key: Key, generation: UInt64,
                  transparency: (check: CertificateTransparencyCheck, findings: TransparencyFindings)? = nil) {
        state.withLockedValue { state in
            guard var found = state.entries.peek(key), found.generation == generation, !found.passed.contains(fingerprint) else { return }
            if let transparency {
                if let analysis = transparency.findings.analysis { found.sctAnalysis = analysis }
                found.transparency = transparency
            }
            found.passed.append(fingerprint)
            if found.passed.count > Self.policiesPerPath { found.passed.removeFirst() }
            state.entries.replace(key, with: found)
        }
    }

    var count: Int { state.withLockedValue { $0.entries.count } }

    /// Counts a verdict given from an entry alone: no parsing, no path search, no signature check.
    func noteAnswered() { state.withLockedValue { $0.answered += 1 } }

    var answered: Int { state.withLockedValue { $0.answered } }
}

/// Everything of a ``TrustPolicy`` that decides its rules, so two equal fingerprints run the same rules.
/// Revocation is left out: a policy that checks revocation is never answered from memory.
struct RuleFingerprint: Hashable {
    let kind: TrustPolicy.Kind
    let profile: TrustPolicy.Profile
    let requiresATSStrength: Bool
    let maximumIntermediates: Int?
    let requiredExtendedKeyUsages: [ExtendedKeyUsage.Usage]
    let certificateTransparency: CertificateTransparencyOptions
    let platform: ApplePlatform
    let certificatePolicies: CertificatePolicyOptions
    let distrusted: [DistrustList]

    /// The stored properties of ``TrustPolicy`` deliberately not keyed, each with the reason (checked by a test).
    static let unkeyedPolicyFields: [String: String] = [
        "revocation": "a policy that checks revocation is never answered from memory (init returns nil)",
    ]

    /// nil when the policy's outcome depends on more than the path, the policy and the time.
    init?(_ policy: TrustPolicy) {
        guard policy.revocation.mode == .off else { return nil }
        kind = policy.kind
        profile = policy.profile
        requiresATSStrength = policy.requiresATSStrength
        maximumIntermediates = policy.maximumIntermediates
        requiredExtendedKeyUsages = policy.requiredExtendedKeyUsages
        certificateTransparency = policy.certificateTransparency
        platform = policy.platform
        certificatePolicies = policy.certificatePolicies
        distrusted = policy.distrusted
    }
}
