import TransportTrust

/// An `NSExceptionDomains` or `NSPinnedDomains` key as written: the host pattern it names, or why it never matches.
///
/// Apple's rules for the domain string: use lowercase; use a DNS name, an IP address or (iOS 17, macOS 14)
/// a range; "don't include a port number"; no wildcards — use NSIncludesSubdomains instead
/// (https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nsexceptiondomains).
public struct ATSDomainKey: Sendable, Hashable {
    /// A reason an entry can never match a connection.
    public enum Problem: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The domain is empty.
        case empty
        /// It has uppercase letters, and ATS compares domain names exactly in lowercase.
        case uppercase
        /// It has a port number, which ATS entries must not include.
        case port
        /// It has a URL scheme; write only the host name.
        case scheme
        /// It has a path; write only the host name.
        case path
        /// It has a wildcard, which ATS does not expand; use NSIncludesSubdomains instead.
        case wildcard
        /// It has white space.
        case whitespace
        /// It has characters that cannot appear in a host name.
        case invalidCharacters
        /// It starts with a dot, and ATS compares the entry with the host as written; use NSIncludesSubdomains for subdomains.
        case leadingDot
        /// It has an empty label (two dots in a row), which no host name has.
        case emptyLabel
        /// It is an address range whose prefix length is not a number from 0 to 32 (IPv4) or 128 (IPv6).
        case invalidPrefixLength
        /// It writes an IPv6 address in brackets, as a URL does, but ATS entries write the address bare.
        case bracketedAddress
        /// It is longer than any host name (253 characters in all, 63 in a label).
        case tooLong

