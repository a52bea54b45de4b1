import AppTransportSecurity
import Foundation

/// How a server asks to be authenticated, or to authenticate itself (URLSession's authentication methods).
public enum AuthenticationMethod: String, Sendable, Hashable, Codable {
    /// The client decides whether to trust the server's certificate (`NSURLAuthenticationMethodServerTrust`).
    case serverTrust
    /// The server asks for a client certificate (`NSURLAuthenticationMethodClientCertificate`).
    case clientCertificate
    /// HTTP Basic (RFC 7617).
    case httpBasic
    /// HTTP Digest (RFC 7616).
    case httpDigest
}

/// The server, realm and method a credential applies to, as `URLProtectionSpace`.
public struct ProtectionSpace: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The server's (or the proxy's) host.
    public var host: String
    /// Its port.
    public var port: Int
    /// `https` or `http`.
    public var `protocol`: String
    /// The realm of an HTTP challenge; nil for TLS challenges.
    public var realm: String?
    /// How the server asks: server trust, a client certificate, Basic or Digest.
    public var authenticationMethod: AuthenticationMethod
    /// For a proxy's challenge (407), the proxy's scheme (`http` or `https`), as `URLProtectionSpace.proxyType`; nil
    /// for an origin's. Proxy and origin spaces never match each other, so neither's credential goes to the other.
    public var proxyType: String?

    /// The space of a challenge from `host` (a proxy's when `proxyType` is set).
    public init(host: String, port: Int, protocol: String, realm: String?, authenticationMethod: AuthenticationMethod,
                proxyType: String? = nil) {
        self.host = host
        self.port = port
        self.protocol = `protocol`
        self.realm = realm
        self.authenticationMethod = authenticationMethod
        self.proxyType = proxyType
    }

    /// Whether the space is a proxy's (``proxyType`` is set), as `URLProtectionSpace.isProxy()`.
    public var isProxy: Bool { proxyType != nil }

    /// Whether credentials for this space would cross the network unencrypted.
    public var receivesCredentialSecurely: Bool { self.protocol == "https" }

    /// Whether this space belongs to the origin (scheme, host and port) of `url`, with the host written as the
    /// client writes it (lowercased, no brackets or trailing dot). False when `url` is not an http or https URL.
    ///
    /// Challenges after a redirect come from the new host, and the client hands them to the delegate as they
    /// are, as URLSession does. A delegate holding a password for one site checks this before answering, as curl
    /// sends `--user` only to the first host unless told otherwise (`--location-trusted`).
    public func isOnOrigin(of url: String) -> Bool {
        // ConnectionTarget reads ws and wss as http and https; no challenge comes from either.
        guard let scheme = URLText.scheme(of: url), scheme == "https" || scheme == "http",
              let target = try? ConnectionTarget(url: url) else { return false }
        return isOnOrigin(of: target)
    }

    /// ``isOnOrigin(of:)-(String)`` for a URL already parsed.
    package func isOnOrigin(of target: ConnectionTarget) -> Bool {
        !isProxy && self.protocol == target.scheme && host == target.host && port == target.port
    }

    public var description: String {
        (isProxy ? "proxy " : "") + "\(self.protocol)://\(host):\(port) \(authenticationMethod.rawValue)" + (realm.map { " realm \"\($0)\"" } ?? "")
    }
}
