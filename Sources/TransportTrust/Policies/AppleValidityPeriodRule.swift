import Foundation
import X509

/// Apple's maximum lifetimes for TLS server leaves, measured as trustd measures them: notAfter − notBefore in
/// seconds, with no extra second and no rounding to days.
///
/// Every limit whose date is on or before the leaf's notBefore applies (trustd `SecPolicy.c`
/// `set_ssl_validity_periods`, checked by `SecPolicyCheckSystemTrustValidityPeriod` and
/// `SecPolicyCheckOtherTrustValidityPeriod` in `SecPolicyServer.c`, Security-61901):
///
/// | Anchor | notBefore | Longest lifetime | Source | Platform |
/// |---|---|---|---|---|
/// | public root | ≥ 2018-03-01T00:00:00Z | 825 days + 3,600 s | support.apple.com/103769 | iOS 13, macOS 10.15 |
/// | public root | ≥ 2020-09-01T00:00:00Z | 398 days | support.apple.com/102028 | iOS 14, macOS 11 |
/// | any other | > 2019-06-30T23:00:00Z | 825 days + 3,600 s | support.apple.com/103769 | iOS 13, macOS 10.15 |
///
/// A public root is a root of the system store or Apple's, however the caller supplied it (`RuleContext/anchorIsSystem`,
/// `TrustAnchors/isPublic`). A leaf that is itself a custom anchor is not checked, as trustd skips leaves that are
/// user- or admin-trusted anchors.
package struct AppleValidityPeriodRule: ChainRule {
    package var platform: ApplePlatform

    package init(platform: ApplePlatform) { self.platform = platform }

    /// One row of the table: leaves whose notBefore is on or after `from` (after it, when `fromExclusive`) may be
    /// valid for at most `maximum` seconds.
    struct Limit: Sendable {
        let from: Date
        let fromExclusive: Bool
        let maximum: TimeInterval
        let days: Int
        /// The date as the user should read it, and the article.
        let ruleDate: String
        let source: String

        func applies(to notBefore: Date) -> Bool { fromExclusive ? notBefore > from : notBefore >= from }
    }

    static let day: TimeInterval = 86_400

    /// 825 days plus the hour of slack trustd allows (the published text says 825 days with none).
    /// support.apple.com/103769 says "825 days or fewer", from certificates issued after 2019-07-01; for system-trusted
    /// leaves trustd counts from 2018-03-01, the CA/Browser Forum's date.
    static let systemTrust825 = Limit(from: Date(timeIntervalSince1970: 1_519_862_400),  // 2018-03-01T00:00:00Z
                                      fromExclusive: false, maximum: 825 * day + 3_600, days: 825,
                                      ruleDate: "2018-03-01", source: "support.apple.com/103769")
    /// support.apple.com/102028 counts days as RFC 5280 does (inclusive, any part of a day a day), so 398 × 86,400 s
    /// exactly is 399 days by the page and still passes trustd, which compares notAfter − notBefore > 398 × 86,400 s.
    static let systemTrust398 = Limit(from: Date(timeIntervalSince1970: 1_598_918_400),  // 2020-09-01T00:00:00Z
                                      fromExclusive: false, maximum: 398 * day, days: 398,
                                      ruleDate: "2020-09-01", source: "support.apple.com/102028")
    /// trustd: notBefore > 583,628,400 CFAbsoluteTime, 2019-06-30T23:00:00Z, which its comment calls "1 July 2019".
    static let otherTrust825 = Limit(from: Date(timeIntervalSinceReferenceDate: 583_628_400),
                                     fromExclusive: true, maximum: 825 * day + 3_600, days: 825,
                                     ruleDate: "2019-07-01", source: "support.apple.com/103769")

    /// The limits that apply to a leaf anchored as given, for this platform, before looking at its dates.
    func limits(publicRoot: Bool) -> [Limit] {
        var limits: [Limit] = []
        if platform.limitsLifetimeTo825Days { limits.append(publicRoot ? Self.systemTrust825 : Self.otherTrust825) }
        if publicRoot && platform.limitsLifetimeTo398Days { limits.append(Self.systemTrust398) }
        return limits
    }

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        // A leaf that is its own (custom) anchor: trustd skips the check.
        guard chain.count > 1 || context.anchorIsSystem else { return }
        // Bound once: the dates' getters take the whole certificate, so reading each through the chain copies it.
        let leaf = chain[0]
        let notValidBefore = leaf.notValidBefore
        let lifetime = leaf.notValidAfter.timeIntervalSince(notValidBefore)
        // ValidityRule reports a validity period that ends before it starts.
        guard lifetime >= 0 else { return }
        let broken = limits(publicRoot: context.anchorIsSystem).filter { $0.applies(to: notValidBefore) && lifetime > $0.maximum }
        // The strictest limit broken is the one to act on.
        guard let limit = broken.min(by: { $0.maximum < $1.maximum }) else { return }
        failures.append(TrustFailure(.validityPeriodTooLong, certificate: 0, Self.message(leaf, lifetime: lifetime, limit: limit,
                                                                                         platform: platform, publicRoot: context.anchorIsSystem)))
    }

    static func message(_ leaf: Certificate, lifetime: TimeInterval, limit: Limit, platform: ApplePlatform, publicRoot: Bool) -> String {
        let days = Int((lifetime / day).rounded(.down))
        let rest = Int(lifetime - Double(days) * day)
        let length = rest == 0 ? "\(days) days" : "\(days) days and \(rest) s"
        let measured = limit.maximum == Double(limit.days) * day ? "\(limit.days) days" : "\(limit.days) days and 1 hour"
        let which = publicRoot ? " that chain to a public root" : ""
        let issued = limit.fromExclusive ? "after \(limit.ruleDate)" : "from \(limit.ruleDate) on"
        return "\(leaf.label) is valid for \(length) (\(RFC3339.format(leaf.notValidBefore)) → \(RFC3339.format(leaf.notValidAfter))), "
            + "longer than the \(measured) \(platform) allows; reissue it with at most \(limit.days) days: Apple refuses longer TLS "
            + "server certificates issued \(issued)\(which) (\(limit.source))"
    }
}
