import Foundation
import TransportDecision
import TransportTrust

/// Time limits for each phase of a request.
public struct Timeouts: Sendable, Equatable {
    /// Opening the TCP connection.
    public var connect: Duration
    /// The TLS handshake, including trust evaluation and any server-trust challenge.
    public var handshake: Duration
    /// The whole request, across redirects and authentication retries, until the body is read.
    public var request: Duration

    /// Limits for the TCP connect, the TLS handshake and the whole request; each fails the request when it passes.
    public init(connect: Duration = .seconds(10), handshake: Duration = .seconds(10), request: Duration = .seconds(60)) {
        self.connect = connect
        self.handshake = handshake
        self.request = request
    }
}

/// Everything an ``HTTPSClient`` enforces, set once when the client is made.
public struct HTTPSClientConfiguration: Sendable {
    /// Where each URL's ATS requirements come from.
    public var ats: ATSPolicy
    /// Host → evaluator (pins, allow-lists). Nil: chain validation for every host under the ATS policy.
    public var trustManager: ServerTrustManager?
    /// The anchors chains must reach. Default: the system roots (honouring `SSL_CERT_FILE` / `SSL_CERT_DIR`).
    public var anchors: TrustAnchors
    /// The time certificates are validated at; nil means now.
    public var validationTime: Date?
    /// The identity presented to any server that asks for a client certificate, unless ``clientIdentities``
    /// names one for the host.
    public var clientIdentity: ClientIdentity?
    /// Identities per host name (lowercased, exact).
    public var clientIdentities: [String: ClientIdentity]
    /// Answers authentication challenges. Nil behaves as a delegate that always answers "default handling".
    public var challengeHandler: ChallengeHandler?
    /// Where `.permanent` credentials are stored. Nil: they are kept for the session only.
    public var credentialStore: (any CredentialStore)?
    /// Whether user-and-password credentials may be sent over plain `http` (they never are by default).
    public var allowsCredentialsOverInsecureHTTP: Bool
    /// How long connecting, the handshake and a request may take.
    public var timeouts: Timeouts
    /// How many redirects a request follows before failing with ``TransportError/Kind/tooManyRedirects``.
    public var maximumRedirects: Int
    /// The largest response body read into memory; larger bodies fail with
    /// ``TransportError/Kind/responseTooLarge``. Streamed bodies are not limited.
    public var maximumResponseBytes: Int
    /// How many failed attempts per protection space before the 401 is returned as it is.
    public var maximumAuthenticationAttempts: Int
    /// How many 401 challenges one request answers in all, across protection spaces, redirects and stale nonces.
    /// A server that challenges again after that fails the request with
    /// ``TransportError/Kind/tooManyAuthenticationAttempts``: one naming a new realm each time would otherwise
    /// get the credential without end.
    public var maximumTotalAuthenticationAttempts: Int = 10
    /// Connect to these addresses instead of resolving the host, like curl's `--resolve`: `host` → IP literal for
    /// every port, or `host:port` (`[host]:port` for an IPv6 host) → IP literal for that port, which wins. The URL's
    /// host is still the name for SNI, ATS and certificate checks. A value that is not an IP address is refused
    /// with ``TransportError/Kind/invalidRequest``, never looked up. Through a proxy, an entry for the proxy's host
    /// is where the proxy is reached; the origin is resolved by the proxy, so an entry for it is not used.
    public var addressOverrides: [String: String]
    /// Idle connections kept per (scheme, host, port).
    public var maximumIdleConnectionsPerHost: Int
    /// Idle connections kept in all, shared HTTP/2 connections included; the least recently used is closed first.
    /// Bounds what a server that redirects through many hosts or ports can leave open.
    public var maximumIdleConnections: Int = 64
    /// How long an idle connection is kept for reuse (a shared HTTP/2 connection: since its last request). One idle
    /// longer is closed at the client's next request, or by ``HTTPSClient/shutdown()``.
    public var idleConnectionTimeout: Duration = .seconds(90)
    /// Called once per TLS handshake that reaches server trust evaluation, with its outcome. For logging
    /// and `--verbose`.
    public var handshakeObserver: (@Sendable (ConnectionReport) -> Void)?
    /// Revocation checking of every server chain (OCSP, then the CRL distribution points): off (the default, as
    /// URLSession), soft-fail or hard-fail.
    /// Responses are fetched from the responder each certificate names; swift-nio-ssl offers no access to a
    /// stapled response.
    public var revocation: RevocationOptions.Mode = .off
    /// Where OCSP responses come from when ``revocation`` is on; nil means an ``HTTPOCSPResponseSource`` that
    /// the client creates, shares between handshakes and shuts down with itself.
    public var ocspSource: (any OCSPResponseSource)?
    /// Where CRLs come from when ``revocation`` is on and a certificate names an http distribution point; nil means an
    /// ``HTTPCRLSource`` that the client creates, shares between handshakes and shuts down with itself.
    public var crlSource: (any CRLSource)?
    /// The limit for each OCSP or CRL fetch by the sources the client creates (``ocspSource`` and ``crlSource`` nil).
    public var revocationFetchTimeout: Duration = .seconds(5)
    /// Certificate Transparency for every server chain: Apple's policy on embedded SCTs, enforced by default where
    /// Apple enforces it (chains to a system root). SCTs sent in the TLS extension or a stapled OCSP response cannot
    /// be read through swift-nio-ssl.
    public var certificateTransparency = CertificateTransparencyOptions()
    /// The HTTP versions offered by ALPN: both by default, the server choosing.
    public var httpVersions: HTTPVersionPreference = .negotiate
    /// The proxies requests go through, and the hosts that bypass them; nil connects directly. The client never
    /// reads `HTTPS_PROXY` or the like itself.
    public var proxy: ProxyConfiguration?
    /// The Apple release whose TLS server rules the server's chain must meet (`TrustPolicy.platform`).
    public var platform: ApplePlatform = .newest

