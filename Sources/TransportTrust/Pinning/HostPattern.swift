/// Which hosts a rule covers: one name, one extra label, a name and everything below it, or a range of addresses.
///
/// The one host-pattern type of the package: pin configurations, trust managers and ATS domain keys all match
/// hosts with it.
///
/// Written as OkHttp writes them: `example.com` is that name only, `*.example.com` is exactly one extra label
/// (`www.example.com`, not `example.com` nor `a.b.example.com`), and `**.example.com` is any depth, including
/// none. A name with includeSubdomains (TrustKit, ATS, Android) is the same as `**.`.
///
/// Comparison is case-insensitive, ignores one trailing dot and compares IDNs in A-label form, so
/// `Bücher.example.` and `xn--bcher-kva.example` are the same name.
public struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    /// How far below its name a pattern reaches.
    public enum Kind: Sendable, Hashable {
        /// The name itself.
        case exact
        /// Exactly one label more than the name (`*.`).
        case oneLabel
        /// The name and every name below it, at any depth (`**.`, includeSubdomains).
        case subdomains
        /// Every address in a CIDR range (ATS from iOS 17); ``HostPattern/name`` is the range as written canonically.
        case addressRange(IPRange)
    }

    /// The name, lowercased, in A-label form, without a trailing dot; or an IP address.
    public let name: String
    /// How far below ``name`` the pattern reaches.
    public let kind: Kind
    /// Whether the pattern names an address or a range of them rather than DNS names. Decided once, when the
    /// pattern is made: the ATS resolver asks it of every entry on every request.
    public let isAddress: Bool

    /// Reads `text` (`example.com`, `*.example.com`, `**.example.com`). `includeSubdomains` turns a plain name
    /// into `**.`.
    public init(_ text: String, includeSubdomains: Bool = false) throws(PinConfigurationError) {
        var body = Substring(text.trimmingCharacters(in: .whitespaces))
        var kind = Kind.exact
        if body.hasPrefix("**.") {
            kind = .subdomains
            body = body.dropFirst(3)
        } else if body.hasPrefix("*.") {
            kind = .oneLabel
            body = body.dropFirst(2)
        }
        if includeSubdomains {
            guard kind != .oneLabel else {
                throw PinConfigurationError(.invalidHost, "\(NameDisplay.quoted(text)) is a one-label wildcard and also has includeSubdomains",
                    fix: "Use '**.\(body)' for any depth, or '*.\(body)' without includeSubdomains for exactly one label")
            }
            kind = .subdomains
        }
        guard !body.contains("*") else {
            throw PinConfigurationError(.invalidHost, "\(NameDisplay.quoted(text)) has a wildcard that is not a leading '*.' or '**.'",
                fix: "Write exact names, '*.example.com' (one label) or '**.example.com' (any depth)")
        }
        let peer: PeerName
        do { peer = try PeerName(String(body)) } catch {
            throw PinConfigurationError(.invalidHost, "\(NameDisplay.quoted(text)) is not a valid host name: \(error)", fix: "Write a DNS name such as example.com")
        }
        if peer.isIPAddress && kind != .exact {
            throw PinConfigurationError(.invalidHost, "\(NameDisplay.quoted(text)) puts a wildcard or includeSubdomains on an IP address",
                fix: "Pin IP addresses by exact address only")
        }
        self.name = peer.description
        self.kind = kind
        self.isAddress = peer.isIPAddress
    }

    /// A name as a system without wildcards compares it (TrustKit, Android): `*.example.com` is that string, which no
    /// host is, so the pattern matches nothing, where `init` would read it as OkHttp's wildcard.
    package static func literal(_ text: String, includeSubdomains: Bool) -> HostPattern {
        HostPattern(name: text.lowercased(), kind: includeSubdomains ? .subdomains : .exact, isAddress: false)
    }

    /// A pattern from a name already in canonical form.
    package init(canonicalName: String, kind: Kind) {
        var isAddress = false
        if case .addressRange = kind { isAddress = true } else if case .ip? = try? PeerName(canonicalName) { isAddress = true }
        self.init(name: canonicalName, kind: kind, isAddress: isAddress)
    }

    /// The pattern of exactly `peer`, already parsed: a URL's host needs no second parse.
    package init(exactly peer: PeerName) {
        self.init(name: peer.description, kind: .exact, isAddress: peer.isIPAddress)
    }

    private init(name: String, kind: Kind, isAddress: Bool) {
        self.name = name
        self.kind = kind
        self.isAddress = isAddress
    }

    /// Whether the pattern covers `host`, given in any case, with or without a trailing dot, in Unicode or
    /// A-label form. Hosts that are not valid names match nothing.
    public func matches(_ host: String) -> Bool {
        guard let canonical = Self.canonical(host) else { return false }
        return matches(canonical: canonical)
    }

    /// A pattern covering the addresses of `range`.
    public init(range: IPRange) {
        self.init(name: range.description, kind: .addressRange(range), isAddress: true)
    }

    /// The same name with its subdomains: at any depth, or exactly one label deeper when `oneLabel`.
    /// An address or a range stays as it is.
    public func withSubdomains(oneLabel: Bool = false) -> HostPattern {
        guard case .exact = kind, !isAddress else { return self }
        return HostPattern(name: name, kind: oneLabel ? .oneLabel : .subdomains, isAddress: false)
    }

    /// Whether the pattern covers the address `ip` (4 or 16 bytes).
    public func matches(address ip: [UInt8]) -> Bool {
        if case .addressRange(let range) = kind { return range.contains(ip) }
        return kind == .exact && name == PeerName.ip(ip).description
    }

    package func matches(canonical host: String) -> Bool {
        switch kind {
        case .addressRange(let range):
            guard case .ip(let bytes)? = try? PeerName(host) else { return false }
            return range.contains(bytes)
        case .exact:
            return host == name
        case .oneLabel:
            guard host.hasSuffix("." + name) else { return false }
            return !host.dropLast(name.count + 1).contains(".")
        case .subdomains:
            return host == name || host.hasSuffix("." + name)
        }
    }

    /// How specific the pattern is when it matches: more labels named is more specific (`**.api.example.com`
    /// beats `*.example.com`), and on the same name exact beats `*.`, which beats `**.`. An address beats every range
    /// that holds it, and a longer prefix a shorter one.
    package var specificity: Int {
        if isAddress, case .exact = kind { return 129 }
        let labels = name.split(separator: ".").count
        let rank: Int
        switch kind {
        case .exact: rank = 2
        case .oneLabel: rank = 1
        case .subdomains: rank = 0
        case .addressRange(let range): return range.prefixLength
        }
        return labels * 4 + rank
    }

    /// Whether the pattern includes subdomains at any depth.
    public var includesSubdomains: Bool { kind == .subdomains }

    /// Whether the pattern covers names below its own (`*.` or `**.`).
    public var coversSubdomains: Bool { kind == .oneLabel || kind == .subdomains }

    /// The canonical form of a host: lowercased, A-label, no trailing dot. nil when it is not a valid name.
    public static func canonical(_ host: String) -> String? {
        (try? PeerName(host))?.description
    }

    /// OkHttp notation: `example.com`, `*.example.com` or `**.example.com`.
    public var description: String {
        switch kind {
        case .exact, .addressRange: return name
        case .oneLabel: return "*." + name
        case .subdomains: return "**." + name
        }
    }
}
