import AppTransportSecurity
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import TransportDecision

/// The steps of opening one connection (``Connection/open(target:key:configuration:identity:sslContext:group:deadline:over:)``):
/// the pipeline to install, the TCP connection, the handshake within its limit, and the connection that results.
/// It holds what those steps share: the verifier, the promises the handlers complete, and what ALPN chose.
final class PipelineSetup: Sendable {
    let isTLS: Bool
    let sslContext: NIOSSLContext?
    let verifier: HandshakeVerifier
    let eventLoop: any EventLoop
    let handshakePromise: EventLoopPromise<Void>
    let exchangePromise: EventLoopPromise<Connection.Negotiated>
    let death = NIOLockedValueBox<ExchangeFailure?>(nil)
    /// The ALPN protocol the handshake settled, once it has.
    let chosen = NIOLockedValueBox<String?>(nil)
    /// Which step the opening is in: the timer, on the event loop, and the waiting task both consult it.
    let state = NIOLockedValueBox(ConnectionSetupState())

    init(isTLS: Bool, sslContext: NIOSSLContext?, verifier: HandshakeVerifier, eventLoop: any EventLoop) {
        self.isTLS = isTLS
        self.sslContext = sslContext
        self.verifier = verifier
        self.eventLoop = eventLoop
        handshakePromise = eventLoop.makePromise(of: Void.self)
        exchangePromise = eventLoop.makePromise(of: Connection.Negotiated.self)
    }

    /// Fails whichever promise no step completed.
    func failUnfinished() {
        handshakePromise.fail(ExchangeFailure.closed)
        exchangePromise.fail(ExchangeFailure.closed)
    }

    // MARK: The pipeline