        public var description: String {
            switch self {
            case .empty: return "the domain is empty"
            case .uppercase: return "it has uppercase letters, and ATS compares domain names exactly in lowercase"
            case .port: return "it has a port number, which ATS entries must not include"
            case .scheme: return "it has a URL scheme; write only the host name"
            case .path: return "it has a path; write only the host name"
            case .wildcard: return "it has a wildcard, which ATS does not expand; use NSIncludesSubdomains instead"
            case .whitespace: return "it has white space"
            case .invalidCharacters: return "it has characters that cannot appear in a host name"
            case .leadingDot: return "it starts with a dot, and ATS compares the entry with the host as written; use NSIncludesSubdomains for subdomains"
            case .emptyLabel: return "it has an empty label (two dots in a row), which no host name has"
            case .invalidPrefixLength: return "it is an address range whose prefix length is not a number from 0 to 32 (IPv4) or 128 (IPv6)"
            case .bracketedAddress: return "it writes an IPv6 address in brackets, as a URL does, but ATS entries write the address bare"
            case .tooLong: return "it is longer than any host name (253 characters in all, 63 in a label)"
            }
        }
    }

    /// The key exactly as the plist writes it.
    public var written: String
    /// The name, address or range the key names, exactly: whether it also covers subdomains is the entry's
    /// NSIncludesSubdomains. Nil when ATS never matches the key (see ``problems``).
    public var pattern: HostPattern?
    /// Why ATS would never match the key as written, each in words; empty when it can.
    public var problems: [Problem]
    /// Written with a trailing dot (`example.com.`): Apple matches it only to a host written with one, and an entry
    /// without one only to a host without ("example.com. matches "example.com." but not "example.com"").
    public var isAbsolute = false
    /// Written as a U-label (`münchen.de`): the pattern names its A-label, which is how the host is sent, so an entry
    /// written as the A-label names the same host more exactly.
    package var isULabel = false

    /// Reads a key of NSExceptionDomains or NSPinnedDomains as ATS matches it.
    public init(_ written: String) {
        self.written = written
        var host = written
        var problems = Self.urlProblems(written, host: &host)
        // A CIDR range is the only entry allowed to contain "/".
        if let range = IPRange(cidr: host), problems.isEmpty {
            self.pattern = HostPattern(range: range)
            self.problems = []
            return
        }
        if let address = Self.readAddress(&host, problems: &problems) {
            self.pattern = address.pattern
            self.problems = address.problems
            return
        }
        isAbsolute = Self.nameProblems(&host, into: &problems)
        guard problems.isEmpty else {
            self.problems = problems
            self.pattern = nil
            return
        }
        let name = Self.namePattern(host)
        self.pattern = name.pattern
        self.problems = name.problems
        isULabel = name.isULabel
    }

    /// What makes the key a URL rather than a host (empty, white space, a scheme, a wildcard); `host` loses the scheme.
    private static func urlProblems(_ written: String, host: inout String) -> [Problem] {
        var problems: [Problem] = []
        if written.isEmpty { problems.append(.empty) }
        if written.contains(where: \.isWhitespace) { problems.append(.whitespace) }
        if let r = host.range(of: "://") {
            problems.append(.scheme)
            host = String(host[r.upperBound...])
        }
        if host.contains("*") { problems.append(.wildcard) }
        return problems
    }

    /// The reading of a key that is an IP address, bare or in brackets; nil for a name. `host` loses a path or
    /// prefix length, which is a problem of its own.
    private static func readAddress(_ host: inout String, problems: inout [Problem]) -> (pattern: HostPattern?, problems: [Problem])? {
        if let slash = host.firstIndex(of: "/") {
            let address = String(host[..<slash])
            if case .ip? = try? PeerName(address), !address.hasPrefix("[") { problems.append(.invalidPrefixLength) } else { problems.append(.path) }
            host = address
        }
        if host.hasPrefix("["), host.hasSuffix("]"), case .ip? = try? PeerName(host) {
            return (nil, problems + [.bracketedAddress])
        }
        if let peer = try? PeerName(host), case .ip(let bytes) = peer {
            return (problems.isEmpty ? HostPattern(canonicalName: PeerName.ip(bytes).description, kind: .exact) : nil, problems)
        }
        return nil
    }

    /// Adds what keeps a host name from matching as written (a port, stray dots, uppercase, characters no host name
    /// has); `host` loses a port and a trailing dot. Returns whether it had the trailing dot.
    private static func nameProblems(_ host: inout String, into problems: inout [Problem]) -> Bool {
        if let colon = host.lastIndex(of: ":"), !host[host.index(after: colon)...].isEmpty,
           host[host.index(after: colon)...].allSatisfy(\.isNumber) {
            problems.append(.port)
            host = String(host[..<colon])
        }
        // Apple compares the key string; a dot that no host carries is not forgiven.
        if host.hasPrefix(".") { problems.append(.leadingDot) }
        var isAbsolute = false
        if host.hasSuffix("."), host.count > 1 {
            isAbsolute = true
            host.removeLast()
        }
        if host.contains("..") { problems.append(.emptyLabel) }
        if host != host.lowercased() { problems.append(.uppercase) }
        let allowed = host.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "." || $0 == "_" || $0 == "*"))
                || !$0.isASCII
        }
        if !allowed, !problems.contains(.whitespace) { problems.append(.invalidCharacters) }
        return isAbsolute
    }

    /// The pattern of a host name with no problem so far, in the A-label form a connection's host takes; nil with
    /// the problem when it has no A-label form or is longer than any host.
    private static func namePattern(_ name: String) -> (pattern: HostPattern?, problems: [Problem], isULabel: Bool) {
        var host = name
        var isULabel = false
        // A connection's host is in A-label form (ConnectionTarget); a U-label entry names the same host.
        if host.unicodeScalars.contains(where: { !$0.isASCII }) {
            guard case .dns(let aLabel)? = try? PeerName(host) else { return (nil, [.invalidCharacters], false) }
            host = aLabel
            isULabel = true
        }
        // No host is longer (RFC 1035 §2.3.4); a longer key would only cost every lookup its length.
        if host.utf8.count > 253 || host.split(separator: ".").contains(where: { $0.utf8.count > 63 }) {
            return (nil, [.tooLong], isULabel)
        }
        return (HostPattern(canonicalName: host, kind: .exact), [], isULabel)
    }

    /// Whether the entry names an IP address or range.
    public var isIP: Bool { pattern?.isAddress ?? false }

    /// `localhost`, an address in 127.0.0.0/8, or `::1`: traffic that never leaves the device.
    public var isLoopback: Bool {
        let name = written.lowercased()
        if name == "localhost" || name == "::1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return isIP && parts.count == 4 && parts[0] == "127"
    }
}