    /// A configuration; every setting has the default its property describes.
    public init(ats: ATSPolicy = .default(), trustManager: ServerTrustManager? = nil, anchors: TrustAnchors = .system,
                validationTime: Date? = nil, clientIdentity: ClientIdentity? = nil, clientIdentities: [String: ClientIdentity] = [:],
                challengeHandler: ChallengeHandler? = nil, credentialStore: (any CredentialStore)? = nil,
                allowsCredentialsOverInsecureHTTP: Bool = false, timeouts: Timeouts = Timeouts(), maximumRedirects: Int = 10,
                maximumResponseBytes: Int = 16 << 20, maximumAuthenticationAttempts: Int = 3,
                addressOverrides: [String: String] = [:], maximumIdleConnectionsPerHost: Int = 4,
                handshakeObserver: (@Sendable (ConnectionReport) -> Void)? = nil) {
        self.ats = ats
        self.trustManager = trustManager
        self.anchors = anchors
        self.validationTime = validationTime
        self.clientIdentity = clientIdentity
        self.clientIdentities = clientIdentities
        self.challengeHandler = challengeHandler
        self.credentialStore = credentialStore
        self.allowsCredentialsOverInsecureHTTP = allowsCredentialsOverInsecureHTTP
        self.timeouts = timeouts
        self.maximumRedirects = maximumRedirects
        self.maximumResponseBytes = maximumResponseBytes
        self.maximumAuthenticationAttempts = maximumAuthenticationAttempts
        self.addressOverrides = addressOverrides
        self.maximumIdleConnectionsPerHost = maximumIdleConnectionsPerHost
        self.handshakeObserver = handshakeObserver
    }

    func identity(forHost host: String) -> ClientIdentity? { clientIdentities[host.lowercased()] ?? clientIdentity }

    /// The trust half of this configuration, as a connection plan takes it.
    var trustSettings: TrustSettings {
        TrustSettings(anchors: anchors, trustManager: trustManager, platform: platform, certificateTransparency: certificateTransparency,
                      revocation: revocation, ocspSource: ocspSource, crlSource: crlSource, validationTime: validationTime)
    }
}
