import Foundation
import TransportTrust

/// A URL parsed once, at the boundary: its scheme and host classified the way ATS looks at them, its port and path.
///
/// Everything below the boundary (the ATS requirements, the pins, the client's connection) takes this value; nothing
/// parses the URL again.
public struct ConnectionTarget: Sendable, Equatable {
    /// `http` or `https` (`ws` and `wss` are treated as `http` and `https`).
    public var scheme: String
    /// The host, lowercased, in A-label (punycode) form, without brackets or a trailing dot.
    public var host: String
    /// Whether the URL wrote the host with a trailing dot (`https://example.com./`): ATS then matches only entries
    /// written with one.
    public var isAbsolute = false
    /// The IP address when the host is an IP literal.
    public var ipAddress: [UInt8]?
    /// The host as a name or an address, as certificates are checked against it.
    public var peer: PeerName
    /// The port as written, else the scheme's (443 for https, 80 for http).
    public var port: Int
    /// The path and query as written (percent-encoded), `/` when the URL has none: what a request line carries.
    public var path: String

    /// Parses a URL string.
    /// - Throws: ``RequirementsError/invalidURL(_:reason:)`` saying what is wrong: no scheme or host, a
    ///   character a URL cannot hold, a port that is not a number or is above 65535, an unclosed IPv6 bracket.
    public init(url text: String) throws(RequirementsError) {
        CallCounts.count(.urlParse)
        // Foundation percent-encodes a tab or a control character silently; the client refuses such a URL, so this does.
        if let problem = URLText.problem(in: text) { throw .invalidURL(text, reason: "it has \(problem)") }
        guard let components = URLComponents(string: text) else {
            throw .invalidURL(text, reason: Self.reason(unparsable: text))
        }
        scheme = try Self.scheme(of: components, in: text)
        // Foundation's `host` decodes an A-label to its U-label on Linux (`xn--mnchen-3ya.de` → `münchen.de`);
        // `encodedHost` is the IDNA (A-label) form a client sends in DNS and SNI, which ATS entries are compared with.
        guard let encoded = components.encodedHost, !encoded.isEmpty else {
            throw .invalidURL(text, reason: "it has no host")
        }
        var h = encoded.utf8.contains(UInt8(ascii: "%")) ? (components.host ?? encoded) : encoded
        let bracketed = h.hasPrefix("[") && h.hasSuffix("]")
        if bracketed { h = String(h.dropFirst().dropLast()) }
        // A trailing dot marks an absolute DNS name; inside brackets it would make `[::.]` the address `::`.
        if !bracketed, h.hasSuffix(".") {
            h.removeLast()
            isAbsolute = true
        }
        let peer: PeerName
        do {
            peer = try PeerName(h)
        } catch {
            throw .invalidURL(text, reason: "its host is not a valid name: \(error)")
        }
        if bracketed {
            guard case .ip(let bytes) = peer, bytes.count == 16 else {
                throw .invalidURL(text, reason: "brackets hold only an IPv6 address, not '\(h.prefix(60))'")
            }
        }
        // `1.2.3.4.` is no address to an address parser; what a device then makes of it is unclear, so it is refused.
        if isAbsolute, case .ip = peer {
            throw .invalidURL(text, reason: "its host '\(h).' is an IP address with a trailing dot, which no address has; write it without the dot")
        }
        switch peer {
        case .ip(let bytes):
            ipAddress = bytes
            host = peer.description
        case .dns(let name):
            ipAddress = nil
            host = name
        }
        self.peer = peer
        port = components.port ?? (scheme == "https" ? 443 : 80)
        path = (components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath)
            + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The scheme as ATS reads it (`ws` and `wss` as `http` and `https`), once the port is known to be in range.
    private static func scheme(of components: URLComponents, in text: String) throws(RequirementsError) -> String {
        guard let rawScheme = components.scheme?.lowercased() else {
            throw .invalidURL(text, reason: "it has no scheme; write it like https://example.com/")
        }
        if let port = components.port, !(0...65535).contains(port) {
            throw .invalidURL(text, reason: Self.portOutOfRange(String(port)))
        }
        // Foundation's port is nil, as for no port at all, when the digits overflow an Int: the default port would
        // be taken for `:99999999999999999999`.
        if let digits = Self.overflowingPort(components) {
            throw .invalidURL(text, reason: Self.portOutOfRange(digits))
        }
        switch rawScheme {
        case "https", "wss": return "https"
        case "http", "ws": return "http"
        default: throw .invalidURL(text, reason: "ATS governs http and https URLs, not '\(rawScheme)'")
        }
    }

    /// What is wrong with a string Foundation's `URLComponents` refuses, in words: Foundation says nothing.
    static func reason(unparsable text: String) -> String {
        if let bad = text.unicodeScalars.first(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
            let what = bad == " " ? "a space" : (bad.properties.isWhitespace ? "white space" : "a control character")
            return "it contains \(what); remove it, or percent-encode it in a path (%20 for a space)"
        }
        let schemeCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.")
        guard let colon = text.firstIndex(of: ":"), text[..<colon].first?.isLetter == true,
              text[..<colon].allSatisfy({ schemeCharacters.contains($0) }) else {
            return "it has no scheme; write it like https://example.com/"
        }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return "it has no host; write it like https://example.com/" }
        let authority = rest.dropFirst(2).prefix { !"/?#".contains($0) }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        var port: Substring?
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else {
                return "the IPv6 address '\(hostAndPort)' has no closing ']'; write it like https://[2001:db8::1]/"
            }
            let after = hostAndPort[hostAndPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return "only a port such as :443 may follow the IPv6 address, not '\(after)'" }
                port = after.dropFirst()
            }
        } else if let c = hostAndPort.lastIndex(of: ":") {
            port = hostAndPort[hostAndPort.index(after: c)...]
        }
        if let port, !port.isEmpty {
            guard port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return "the port '\(port)' is not a number" }
            if Int(port).map({ $0 > 65535 }) ?? true { return portOutOfRange(String(port)) }
        }
        return "it is not a valid URL (RFC 3986); percent-encode any character a URL cannot hold"
    }

    static func portOutOfRange(_ port: String) -> String { "the port \(port) is out of range; ports are 0 to 65535" }

    /// The port as written when it is too large for Foundation to read (it then reports none, as for no port at all).
    package static func overflowingPort(_ components: URLComponents) -> String? {
        guard components.port == nil, let range = components.rangeOfPort, let string = components.string, !string[range].isEmpty else { return nil }
        return String(string[range].prefix(40))
    }

    /// Whether the host is an IP address literal.
    public var isIP: Bool { ipAddress != nil }
    /// A name with no dot (`printer`): Apple's "unqualified domain".
    public var isUnqualifiedName: Bool { !isIP && !host.contains(".") }
    /// A multicast-DNS name (`printer.local`).
    public var isDotLocalName: Bool { !isIP && host.hasSuffix(".local") }
}
