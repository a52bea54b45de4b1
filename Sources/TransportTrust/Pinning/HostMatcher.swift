/// Which entries of a list cover a host, most specific first: the one host matcher of the package. Pin
/// configurations (``PinConfiguration/entry(for:)``), trust managers (``ServerTrustManager/rule(forHost:)``) and the
/// ATS resolver's `NSExceptionDomains` and `NSPinnedDomains` all choose their entry here, so that subdomains,
/// wildcards and addresses mean the same everywhere (``HostPattern`` says what each pattern covers).
///
/// Of two matches the more specific wins (``HostPattern/specificity``); of two equally specific, the earlier in the
/// list. A name is compared only with the entries for itself and its parent domains, and an address only with address
/// entries: an audit matches every entry's host against the whole list, which a scan of every entry made quadratic.
package struct HostMatcher<Entry: Sendable>: Sendable {
    /// One entry and the hosts it covers.
    package struct Match: Sendable {
        package var pattern: HostPattern
        package var entry: Entry
    }

    private let items: [Match]
    /// Name patterns by their name: every name a pattern covers ends with it.
    private let byName: [String: [Int]]
    /// Address and range patterns.
    private let addresses: [Int]

    /// A matcher over `items`, in their order.
    package init(_ items: [(HostPattern, Entry)]) {
        self.items = items.map { Match(pattern: $0.0, entry: $0.1) }
        var byName: [String: [Int]] = [:]
        var addresses: [Int] = []
        for (index, item) in self.items.enumerated() {
            if item.pattern.isAddress { addresses.append(index) } else { byName[item.pattern.name, default: []].append(index) }
        }
        self.byName = byName
        self.addresses = addresses
    }

    /// Every entry that covers `host`, the most specific first.
    package func matches(_ host: PeerName) -> [Match] {
        let found: [Int]
        switch host {
        case .ip(let bytes):
            found = addresses.filter { items[$0].pattern.matches(address: bytes) }
        case .dns(let name):
            var candidates: [Int] = []
            var suffix = Substring(name)
            while true {
                candidates += byName[String(suffix)] ?? []
                guard let dot = suffix.firstIndex(of: ".") else { break }
                suffix = suffix[suffix.index(after: dot)...]
            }
            found = candidates.filter { items[$0].pattern.matches(canonical: name) }
        }
        return found.sorted { a, b in
            let (sa, sb) = (items[a].pattern.specificity, items[b].pattern.specificity)
            return sa != sb ? sa > sb : a < b
        }.map { items[$0] }
    }

    /// The entry that applies to `host`: the most specific that covers it, or nil.
    package func best(_ host: PeerName) -> Match? { matches(host).first }
}
