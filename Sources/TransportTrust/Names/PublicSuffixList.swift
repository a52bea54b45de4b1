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
        let bytes: [UInt8]
        switch file {
        case .failure(let missing):
            return Lists(icann: failed, both: failed, problem: "the Public Suffix List cannot be read: \(missing.description)")
        case .success(let read):
            guard String(validating: read, as: UTF8.self) != nil else {
                return Lists(icann: failed, both: failed, problem: "the Public Suffix List resource is not UTF-8; reinstall the package")
            }
            bytes = read
        }
        // By bytes, not by Character: grapheme breaking made the first lookup take twice as long.
        var sections: [String: [Substring]] = [:]
        var current: String?
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            defer { start = end + 1 }
            let line = bytes[start..<end]
            if line.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) {
                guard line.contains(UInt8(ascii: "=")) else { continue }
                let comment = String(decoding: line, as: UTF8.self)
                if comment.contains("===BEGIN ICANN DOMAINS===") { current = "ICANN" }
                else if comment.contains("===BEGIN PRIVATE DOMAINS===") { current = "PRIVATE" }
                else if comment.contains("===END ") { current = nil }
                continue
            }
            // A rule runs to the first white space; "\r" of a CRLF file included.
            let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0B || byte == 0x0C }
            guard let current, let first = line.firstIndex(where: { !isSpace($0) }) else { continue }
            let stop = line[first...].firstIndex(where: isSpace) ?? line.endIndex
            sections[current, default: []].append(Substring(String(decoding: line[first..<stop], as: UTF8.self)))
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
