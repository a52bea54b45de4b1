import Foundation

/// Pins for many hosts: what an `NSPinnedDomains` dictionary, a TrustKit configuration, an OkHttp
/// `CertificatePinner` or an Android `<pin-set>` holds. Read and write it with ``PinConfigurationFormat``.
public struct PinConfiguration: Sendable, Hashable {
    public var hosts: [PinnedHost]
    /// The checks ``validate(now:source:)`` applies: those of the system the configuration was read from, and
    /// TrustKit's for a configuration made in code.
    public var rules: PinValidationRules

    public init(_ hosts: [PinnedHost] = [], rules: PinValidationRules = .trustKit) {
        self.hosts = hosts
        self.rules = rules
    }

    /// The most specific entry that covers `host`, or nil. An exempt entry (``PinnedHost/isExempt``) is returned
    /// like any other: the host is covered, and not pinned.
    public func entry(for host: String) -> PinnedHost? {
        guard let canonical = HostPattern.canonical(host) else { return nil }
        return hosts.filter { $0.pattern.matches(canonical: canonical) }.max { $0.pattern.specificity < $1.pattern.specificity }
    }

    /// Validates every entry under ``rules`` (see ``PinnedHost/validate(now:source:rules:)``) and refuses the same
    /// pattern twice.
    public func validate(now: Date = Date(), source: String? = nil) throws(PinConfigurationError) -> [PinConfigurationWarning] {
        var warnings: [PinConfigurationWarning] = []
        var seen: Set<HostPattern> = []
        for host in hosts {
            guard seen.insert(host.pattern).inserted else {
                throw PinConfigurationError(.invalidHost, source: source, "\(host.pattern) appears twice",
                    fix: "Merge the two entries into one pin set")
            }
            warnings += try host.validate(now: now, source: source, rules: rules)
        }
        return warnings
    }
}
