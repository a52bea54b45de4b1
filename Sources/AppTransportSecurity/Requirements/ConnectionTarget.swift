import Foundation
import TransportTrust

/// The scheme and host of a URL, classified the way ATS looks at them.
public struct ConnectionTarget: Sendable, Equatable {
    /// `http` or `https` (`ws` and `wss` are treated as `http` and `https`).
    public var scheme: String
    /// The host, lowercased, in A-label (punycode) form, without brackets or a trailing dot.
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
        // Foundation's `host` decodes an A-label to its U-label on Linux (`xn--mnchen-3ya.de` → `münchen.de`);
        // `encodedHost` is the IDNA (A-label) form a client sends in DNS and SNI, which ATS entries are compared with.
        guard let encoded = components.encodedHost, !encoded.isEmpty else {
            throw .invalidURL(text, reason: "it has no host")
        }
        var h = encoded.contains("%") ? (components.host ?? encoded) : encoded
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.hasSuffix(".") { h.removeLast() }
        let peer: PeerName
        do {
            peer = try PeerName(h)
        } catch {
            throw .invalidURL(text, reason: "its host is not a valid name: \(error)")
        }
        switch peer {
        case .ip(let bytes):
            ipAddress = bytes
            host = peer.description
        case .dns(let name):
            ipAddress = nil
            host = name
        }
    }

    public var isIP: Bool { ipAddress != nil }
    /// A name with no dot (`printer`): Apple's "unqualified domain".
    public var isUnqualifiedName: Bool { !isIP && !host.contains(".") }
    /// A multicast-DNS name (`printer.local`).
    public var isDotLocalName: Bool { !isIP && host.hasSuffix(".local") }
}
