/// The Public Suffix List: names under which anyone can register, such as `com`, `co.uk` or `github.io`.
///
/// The list has two sections. ICANN DOMAINS holds what registries run (`com`, `co.uk`); PRIVATE DOMAINS holds
/// what companies open to their customers (`github.io`, `s3.amazonaws.com`, `herokuapp.com`). A wildcard
/// certificate for `*.co.uk` would cover every company in the UK, so such wildcards never match; one for
/// `*.github.io` is what GitHub Pages serves, and it matches (see ``isICANNPublicSuffix(_:)``). Pin sets may
/// not include subdomains of a suffix of either section (see ``isPublicSuffix(_:)``).
package enum PublicSuffixList {
    private struct Rules {
        var exact = Set<Substring>(), wildcard = Set<Substring>(), exception = Set<Substring>()

        init(_ text: String) {
            for raw in text.split(separator: "\n") {
                // The list spells IDNs in Unicode; names here are compared in A-label form.
                let line = raw.unicodeScalars.allSatisfy(\.isASCII) ? raw : Substring(PublicSuffixList.toALabels(raw))
                if line.hasPrefix("!") {
                    exception.insert(line.dropFirst())
                } else if line.hasPrefix("*.") {
                    wildcard.insert(line.dropFirst(2))
                } else {
                    exact.insert(line)
                }
            }
        }

        mutating func formUnion(_ other: Rules) {
            exact.formUnion(other.exact)
            wildcard.formUnion(other.wildcard)
            exception.formUnion(other.exception)
        }

        func isSuffix(_ name: Substring) -> Bool {
            // A single label always is (the list's implicit `*` rule).
            guard let dot = name.firstIndex(of: ".") else { return true }
            if exception.contains(name) { return false }
            if exact.contains(name) { return true }
            return wildcard.contains(name[name.index(after: dot)...])
        }
    }

    private static let icann = Rules(PublicSuffixData.icannRules)
    private static let both: Rules = {
        var rules = icann
        rules.formUnion(Rules(PublicSuffixData.privateRules))
        return rules
    }()

    private static func toALabels(_ rule: Substring) -> String {
        rule.split(separator: ".").map { label -> String in
            if label.unicodeScalars.allSatisfy(\.isASCII) { return String(label) }
            var prefix = ""
            var body = label
            if body.hasPrefix("!") || body.hasPrefix("*") { prefix = String(body.prefix(1)); body = body.dropFirst() }
            return prefix + (Punycode.encode(String(body)).map { "xn--" + $0 } ?? String(body))
        }.joined(separator: ".")
    }

    /// Whether `name` (lowercased, A-label, no trailing dot) is itself a public suffix of either section:
    /// `com`, `co.uk`, `github.io`. A single label always is (the list's implicit `*` rule).
    package static func isPublicSuffix(_ name: String) -> Bool { both.isSuffix(Substring(name)) }

    /// Whether `name` (lowercased, A-label, no trailing dot) is a public suffix of the ICANN section: `com`,
    /// `co.uk`, but not `github.io`. A single label always is. This is the suffix a wildcard may not sit on:
    /// Chromium checks wildcards against ICANN registries only, and the CA/Browser Forum's Baseline Requirements
    /// (§3.2.2.6) tell CAs to consult the ICANN section only.
    package static func isICANNPublicSuffix(_ name: String) -> Bool { icann.isSuffix(Substring(name)) }

    /// Whether `name` (lowercased, A-label, no trailing dot) has a registrable domain: it is not itself a public
    /// suffix, and its top-level label is one the list names. TrustKit's GetRegistryLength is 0 otherwise
    /// (`localhost`, `co.uk`, `api.internal`, an IP address), and TrustKit refuses such a pinned domain.
    package static func hasRegistrableDomain(_ name: String) -> Bool {
        guard !isPublicSuffix(name), let dot = name.lastIndex(of: ".") else { return false }
        let top = name[name.index(after: dot)...]
        return both.exact.contains(top) || both.wildcard.contains(top)
    }
}
