import Foundation

/// Pins for many hosts: what an `NSPinnedDomains` dictionary, a TrustKit configuration, an OkHttp
/// `CertificatePinner` or an Android `<pin-set>` holds. Read and write it with ``PinConfigurationFormat``.
public struct PinConfiguration: Sendable, Hashable {
    /// Every pinned host, in the file's order.
    public var hosts: [PinnedHost]
    /// The checks ``validate(now:source:)`` applies: those of the system the configuration was read from, and
    /// TrustKit's for a configuration made in code.
    public var rules: PinValidationRules
    /// How entries that match the same host combine: the most specific alone, or, as OkHttp does, all of them.
    package var matching: PinMatching

    /// A configuration made in code, checked by `rules` when it is validated; TrustKit's checks by default.
    ///
    ///  - Parameters:
    ///    - hosts: the pinned hosts, each with its pattern and pin set.
    ///    - rules: the checks `validate(now:source:)` applies beyond those every format shares.
    public init(_ hosts: [PinnedHost] = [], rules: PinValidationRules = .trustKit) {
        self.init(hosts, rules: rules, matching: .mostSpecific)
    }

    /// Decided by the format a configuration is read from (``PinConfigurationFormat``).
    package init(_ hosts: [PinnedHost], rules: PinValidationRules, matching: PinMatching) {
        self.hosts = hosts
        self.rules = rules
        self.matching = matching
    }

    /// The entry that applies to `host`, or nil when none covers it. An exempt entry (``PinnedHost/isExempt``) is
    /// returned like any other: the host is covered, and not pinned.
    ///
    /// It is the most specific matching entry. For a configuration read from an OkHttp file it is that entry with
    /// the pins of every other matching entry added, scope by scope, so that any of them passes, as in OkHttp; its
    /// other settings (enforcement, expiry, report URIs) stay those of the most specific.
    public func entry(for host: String) -> PinnedHost? {
        guard let peer = try? PeerName(host) else { return nil }
        let matches = HostMatcher(hosts.map { ($0.pattern, $0) }).matches(peer).map(\.entry)
        guard let best = matches.first else { return nil }
        guard matching == .everyMatch else { return best }
        let pinned = matches.filter { !$0.isExempt }
        guard var union = pinned.first else { return best }
        for scope in PinScope.allCases {
            var seen: Set<Pin> = []
            union.pinSet[scope] = pinned.flatMap { $0.pinSet[scope] }.filter { seen.insert($0).inserted }
        }
        return union
    }

    /// Two entries some host matches both of, or nil: where ``matching`` makes a difference.
    func overlappingPatterns() -> (HostPattern, HostPattern)? {
        // Some host matches both patterns exactly when one of these hosts of either matches the other (for names
        // one under the other; names that are not can share no host).
        func samples(_ p: HostPattern) -> [String] {
            switch p.kind {
            case .exact: return [p.name]
            case .addressRange(let range): return [PeerName.ip(range.address).description]
            case .oneLabel: return ["x." + p.name]
            case .subdomains: return [p.name, "x." + p.name]
            }
        }
        let patterns = hosts.filter { !$0.isExempt }.map(\.pattern)
        for (i, p) in patterns.enumerated() {
            for q in patterns[(i + 1)...] where samples(p).contains(where: q.matches(canonical:)) || samples(q).contains(where: p.matches(canonical:)) {
                return p.specificity >= q.specificity ? (p, q) : (q, p)
            }
        }
        return nil
    }

    /// Validates every entry under `rules` (see ``PinnedHost/validate(now:source:rules:)``) and refuses the same
    /// pattern twice.
    public func validate(now: Date = Date(), source: String? = nil) throws(PinConfigurationError) -> [PinConfigurationWarning] {
        CallCounts.count(.pinValidation)
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
