import AppTransportSecurity
import TransportTrust

/// Why a request failed: what went wrong, in which phase, with which host, and the trust verdict and ATS
/// evaluation when the handshake got that far.
///
/// Every failure of ``HTTPSClient`` is one of these. Security failures are never softened into a generic
/// "connection closed": a refused certificate carries its ``verdict``, an ATS block its ``atsEvaluation``.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// The stage of the request that failed.
    public enum Phase: String, Sendable, Codable {
        /// Checking the URL and resolving its requirements, before any connection.
        case requirements
        /// Opening the TCP connection.
        case connect
        /// The TLS handshake, including server trust evaluation.
        case handshake
        /// Sending the request.
        case request
        /// Receiving the response.
        case response
        /// Following a redirect.
        case redirect
        /// Answering an authentication challenge.
        case authentication
        /// Reaching the target through a proxy: the connection to the proxy, its TLS, and its answer to CONNECT.
        case proxy
    }

    /// What went wrong. The raw values are stable.
    public enum Kind: String, Sendable, Codable {
        /// The URL or request cannot be sent (no host, unsupported scheme, bad header).
        case invalidRequest
        /// Plain `http://` is not allowed by the requirements.
        case insecureHTTPRefused
        /// The trust manager has no evaluator for the host and every host must be evaluated.
        case hostNotAllowed
        /// The server's certificate chain is not trusted (see ``TransportError/verdict``).
        case serverTrustRefused
        /// The chain does not match the pins.
        case pinMismatch
        /// The negotiated connection is below the ATS requirements (TLS version, cipher suite, key strength).
        case atsRefused
        /// The server refused the client certificate, or required one that was not sent.
        case clientCertificateRejected
        /// The client identity could not be loaded (wrong PKCS#12 password, unreadable PEM).
        case invalidClientIdentity
        /// The TLS handshake failed for a reason other than trust.
        case tlsFailure
        /// TCP connection failed.
        case connectionFailed
        /// The peer closed or reset the connection.
        case connectionClosed
        /// The server did not speak TLS or HTTP/1.1, or redirected to a location that is not an http or https URL.
        case malformedResponse
        /// HTTP/2 alone was allowed (``HTTPVersionPreference/http2Only``) and the server chose HTTP/1.1 through ALPN.
        case http2NotNegotiated
        /// The response body exceeded the configured limit.
        case responseTooLarge
        /// A phase did not finish in time.
        case timedOut
        /// More redirects than allowed.
        case tooManyRedirects
        /// A redirect to a URL the requirements do not allow (https → http).
        case redirectRefused
        /// An authentication challenge was cancelled, or credentials could not be sent.
        case authenticationCancelled
        /// The server went on challenging after the request had answered
        /// ``HTTPSClientConfiguration/maximumTotalAuthenticationAttempts`` challenges in all.
        case tooManyAuthenticationAttempts
        /// The proxy refused to open a tunnel (its CONNECT status is in the message).
        case proxyRefused
        /// The proxy wants authentication (407) that was not given, or refused what was given.
        case proxyAuthenticationFailed
        /// The client was shut down.
        case shutDown
        /// The request's task was cancelled before the response was in (URLSession's `NSURLErrorCancelled`); its
        /// connection was closed, or its HTTP/2 stream reset. Never retried.
        case cancelled
        /// An internal error; the request is refused rather than risked.
        case internalError
    }

    /// What went wrong.
    public var kind: Kind
    /// The stage that failed.
    public var phase: Phase
    /// The host the failure concerns (for redirects, the hop that failed).
    public var host: String
    /// The port of the connection that failed.
    public var port: Int
    /// A sentence saying what happened and what to do.
    public var message: String
    /// The trust verdict, when server trust was evaluated: chain and every reason.
    public var verdict: TrustVerdict?
    /// The ATS evaluation of the connection as negotiated, when it got that far.
    public var atsEvaluation: ConnectionEvaluation?
    /// The negotiated TLS parameters, when known.
    public var handshake: HandshakeSummary?
    /// The lower-level error, as text, for diagnosis.
    public var underlying: String?
    /// BoringSSL's reason for a failed handshake, when it gave one this client knows; ``message`` has it in words.
    public var tlsReason: TLSFailureReason?

    package init(_ kind: Kind, phase: Phase, host: String, port: Int, _ message: String,
                verdict: TrustVerdict? = nil, atsEvaluation: ConnectionEvaluation? = nil,
                handshake: HandshakeSummary? = nil, underlying: String? = nil) {
        self.kind = kind
        self.phase = phase
        self.host = host
        self.port = port
        self.message = message
        self.verdict = verdict
        self.atsEvaluation = atsEvaluation
        self.handshake = handshake
        self.underlying = underlying
    }

    public var description: String {
        var text = "\(kind.rawValue) during \(phase.rawValue) with \(host):\(port): \(message)"
        if let verdict, !verdict.failures.isEmpty {
            text += verdict.failures.map { "\n  - \($0)" }.joined()
        }
        if let underlying { text += "\n  (underlying: \(underlying))" }
        return text
    }

    /// The request's task was cancelled: `when` says when, and what became of its connection.
    static func cancelled(_ phase: Phase, host: String, port: Int, _ when: String, verdict: TrustVerdict? = nil,
                          handshake: HandshakeSummary? = nil) -> TransportError {
        TransportError(.cancelled, phase: phase, host: host, port: port, "the request's task was cancelled \(when)",
                       verdict: verdict, handshake: handshake)
    }

    /// Whether the failure is a refusal on security grounds (trust, pins, ATS, host lists, client certificate)
    /// rather than a network or protocol problem.
    public var isSecurityRefusal: Bool {
        switch kind {
        case .insecureHTTPRefused, .hostNotAllowed, .serverTrustRefused, .pinMismatch, .atsRefused,
             .clientCertificateRejected, .redirectRefused:
            return true
        default:
            return false
        }
    }
}

