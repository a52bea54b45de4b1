/// The Public Suffix List: names under which anyone can register, such as `com`, `co.uk` or `github.io`.
///
/// The list has two sections. ICANN DOMAINS holds what registries run (`com`, `co.uk`); PRIVATE DOMAINS holds
/// what companies open to their customers (`github.io`, `s3.amazonaws.com`, `herokuapp.com`). A wildcard
/// certificate for `*.co.uk` would cover every company in the UK, so such wildcards never match; one for
/// `*.github.io` is what GitHub Pages serves, and it matches (see ``isICANNPublicSuffix(_:)``). Pin sets may
/// not include subdomains of a suffix of either section (see ``isPublicSuffix(_:)``).
///
/// The list is the package's resource `PublicSuffixList/public_suffix_list.dat`, the list's own file, read and
/// indexed once, on the first lookup. When it cannot be read, every name counts as a public suffix: no wildcard
/// matches and no pin covers subdomains, and ``problem`` says why (fail closed).
package enum PublicSuffixList {
    fileprivate struct Rules {
        var exact = Set<Substring>(), wildcard = Set<Substring>(), exception = Set<Substring>()

        /// Fail-closed: every name is a suffix.
        var everything = false

        init(_ lines: [Substring]) {
            for raw in lines {
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
            everything = everything || other.everything
            exact.formUnion(other.exact)
            wildcard.formUnion(other.wildcard)
            exception.formUnion(other.exception)
        }

        func isSuffix(_ name: Substring) -> Bool {
            // A single label always is (the list's implicit `*` rule).
            guard !everything, let dot = name.firstIndex(of: ".") else { return true }
            if exception.contains(name) { return false }
            if exact.contains(name) { return true }
            return wildcard.contains(name[name.index(after: dot)...])
        }
    }

    /// Both sections, indexed; with `problem` when the file could not be read and every name counts as a suffix.
    struct Lists {
        fileprivate var icann: Rules
        fileprivate var both: Rules
        var problem: String?

        func isPublicSuffix(_ name: String) -> Bool { both.isSuffix(Substring(name)) }
        func isICANNPublicSuffix(_ name: String) -> Bool { icann.isSuffix(Substring(name)) }
        func hasRegistrableDomain(_ name: String) -> Bool {
            guard !both.everything, !isPublicSuffix(name), let dot = name.lastIndex(of: ".") else { return false }
            let top = name[name.index(after: dot)...]
            return both.exact.contains(top) || both.wildcard.contains(top)
        }
    }

    static let lists = load(PackageResources.read("PublicSuffixList/public_suffix_list.dat"))

    /// Why the list could not be read, when it could not; every name is then a public suffix.
    package static var problem: String? { lists.problem }

    /// The two sections of the list's file: rules up to the first space, without comments and blank lines.
    static func load(_ file: Result<[UInt8], PackageResources.Missing>) -> Lists {
        var failed = Rules([])
        failed.everything = true
        let text: String
        switch file {
        case .failure(let missing):
            return Lists(icann: failed, both: failed, problem: "the Public Suffix List cannot be read: \(missing.description)")
        case .success(let bytes):
            guard let decoded = String(validating: bytes, as: UTF8.self) else {
                return Lists(icann: failed, both: failed, problem: "the Public Suffix List resource is not UTF-8; reinstall the package")
            }
            text = decoded
        }
        var sections: [String: [Substring]] = [:]
        var current: String?
        // By Character: "\r\n" is one, so a file with CRLF endings splits too.
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("//") {
                if line.contains("===BEGIN ICANN DOMAINS===") { current = "ICANN" }
                else if line.contains("===BEGIN PRIVATE DOMAINS===") { current = "PRIVATE" }
                else if line.contains("===END ") { current = nil }
                continue
            }
            guard let current, let rule = line.split(whereSeparator: \.isWhitespace).first else { continue }
            sections[current, default: []].append(rule)
        }
        guard let icannLines = sections["ICANN"], let privateLines = sections["PRIVATE"] else {
            return Lists(icann: failed, both: failed, problem: "the Public Suffix List resource has no ICANN or no PRIVATE section; reinstall the package")
        }
        let icann = Rules(icannLines)
        var both = icann
        both.formUnion(Rules(privateLines))
        return Lists(icann: icann, both: both, problem: nil)
    }

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
    package static func isPublicSuffix(_ name: String) -> Bool { lists.isPublicSuffix(name) }

    /// Whether `name` (lowercased, A-label, no trailing dot) is a public suffix of the ICANN section: `com`,
    /// `co.uk`, but not `github.io`. A single label always is. This is the suffix a wildcard may not sit on:
    /// Chromium checks wildcards against ICANN registries only, and the CA/Browser Forum's Baseline Requirements
    /// (§3.2.2.6) tell CAs to consult the ICANN section only.
    package static func isICANNPublicSuffix(_ name: String) -> Bool { lists.isICANNPublicSuffix(name) }

    /// Whether `name` (lowercased, A-label, no trailing dot) has a registrable domain: it is not itself a public
    /// suffix, and its top-level label is one the list names. TrustKit's GetRegistryLength is 0 otherwise
    /// (`localhost`, `co.uk`, `api.internal`, an IP address), and TrustKit refuses such a pinned domain.
    package static func hasRegistrableDomain(_ name: String) -> Bool { lists.hasRegistrableDomain(name) }
}
