/// RFC 6125 matching of a presented identifier against the reference name, as Apple and the CA/B Forum do it.
enum HostnameMatching {
    /// Whether the SAN dNSName `pattern` covers `host` (both A-label, `host` already lowercased).
    ///
    /// A wildcard is accepted only as the whole left-most label (`*.example.com`), never bare, never partial
    /// (`f*.example.com`), never over a public suffix (`*.com`, `*.co.uk`), and it matches exactly one label.
    static func dnsPatternMatches(_ pattern: String, host: String) -> Bool {
        var p = pattern.lowercased()
        if p.hasSuffix(".") { p.removeLast() }
        guard !p.isEmpty, p.utf8.allSatisfy({ $0 < 0x80 }) else { return false }
        if !p.utf8.contains(UInt8(ascii: "*")) { return p == host }
        guard p.hasPrefix("*."), p.dropFirst(2).firstIndex(of: "*") == nil else { return false }
        let base = p.dropFirst(2)
        // Never over a public suffix: `*.com`, `*.co.uk`, `*.s3.amazonaws.com`.
        guard !base.hasPrefix("."), !base.hasSuffix("."), !PublicSuffixList.isPublicSuffix(String(base)) else { return false }
        guard let dot = host.firstIndex(of: ".") else { return false }
        let first = host[..<dot]
        // A wildcard never matches an A-label IDN's first label (RFC 6125 §7.2 leaves it; browsers refuse).
        guard !first.isEmpty, !first.hasPrefix("xn--") else { return false }
        return host[host.index(after: dot)...] == base
    }
}