    /// The TLS handlers (or none, for plain http), with the HTTP handlers to follow once ALPN has chosen.
    func install(_ channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            if isTLS, let sslContext {
                // No SNI for IP literals (RFC 6066 §3); swift-nio-ssl also throws on them.
                try sync.addHandlers(Connection.tlsHandlers(context: sslContext, serverName: verifier.plan.serverName, verifier: verifier,
                                                            observation: verifier.observation, handshakePromise: handshakePromise) { sync, alpn in
                    try self.installHTTP(sync, alpn, channel.eventLoop)
                })
            } else {
                handshakePromise.succeed(())
                try installHTTP(sync, nil, channel.eventLoop)
            }
        }
    }

    /// The HTTP handlers go in once the handshake is done and ALPN has chosen, in the same turn of the event loop,
    /// so that nothing the server sends after its Finished goes unread.
    private func installHTTP(_ sync: ChannelPipeline.SynchronousOperations, _ alpn: String?, _ loop: any EventLoop) throws {
        chosen.withLockedValue { $0 = alpn }
        guard alpn == "h2" else {
            try sync.addHTTPClientHandlers()
            let exchange = ExchangeHandler(death: death)
            try sync.addHandler(exchange)
            return exchangePromise.succeed(.http1(NIOLoopBound(exchange, eventLoop: loop)))
        }
        let goingAway = NIOLockedValueBox<HTTP2StreamID?>(nil)
        let streams = NIOLockedValueBox(StreamCount())
        try sync.addHandler(FlushCoalescingHandler())
        // Push is off: NIO's default settings leave it on, and every pushed stream would be decoded only to be
        // reset. Announced off, a push is the server's protocol error. The stream window announced is the one
        // HTTP2ClientHandler gives back.
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = nioDefaultSettings + [HTTP2Setting(parameter: .enablePush, value: 0),
                                                           HTTP2Setting(parameter: .initialWindowSize, value: HTTP2StreamState.window)]
        // No stream multiplexer: frames go to HTTP2ClientHandler, with no channel or pipeline per stream.
        let handler = HTTP2ClientHandler(death: death, goingAway: goingAway, streams: streams)
        try sync.addHandler(NIOHTTP2Handler(mode: .client, frameDelegate: handler, connectionConfiguration: connection))
        try sync.addHandler(handler)
        exchangePromise.succeed(.http2(NIOLoopBound(handler, eventLoop: loop), goingAway: goingAway, streams: streams))
    }

    // MARK: Connecting

    /// The pipeline on a channel already open through a proxy.
    func install(over tunnel: any Channel, host: String, port: Int) async throws(TransportError) -> any Channel {
        do { try await tunnel.eventLoop.flatSubmit { self.install(tunnel) }.get() } catch {
            tunnel.close(promise: nil)
            throw TransportError(.internalError, phase: .connect, host: host, port: port,
                                 "the connection through the proxy could not be set up for \(host):\(port); the tunnel may have closed as it opened",
                                 underlying: "\(error)")
        }
        return tunnel
    }

    /// A TCP connection to the target (or to its overriding address), within the connect limit or what is left of
    /// the request's when that is less (never below NIO's 1 ms floor).
    func connect(host: String, port: Int, override: (text: String, address: SocketAddress)?, limits: Timeouts,
                 deadline: NIODeadline) async throws(TransportError) -> any Channel {
        let remaining = deadline - .now()
        let connectLimit = max(min(limits.connect.timeAmount, remaining), .milliseconds(1))
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(connectLimit)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { self.install($0) }
        do {
            return try await (override.map { bootstrap.connect(to: $0.address) } ?? bootstrap.connect(host: host, port: port))
                .channelUnlessCancelled()
        } catch ExchangeFailure.cancelled {
            throw TransportError.cancelled(.connect, host: host, port: port, "while its TCP connection opened; the connection is closed if it opens")
        } catch {
            let address = override?.text ?? host
            if case ChannelError.connectTimeout = error {
                throw TransportError(.timedOut, phase: .connect, host: host, port: port,
                                     Connection.connectTimeoutMessage(address: address, port: port, limit: connectLimit,
                                                                      byRequestLimit: remaining < limits.connect.timeAmount),
                                     underlying: "\(error)")
            }
            // NIO's text names its own types; the message says what happened, `underlying` keeps the text.
            throw TransportError(.connectionFailed, phase: .connect, host: host, port: port,
                                 ConnectFailure(error).sentence(address: address, port: port), underlying: "\(error)")
        }
    }

    // MARK: The handshake

    /// Waits for the handshake and its evaluation, within the handshake limit and the request's.
    func awaitHandshake(on channel: any Channel, target: Target, limits: Timeouts, deadline: NIODeadline,
                        identityPresented: Bool) async throws(TransportError) {
        state.withLockedValue { $0.opened() }
        let (limit, phase) = ConnectionSetupState.handshakeLimit(own: .now() + limits.handshake.timeAmount, request: deadline)
        let (verifier, handshakePromise, state) = (self.verifier, self.handshakePromise, self.state)
        let timer = channel.eventLoop.scheduleTask(deadline: limit) {
            guard state.withLockedValue({ $0.limitPassed(phase) }) else { return }
            // Cancelled here, on the event loop, not by the waiting task below: when evaluations fill their threads,
            // that task resumes only once they are done, and the limit would bound nothing.
            verifier.cancel()
            channel.close(promise: nil)
            // Failed here too, as the request's timer fails its exchange: the limit then bounds the wait even when no
            // handler is left to report the closure. Completing a completed promise is a no-op.
            handshakePromise.fail(ExchangeFailure.closed)
        }
        // Cancelled on the event loop the timer runs on, so a handshake that finishes is never then cut off by it.
        handshakePromise.futureResult.whenComplete { _ in timer.cancel() }
        let failure: (any Error)?
        do {
            // A cancelled task stops the handshake on the loop, as the limit does, so that both are ordered with
            // the handshake's own end.
            try await withTaskCancellationHandler {
                try await handshakePromise.futureResult.get()
            } onCancel: {
                channel.eventLoop.execute {
                    guard state.withLockedValue({ $0.taskCancelled() }) else { return }
                    verifier.cancel()
                    channel.close(promise: nil)
                    handshakePromise.fail(ExchangeFailure.cancelled)
                }
            }
            failure = nil
        } catch {
            failure = error
        }
        let refusal = verifier.outcome?.refusal
        let end = state.withLockedValue { $0.handshakeEnded(succeeded: failure == nil, refused: refusal != nil) }
        if end != .negotiate {
            verifier.cancel()
            channel.close(promise: nil)
        }
        switch end {
        case .negotiate:
            return
        case .refused, .classify:
            if let refusal { throw refusal }
            throw HandshakeFailureClassifier(target: target, observation: verifier.observation, verifier: verifier)
                .classify(failure ?? ExchangeFailure.closed, identityPresented: identityPresented)
        case .cancelled:
            throw TransportError.cancelled(.handshake, host: target.host, port: target.port, "during the TLS handshake; its connection was closed")
        case .timedOut(let expired):
            throw TransportError(.timedOut, phase: expired == .request ? .request : .handshake, host: target.host, port: target.port,
                                 expired == .request ? "the request's time limit ran out during the TLS handshake"
                                    : "the TLS handshake did not finish within \(limits.handshake.secondsText) s",
                                 verdict: verifier.outcome?.decision.verdict, handshake: verifier.handshakeSummary)
        }
    }

    // MARK: The connection

    /// The connection the handshake made, with its report: an HTTP/1.1 connection or an HTTP/2 session's first stream.
    func connection(on channel: any Channel, target: Target, key: PoolKey, configuration: HTTPSClientConfiguration)
        async throws(TransportError) -> Connection {
        let negotiated: Connection.Negotiated
        do { negotiated = try await exchangePromise.futureResult.get() } catch {
            channel.close(promise: nil)
            throw TransportError(.internalError, phase: .connect, host: target.host, port: target.port,
                                 "the connection to \(target.host):\(target.port) closed before HTTP could be set up on it", underlying: "\(error)")
        }
        let allowed = verifier.outcome.map { $0.refusal == nil } ?? false
        let negotiation = state.withLockedValue {
            $0.negotiated(http2: negotiated.isHTTP2, isTLS: isTLS, allowedByEvaluation: allowed, requiresHTTP2: configuration.httpVersions == .http2Only)
        }
        let report = try report(on: channel, target: target, negotiation: negotiation, http2: negotiated.isHTTP2)
        switch negotiated {
        case .http1:
            configuration.handshakeObserver?(report)
            return Connection(channel: channel, key: key, report: report, death: death)
        case .http2(let handler, let goingAway, let streams):
            configuration.handshakeObserver?(report)
            let session = HTTP2Session(channel: channel, key: key, report: report, handler: handler, goingAway: goingAway,
                                       streams: streams, death: death)
            do throws(TransportError) { return try await session.openStream() } catch {
                session.close()
                throw error
            }
        }
    }

    /// What was decided for the connection. Fails closed: a TLS handshake that completed without this connection's
    /// evaluation (a resumed session, say) is refused.
    private func report(on channel: any Channel, target: Target, negotiation: ConnectionSetupState.Negotiation, http2: Bool)
        throws(TransportError) -> ConnectionReport {
        let (version, alpn) = (http2 ? "HTTP/2" : "HTTP/1.1", chosen.withLockedValue { $0 })
        if isTLS {
            guard negotiation != .unevaluated, let outcome = verifier.outcome else {
                channel.close(promise: nil)
                throw TransportError(.serverTrustRefused, phase: .handshake, host: target.host, port: target.port,
                                     ConnectionPlan.unevaluatedHandshake.message)
            }
            if negotiation == .http2Refused {
                channel.close(promise: nil)
                throw TransportError(.http2NotNegotiated, phase: .handshake, host: target.host, port: target.port,
                                     "the server did not agree to HTTP/2 through ALPN (it offers HTTP/1.1 only); allow HTTP/1.1 to reach it",
                                     verdict: outcome.decision.verdict, handshake: outcome.decision.handshake)
            }
            return ConnectionReport(scheme: "https", host: target.host, port: target.port, handshake: outcome.decision.handshake,
                                    verdict: outcome.decision.verdict, atsEvaluation: outcome.decision.evaluation,
                                    requirements: target.requirements, notes: outcome.decision.notes, httpVersion: version, alpn: alpn)
        }
        return ConnectionReport(scheme: "http", host: target.host, port: target.port, handshake: nil, verdict: nil,
                                atsEvaluation: target.requirements.evaluate(ConnectionDescription(scheme: "http")),
                                requirements: target.requirements, notes: [], httpVersion: version, alpn: alpn)
    }
}

extension EventLoopFuture where Value == any Channel {
    /// The channel once connected, unless the task is cancelled first (``ExchangeFailure/cancelled``). NIO cannot call
    /// a connect off: the task stops waiting for it, and a channel that opens afterwards is closed. Completing a
    /// completed promise is a no-op.
    func channelUnlessCancelled() async throws -> any Channel {
        let connected = eventLoop.makePromise(of: (any Channel).self)
        cascade(to: connected)
        whenSuccess { channel in connected.futureResult.whenFailure { _ in channel.close(promise: nil) } }
        return try await withTaskCancellationHandler {
            try await connected.futureResult.get()
        } onCancel: {
            connected.fail(ExchangeFailure.cancelled)
        }
    }
}
