import Foundation
import TransportTrust

/// The scheme and host of a URL, classified the way ATS looks at them.
public struct ConnectionTarget: Sendable, Equatable {
    /// `http` or `https` (`ws` and `wss` are treated as `http` and `https`).
    public var scheme: String
    /// The host, lowercased, without brackets or a trailing dot.
    public var host: String
    /// The IP address when the host is an IP literal.
    public var ipAddress: [UInt8]?

    /// Parses a URL string.
    /// - Throws: ``RequirementsError/invalidURL(_:reason:)`` when there is no scheme or host.
    public init(url text: String) throws(RequirementsError) {
        guard let components = URLComponents(string: text), let rawScheme = components.scheme?.lowercased() else {
            throw .invalidURL(text, reason: "it has no scheme; write it like https://example.com/")
        }
        switch rawScheme {
        case "https", "wss": scheme = "https"
        case "http", "ws": scheme = "http"
        default: throw .invalidURL(text, reason: "ATS governs http and https URLs, not '\(rawScheme)'")
        }
        guard var h = components.host, !h.isEmpty else {
            throw .invalidURL(text, reason: "it has no host")
        }
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.hasSuffix(".") { h.removeLast() }
        let peer = try? PeerName(h)
        if case .ip(let bytes)? = peer {
            ipAddress = bytes
            host = PeerName.ip(bytes).description
        } else {
            ipAddress = nil
            host = h.lowercased()
        }
    }

    public var isIP: Bool { ipAddress != nil }
    /// A name with no dot (`printer`): Apple's "unqualified domain".
    public var isUnqualifiedName: Bool { !isIP && !host.contains(".") }
    /// A multicast-DNS name (`printer.local`).
    public var isDotLocalName: Bool { !isIP && host.hasSuffix(".local") }
}
