import NIOCore

/// Opening one connection as a plain value: the step it is in, and what each event makes of it (issue #37).
///
/// `PipelineSetup` feeds it what NIO reports and does what it answers. The orderings that matter are decided here and
/// tested without a socket: a limit that runs out in the same turn as the handshake finishes, a refusal the verifier
/// kept behind a channel that then closed, a handshake that completed without this connection's evaluation, and
/// HTTP/2 required where ALPN chose HTTP/1.1. An event out of order fails closed.
struct ConnectionSetupState: Sendable, Equatable {
    enum Step: Sendable, Equatable {
        /// Opening TCP, or a proxy's tunnel.
        case connecting
        /// TLS (or nothing, for plain http), and this connection's evaluation in its verification callback.
        case handshaking
        /// The handshake is done: ALPN's choice and the evaluation's outcome decide what the connection is.
        case negotiating
        case open
        case failed
    }

    private(set) var step = Step.connecting
    /// The limit that ran out during the handshake, as its timer reported it before closing the channel.
    private(set) var expired: TransportError.Phase?
    /// The request's task was cancelled during the handshake, which was then stopped.
    private(set) var cancelled = false

    /// Which limit bounds the handshake: its own, or the request's when that runs out first. Errors name that one.
    static func handshakeLimit(own: NIODeadline, request: NIODeadline) -> (deadline: NIODeadline, phase: TransportError.Phase) {
        own <= request ? (own, .handshake) : (request, .request)
    }

    /// The channel is open, directly or through a tunnel: the handshake starts.
    mutating func opened() {
        step = step == .connecting ? .handshaking : .failed
    }

    /// The handshake's limit ran out. True when the handshake was still running: the glue then stops the evaluation
    /// and closes the channel. Once the handshake has ended (or a cancellation stopped it), a late timer changes nothing.
    mutating func limitPassed(_ phase: TransportError.Phase) -> Bool {
        guard step == .handshaking, expired == nil, !cancelled else { return false }
        expired = phase
        return true
    }

    /// The request's task was cancelled. True when the handshake was still running and no limit had stopped it: the
    /// glue then stops the evaluation and closes the channel, as for a limit.
    mutating func taskCancelled() -> Bool {
        guard step == .handshaking, expired == nil, !cancelled else { return false }
        cancelled = true
        return true
    }

    /// How the handshake ended, for the connection.
    enum HandshakeEnd: Sendable, Equatable {
        /// It succeeded in time: on to ALPN's choice.
        case negotiate
        /// The verifier refused the connection: its refusal is the error, whatever closed the channel after it.
        case refused
        /// A limit ran out first.
        case timedOut(TransportError.Phase)
        /// The request's task was cancelled first.
        case cancelled
        /// The TLS library ended it: its reason is to be classified (`HandshakeFailureClassifier`).
        case classify
    }

    /// The wait for the handshake ended, with success or not; `refused` says whether the verifier kept a refusal.
    mutating func handshakeEnded(succeeded: Bool, refused: Bool) -> HandshakeEnd {
        guard step == .handshaking else {
            step = .failed
            return refused ? .refused : .classify
        }
        // A limit that ran out (or a cancellation that came) in the same turn as the handshake finished has closed
        // the channel: that is a timeout (a cancellation).
        if succeeded && expired == nil && !cancelled {
            step = .negotiating
            return .negotiate
        }
        step = .failed
        if refused { return .refused }
        if let expired { return .timedOut(expired) }
        if cancelled { return .cancelled }
        return .classify
    }

    /// What the negotiated connection is.
    enum Negotiation: Sendable, Equatable {
        case http1
        case http2
        /// A TLS handshake completed without this connection's evaluation allowing it (a resumed session, say).
        case unevaluated
        /// HTTP/2 was required and ALPN chose HTTP/1.1.
        case http2Refused
    }

    /// ALPN settled the protocol. Fails closed: a TLS connection that this connection's evaluation did not allow is
    /// refused before anything else is looked at.
    mutating func negotiated(http2: Bool, isTLS: Bool, allowedByEvaluation: Bool, requiresHTTP2: Bool) -> Negotiation {
        guard step == .negotiating, !isTLS || allowedByEvaluation else {
            step = .failed
            return .unevaluated
        }
        if !http2 && isTLS && requiresHTTP2 {
            step = .failed
            return .http2Refused
        }
        step = .open
        return http2 ? .http2 : .http1
    }
}
