import TransportTrust

/// An ATS domain dictionary (`NSExceptionDomains`, `NSPinnedDomains`) as the package's one ``HostMatcher`` sees it.
///
/// What ATS adds to the matcher's rules is decided here, when the dictionary is read:
/// - a key's own name is an exact match, and with `NSIncludesSubdomains` its subdomains are a second, less specific
///   pattern (any depth, or one label, as ``RequirementsResolver/SubdomainMatching`` reads the key);
/// - a key written with a trailing dot matches only hosts written with one, so such keys have a matcher of their own;
/// - of two keys for the same host (`münchen.de` and `xn--mnchen-3ya.de`), the one written as the host is sent wins,
///   whatever their order: the device compares the key's text with the A-label. A-label keys are listed first.
struct ATSDomainMatcher<Entry: Sendable>: Sendable {
    private let relative: HostMatcher<Entry>
    private let absolute: HostMatcher<Entry>

    init(_ entries: [Entry], key: (Entry) -> ATSDomainKey, includesSubdomains: (Entry) -> Bool, oneLabel: Bool) {
        var relative: [(HostPattern, Entry)] = []
        var absolute: [(HostPattern, Entry)] = []
        let ordered = entries.enumerated().sorted { a, b in
            let (ua, ub) = (key(a.element).isULabel, key(b.element).isULabel)
            return ua != ub ? !ua : a.offset < b.offset
        }
        for (_, entry) in ordered {
            guard let pattern = key(entry).pattern else { continue }
            var patterns = [pattern]
            if includesSubdomains(entry) && !pattern.isAddress { patterns.append(pattern.withSubdomains(oneLabel: oneLabel)) }
            for pattern in patterns {
                // IP connections never have a trailing dot (ConnectionTarget refuses one); addresses match in both.
                if pattern.isAddress || !key(entry).isAbsolute { relative.append((pattern, entry)) }
                if pattern.isAddress || key(entry).isAbsolute { absolute.append((pattern, entry)) }
            }
        }
        self.relative = HostMatcher(relative)
        self.absolute = HostMatcher(absolute)
    }

    /// The entry governing `target`, and whether it matched through its subdomains (or an address range) rather than
    /// by its own name. Address entries are only consulted when `addresses` (iOS 17 / macOS 14 and later).
    func best(for target: ConnectionTarget, addresses: Bool) -> (Entry, viaSubdomain: Bool)? {
        if target.isIP && !addresses { return nil }
        guard let match = (target.isAbsolute ? absolute : relative).best(target.peer) else { return nil }
        return (match.entry, match.pattern.kind != .exact)
    }
}
