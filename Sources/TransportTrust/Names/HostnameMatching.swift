/// RFC 6125 matching of a presented identifier against the reference name, as Apple and the CA/B Forum do it.
enum HostnameMatching {
    /// Whether the SAN dNSName `pattern` covers `host` (both A-label, `host` already lowercased).
    ///
    /// A wildcard is accepted only as the whole left-most label (`*.example.com`), never bare, never partial
    /// (`f*.example.com`), never over a public suffix of the list's ICANN section (`*.com`, `*.co.uk`), and it
    /// matches exactly one label. Suffixes of the PRIVATE section (`*.github.io`, `*.s3.amazonaws.com`) are what
    /// their operators' own certificates name, and match as Chromium matches them, unless
    /// `refusingPrivateSuffixes` (the strict profile, which follows x509-limbo's pedantic reading).
    static func dnsPatternMatches(_ pattern: String, host: String, refusingPrivateSuffixes: Bool) -> Bool {
        var p = pattern.lowercased()
        if p.hasSuffix(".") { p.removeLast() }
        guard !p.isEmpty, p.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
        if !p.utf8.contains(UInt8(ascii: "*")) { return p == host }
        guard p.hasPrefix("*."), p.dropFirst(2).firstIndex(of: "*") == nil else { return false }
        let base = String(p.dropFirst(2))
        guard !base.hasPrefix("."), !base.hasSuffix(".") else { return false }
        let isSuffix = refusingPrivateSuffixes ? PublicSuffixList.isPublicSuffix(base) : PublicSuffixList.isICANNPublicSuffix(base)
        guard !isSuffix else { return false }
        guard let dot = host.firstIndex(of: ".") else { return false }
        let first = host[..<dot]
        // A wildcard never matches an A-label IDN's first label (RFC 6125 §7.2 leaves it; browsers refuse).
        guard !first.isEmpty, !first.hasPrefix("xn--") else { return false }
        return host[host.index(after: dot)...] == base
    }
}
