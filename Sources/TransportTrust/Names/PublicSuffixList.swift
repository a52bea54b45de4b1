/// The Public Suffix List: names under which anyone can register, such as `com`, `co.uk` or `s3.amazonaws.com`.
///
/// A wildcard certificate for `*.co.uk` would cover every company in the UK, so such wildcards never match,
/// and pin sets may not include subdomains of a public suffix.
public enum PublicSuffixList {
    private static let parsed: (exact: Set<Substring>, wildcard: Set<Substring>, exception: Set<Substring>) = {
        var exact = Set<Substring>(), wildcard = Set<Substring>(), exception = Set<Substring>()
        for raw in PublicSuffixData.rules.split(separator: "\n") {
            // The list spells IDNs in Unicode; names here are compared in A-label form.
            let line = raw.unicodeScalars.allSatisfy(\.isASCII) ? raw : Substring(toALabels(raw))
            if line.hasPrefix("!") {
                exception.insert(line.dropFirst())
            } else if line.hasPrefix("*.") {
                wildcard.insert(line.dropFirst(2))
            } else {
                exact.insert(line)
            }
        }
        return (exact, wildcard, exception)
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

    /// Whether `name` (lowercased, A-label, no trailing dot) is itself a public suffix. A single label always is
    /// (the list's implicit `*` rule).
    public static func isPublicSuffix(_ name: String) -> Bool {
        let name = Substring(name)
        guard let dot = name.firstIndex(of: ".") else { return true }
        let rules = parsed
        if rules.exception.contains(name) { return false }
        if rules.exact.contains(name) { return true }
        return rules.wildcard.contains(name[name.index(after: dot)...])
    }
}
