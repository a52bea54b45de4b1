import Foundation
import AppTransportSecurity
import TransportTrust

/// One proxy server: `http://` (CONNECT and absolute-form requests in the clear to the proxy) or `https://` (TLS to
/// the proxy first, under its own trust).
///
/// The proxy is trusted only to carry bytes. An https origin's TLS runs inside the CONNECT tunnel and is evaluated
/// exactly as without a proxy; pins and trust managers never apply to the proxy itself.
public struct Proxy: Sendable, CustomStringConvertible {
    /// How the client talks to the proxy itself.
    public enum Scheme: String, Sendable {
        /// In the clear.
        case http
        /// Over TLS, under the proxy's own trust.
        case https
    }

    /// How the client talks to the proxy itself.
    public var scheme: Scheme
    /// Lowercased; an IPv6 literal without brackets.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// Sent by Basic when the proxy answers 407 and the challenge handler leaves it to default handling.
    public var user: String?
    /// Sent with ``user``.
    public var password: String?
    /// The anchors an `https://` proxy's certificate must chain to; nil means the client's
    /// ``HTTPSClientConfiguration/anchors``. The proxy is held to the default policy, never to pins.
    public var anchors: TrustAnchors?

    /// A proxy at `host` and `port`, with credentials and anchors when it needs them.
    public init(scheme: Scheme, host: String, port: Int, user: String? = nil, password: String? = nil, anchors: TrustAnchors? = nil) {
        self.scheme = scheme
        self.host = AddressOverrides.unbracketed(host).lowercased()
        self.port = port
        self.user = user
        self.password = password
        self.anchors = anchors
    }

    /// A proxy URL as curl takes it: `[scheme://][user:password@]host[:port]`. No scheme means `http://`; no port
    /// means 1080 for http (curl's default) and 443 for https. User and password may be percent-encoded.
    public init(url text: String) throws(ProxyError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard URLText.problem(in: withScheme) == nil, let components = URLComponents(string: withScheme),
              let host = components.host, !host.isEmpty else {
            throw ProxyError("\(Proxy.redacted(text).debugDescription) is not a proxy URL; write it as http://HOST:PORT or https://HOST:PORT")
        }
        guard let scheme = components.scheme.flatMap({ Scheme(rawValue: $0.lowercased()) }) else {
            throw ProxyError("the proxy \(Proxy.redacted(text).debugDescription) uses '\(components.scheme ?? "")://', which is not supported: only http:// and https:// proxies are")
        }
        if let digits = ConnectionTarget.overflowingPort(components) { throw ProxyError("the proxy's port \(digits) is out of range") }
        let port = components.port ?? (scheme == .https ? 443 : 1080)
        guard (1...65535).contains(port) else { throw ProxyError("the proxy's port \(port) is out of range") }
        let path = components.percentEncodedPath
        guard path.isEmpty || path == "/", components.query == nil, components.fragment == nil else {
            throw ProxyError("the proxy \(Proxy.redacted(text).debugDescription) has a path or query; a proxy URL names only a host and port")
        }
        self.init(scheme: scheme, host: host, port: port, user: components.user, password: components.password)
    }

    /// Where the proxy is, without credentials: safe to print and log.
    public var description: String { "\(scheme.rawValue)://\(AddressOverrides.key(host: host, port: port))" }

    /// `text` with anything between `://` and `@` replaced, for messages about a proxy URL that did not parse.
    static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let start = text.range(of: "://").map(\.upperBound) ?? text.startIndex
        guard start <= at else { return text }
        return String(text[..<start]) + "***" + String(text[at...])
    }
}

/// A proxy setting that cannot be used, with what to change.
public struct ProxyError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// An error that says what is wrong, in words.
    package init(_ description: String) { self.description = description }
}

/// Which proxy, if any, each request goes through. The client never reads the environment; `ats fetch` builds
/// this from `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` with curl's rules, or from its options.
public struct ProxyConfiguration: Sendable {
    /// For `https://` URLs, through a CONNECT tunnel.
    public var https: Proxy?
    /// For `http://` URLs, as absolute-form requests.
    public var http: Proxy?
    /// Hosts reached directly.
    public var noProxy: NoProxyList

    /// The proxy for https URLs, the one for http URLs, and the hosts that go direct; none by default.
    public init(https: Proxy? = nil, http: Proxy? = nil, noProxy: NoProxyList = NoProxyList()) {
        self.https = https
        self.http = http
        self.noProxy = noProxy
    }

    /// One proxy for every URL.
    public init(all proxy: Proxy, noProxy: NoProxyList = NoProxyList()) {
        self.init(https: proxy, http: proxy, noProxy: noProxy)
    }

    /// The proxy for a URL with `scheme` to `host`, or nil to connect directly.
    public func proxy(scheme: String, host: String) -> Proxy? {
        guard let proxy = scheme == "https" ? https : scheme == "http" ? http : nil else { return nil }
        return noProxy.matches(host) ? nil : proxy
    }
}
