import AppTransportSecurity
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import TransportTrust

/// Identifies connections that may be shared: same scheme, host and port, and same TLS settings.
struct PoolKey: Hashable, Sendable {
    var scheme: String
    var host: String
    var port: Int
    /// The TLS settings and identity; connections made under other requirements are not reused.
    var settings: String
    /// The proxy the connection goes through (``Proxy/description``), or empty for a direct connection.
    var proxy: String = ""
}

/// A request's destination.
struct Target: Sendable {
    var url: String
    var scheme: String
    /// The host in canonical form: ``peer``'s text.
    var host: String
    var peer: PeerName
    var port: Int
    var path: String
    let requirements: ConnectionRequirements
    /// ``TLSSettings/requirementsKey(for:)`` of ``requirements``: every request's pool key holds it.
    let tlsKey: String

    init(url: String, scheme: String, host: String, peer: PeerName, port: Int, path: String, requirements: ConnectionRequirements) {
        self.url = url
        self.scheme = scheme
        self.host = host
        self.peer = peer
        self.port = port
        self.path = path
        self.requirements = requirements
        tlsKey = TLSSettings.requirementsKey(for: requirements)
    }

    /// The decision plan for a connection to this target under `configuration`.
    func plan(_ configuration: HTTPSClientConfiguration) -> ConnectionPlan {
        ConnectionPlan(peer: peer, port: port, requirements: requirements, settings: configuration.trustSettings)
    }
}

/// Which phase a deadline expired in, set by the timer before it closes the channel.
final class TimeoutFlag: Sendable {
    private let box = NIOLockedValueBox<TransportError.Phase?>(nil)
    var phase: TransportError.Phase? { box.withLockedValue { $0 } }
    func set(_ phase: TransportError.Phase) { box.withLockedValue { if $0 == nil { $0 = phase } } }
}

/// One open connection, TLS or plain, with the decision made when it was opened.
final class Connection: Sendable {
    let channel: any Channel
    let key: PoolKey
    let report: ConnectionReport
    private let exchange: NIOLoopBound<ExchangeHandler>
    private let death: NIOLockedValueBox<ExchangeFailure?>
    /// The HTTP/2 connection this is a stream of; nil for an HTTP/1.1 connection. A stream is one exchange: closing
    /// it resets the stream, never the connection.
    let session: HTTP2Session?

    private init(channel: any Channel, key: PoolKey, report: ConnectionReport, exchange: NIOLoopBound<ExchangeHandler>,
                 death: NIOLockedValueBox<ExchangeFailure?>) {
        self.channel = channel
        self.key = key
        self.report = report
        self.exchange = exchange
        self.death = death
        self.session = nil
    }

    /// A stream of an HTTP/2 connection.
    init(stream: any Channel, session: HTTP2Session, exchange: NIOLoopBound<ExchangeHandler>, death: NIOLockedValueBox<ExchangeFailure?>) {
        self.channel = stream
        self.key = session.key
        self.report = session.report
        self.exchange = exchange
        self.death = death
        self.session = session
    }

    /// What ALPN settled, and the handlers it put in place.
    enum Negotiated: Sendable {
        case http1(NIOLoopBound<ExchangeHandler>)
        case http2(NIOHTTP2Handler.StreamMultiplexer, goingAway: NIOLockedValueBox<HTTP2StreamID?>, streams: NIOLockedValueBox<StreamCount>)
    }

    var isActive: Bool { channel.isActive }

    func close() { channel.close(promise: nil) }

    // MARK: Opening

    static let http2NeedsTLS = "HTTP/2 is spoken only over TLS here (h2, negotiated by ALPN); plain http:// uses HTTP/1.1"

    /// - Parameter tunnel: a channel already open to a proxy (and through its CONNECT tunnel, for https); nil to
    ///   connect to the target directly. The target's handshake and evaluation are the same either way.
    static func open(target: Target, key: PoolKey, configuration: HTTPSClientConfiguration, identity: ClientIdentity?,
                     sslContext: NIOSSLContext?, group: any EventLoopGroup, deadline: NIODeadline,
                     over tunnel: (any Channel)? = nil) async throws(TransportError) -> Connection {
        let host = target.host
        let port = target.port
        // Through a tunnel the proxy reaches the target: an override for it does not apply.
        let override: (text: String, address: SocketAddress)?
        do throws(AddressOverrides.Refusal) {
            override = tunnel == nil ? try AddressOverrides.override(in: configuration.addressOverrides, host: host, port: port) : nil
        } catch {
            throw TransportError(.invalidRequest, phase: .connect, host: host, port: port, error.sentence)
        }
        let overrideAddress = override?.address
        let address = override?.text ?? host
        let observation = HandshakeObservation()
        let verifier = HandshakeVerifier(plan: target.plan(configuration), challengeHandler: configuration.challengeHandler,
                                         observation: observation)
        // The request's own loop when it runs on one (EventLoopExecutors): its waits then need no hop.
        let eventLoop = tunnel?.eventLoop ?? group.any()
        let handshakePromise = eventLoop.makePromise(of: Void.self)
        let exchangePromise = eventLoop.makePromise(of: Negotiated.self)
        // Every path that does not succeed them fails them here (a tunnel that closed before the handlers went in
        // would otherwise leave the handshake's promise unfulfilled); completing a completed promise is a no-op.
        defer {
            handshakePromise.fail(ExchangeFailure.closed)
            exchangePromise.fail(ExchangeFailure.closed)
        }
        let death = NIOLockedValueBox<ExchangeFailure?>(nil)
        let isTLS = target.scheme == "https"
        // No SNI for IP literals (RFC 6066 §3); swift-nio-ssl also throws on them.
        let sni = verifier.plan.serverName

        // The HTTP handlers go in once the handshake is done and ALPN has chosen, in the same turn of the event loop,
        // so that nothing the server sends after its Finished goes unread.
        let chosen = NIOLockedValueBox<String?>(nil)
        @Sendable func installHTTP(_ sync: ChannelPipeline.SynchronousOperations, _ alpn: String?, _ loop: any EventLoop) throws {
            chosen.withLockedValue { $0 = alpn }
            if alpn == "h2" {
                let goingAway = NIOLockedValueBox<HTTP2StreamID?>(nil)
                let streams = NIOLockedValueBox(StreamCount())
                try sync.addHandler(FlushCoalescingHandler())
                // Push is off: NIO's default settings leave it on, and every pushed stream would be decoded only to be
                // reset. Announced off, a push is the server's protocol error.
                var connection = NIOHTTP2Handler.ConnectionConfiguration()
                connection.initialSettings = nioDefaultSettings + [HTTP2Setting(parameter: .enablePush, value: 0)]
                let multiplexer = try sync.configureHTTP2Pipeline(mode: .client, connectionConfiguration: connection, streamConfiguration: .init()) {
                    $0.close()
                }
                try sync.addHandler(GoAwayObserver(goingAway: goingAway, streams: streams))
                exchangePromise.succeed(.http2(multiplexer, goingAway: goingAway, streams: streams))
            } else {
                try sync.addHTTPClientHandlers()
                let exchange = ExchangeHandler(death: death)
                try sync.addHandler(exchange)
                exchangePromise.succeed(.http1(NIOLoopBound(exchange, eventLoop: loop)))
            }
        }
        let install: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in
            channel.eventLoop.makeCompletedFuture {
                let sync = channel.pipeline.syncOperations
                if isTLS, let sslContext {
                    try sync.addHandlers(tlsHandlers(context: sslContext, serverName: sni, verifier: verifier, observation: observation,
                                                     handshakePromise: handshakePromise) { sync, alpn in
                        try installHTTP(sync, alpn, channel.eventLoop)
                    })
                } else {
                    handshakePromise.succeed(())
                    try installHTTP(sync, nil, channel.eventLoop)
                }
            }
        }

        // The connect limit, or what is left of the request's when that is less (never below NIO's 1 ms floor).
        let remaining = deadline - .now()
        let connectLimit = max(min(configuration.timeouts.connect.timeAmount, remaining), .milliseconds(1))
        let channel: any Channel
        if let tunnel {
            do { try await tunnel.eventLoop.flatSubmit { install(tunnel) }.get() } catch {
                tunnel.close(promise: nil)
                throw TransportError(.internalError, phase: .connect, host: host, port: port,
                                     "the connection through the proxy could not be set up for \(host):\(port); the tunnel may have closed as it opened",
                                     underlying: "\(error)")
            }
            channel = tunnel
        } else {
            let bootstrap = ClientBootstrap(group: eventLoop)
                .connectTimeout(connectLimit)
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelInitializer(install)
            do {
                if let overrideAddress {
                    channel = try await bootstrap.connect(to: overrideAddress).get()
                } else {
                    channel = try await bootstrap.connect(host: host, port: port).get()
                }
            } catch {
                handshakePromise.fail(ExchangeFailure.closed)
                exchangePromise.fail(ExchangeFailure.closed)
                if case ChannelError.connectTimeout = error {
                    throw TransportError(.timedOut, phase: .connect, host: host, port: port,
                                         connectTimeoutMessage(address: address, port: port, limit: connectLimit,
                                                               byRequestLimit: remaining < configuration.timeouts.connect.timeAmount),
                                         underlying: "\(error)")
                }
                // NIO's text names its own types; the message says what happened, `underlying` keeps the text.
                throw TransportError(.connectionFailed, phase: .connect, host: host, port: port,
                                     ConnectFailure(error).sentence(address: address, port: port), underlying: "\(error)")
            }
        }

        // The handshake deadline: its own limit, within the request's.
        let flag = TimeoutFlag()
        let ownDeadline = NIODeadline.now() + configuration.timeouts.handshake.timeAmount
        let handshakeDeadline = min(ownDeadline, deadline)
        let phase: TransportError.Phase = ownDeadline <= deadline ? .handshake : .request
        let timer = channel.eventLoop.scheduleTask(deadline: handshakeDeadline) {
            flag.set(phase)
            // Cancelled here, on the event loop, not by the waiting task below: when evaluations fill the cooperative
            // pool, that task resumes only once they are done, and the limit would bound nothing.
            verifier.cancel()
            channel.close(promise: nil)
            // Failed here too, as the request's timer fails its exchange: the limit then bounds the wait even when no
            // handler is left to report the closure. Completing a completed promise is a no-op.
            handshakePromise.fail(ExchangeFailure.closed)
        }
        // Cancelled on the event loop the timer runs on, so a handshake that finishes is never then cut off by it.
        handshakePromise.futureResult.whenComplete { _ in timer.cancel() }
        do {
            try await handshakePromise.futureResult.get()
            // The timer fired in the same turn of the loop as the handshake finished, and closed the channel.
            if flag.phase != nil { throw ExchangeFailure.closed }
        } catch {
            verifier.cancel()
            channel.close(promise: nil)
            if let refusal = verifier.outcome?.refusal { throw refusal }
            if let expired = flag.phase {
                throw TransportError(.timedOut, phase: expired == .request ? .request : .handshake, host: host, port: port,
                                     expired == .request ? "the request's time limit ran out during the TLS handshake"
                                        : "the TLS handshake did not finish within \(configuration.timeouts.handshake.secondsText) s",
                                     verdict: verifier.outcome?.decision.verdict, handshake: verifier.handshakeSummary)
            }
            throw HandshakeFailureClassifier(target: target, observation: observation, verifier: verifier)
                .classify(error, identityPresented: identity != nil)
        }

        let negotiated: Negotiated
        do { negotiated = try await exchangePromise.futureResult.get() } catch {
            channel.close(promise: nil)
            throw TransportError(.internalError, phase: .connect, host: host, port: port,
                                 "the connection to \(host):\(port) closed before HTTP could be set up on it", underlying: "\(error)")
        }
        var report: ConnectionReport
        if isTLS {
            // Fail closed: a handshake that completed without our evaluation (a resumed session, say) is refused.
            guard let outcome = verifier.outcome, outcome.refusal == nil else {
                channel.close(promise: nil)
                throw TransportError(.serverTrustRefused, phase: .handshake, host: host, port: port,
                                     ConnectionPlan.unevaluatedHandshake.message)
            }
            report = ConnectionReport(scheme: "https", host: host, port: port, handshake: outcome.decision.handshake, verdict: outcome.decision.verdict,
                                      atsEvaluation: outcome.decision.evaluation, requirements: target.requirements, notes: outcome.decision.notes)
        } else {
            report = ConnectionReport(scheme: "http", host: host, port: port, handshake: nil, verdict: nil,
                                      atsEvaluation: target.requirements.evaluate(ConnectionDescription(scheme: "http")),
                                      requirements: target.requirements, notes: [])
        }
        report.alpn = chosen.withLockedValue { $0 }
        switch negotiated {
        case .http1(let exchange):
            report.httpVersion = "HTTP/1.1"
            if isTLS && configuration.httpVersions == .http2Only {
                channel.close(promise: nil)
                throw TransportError(.http2NotNegotiated, phase: .handshake, host: host, port: port,
                                     "the server did not agree to HTTP/2 through ALPN (it offers HTTP/1.1 only); allow HTTP/1.1 to reach it",
                                     verdict: report.verdict, handshake: report.handshake)
            }
            configuration.handshakeObserver?(report)
            return Connection(channel: channel, key: key, report: report, exchange: exchange, death: death)
        case .http2(let multiplexer, let goingAway, let streams):
            report.httpVersion = "HTTP/2"
            configuration.handshakeObserver?(report)
            let session = HTTP2Session(channel: channel, key: key, report: report, multiplexer: multiplexer, goingAway: goingAway, streams: streams)
            do throws(TransportError) { return try await session.openStream() } catch {
                session.close()
                throw error
            }
        }
    }

    /// The TLS client handler whose verification callback runs `verifier`, with the ServerHello observer before it
    /// and the handshake waiter after it.
    /// - Parameter onCompleted: called on the event loop when the handshake completes, with the ALPN protocol chosen.
    static func tlsHandlers(context: NIOSSLContext, serverName: String?, verifier: HandshakeVerifier, observation: HandshakeObservation,
                            handshakePromise: EventLoopPromise<Void>,
                            onCompleted: ((ChannelPipeline.SynchronousOperations, String?) throws -> Void)? = nil) throws -> [any ChannelHandler] {
        let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName,
                                              customVerificationCallbackWithMetadata: { certificates, promise in
            let presented: [[UInt8]]
            do { presented = try certificates.map { try $0.toDERBytes() } } catch {
                promise.succeed(.failed)
                return
            }
            verifier.start {
                let allowed = await verifier.verify(presented: presented)
                guard allowed else { return promise.succeed(.failed) }
                // The metadata chain is the chain as built, leaf to anchor.
                let built = verifier.outcome?.decision.verdict.chain.compactMap { try? NIOSSLCertificate(bytes: $0.der, format: .der) } ?? []
                promise.succeed(.certificateVerified(VerificationMetadata(built.isEmpty ? nil : ValidatedCertificateChain(built))))
            }
        })
        return [ServerHelloObserver(observation: observation), handler, HandshakeWaiter(promise: handshakePromise, onCompleted: onCompleted)]
    }

    /// Which limit ran out, and how long it was, rounded for people.
    static func connectTimeoutMessage(address: String, port: Int, limit: TimeAmount, byRequestLimit: Bool) -> String {
        "the TCP connection to \(address):\(port) did not open within \(limit.secondsText) s"
            + (byRequestLimit ? ", what was left of the request's time limit" : ", the connect time limit")
    }

    // MARK: Exchanging

    /// The response head, and the end of the body: already there for a buffered response, a future for a streamed one.
    struct Started: Sendable {
        var head: HTTPResponseHead
        var end: EventLoopFuture<ExchangeEnd>
        var ended: ExchangeEnd?
        var flag: TimeoutFlag
        /// For a streamed body, what its reader has not taken yet.
        var demand: BodyDemand?

        /// The end of the response. A future's `get()` off the event loop goes to the loop and back even when the
        /// future has completed, so a buffered response does not ask again.
        func finished() async throws -> ExchangeEnd {
            if let ended { return ended }
            return try await end.get()
        }
    }

    /// Sends a request and waits for the response head, or for the whole response when it is buffered (no
    /// `stream`): one wait instead of two. The request deadline closes the connection when it passes, whether the
    /// head or the body is still awaited.
    func start(head: HTTPRequestHead, body: [UInt8]?, limit: Int, deadline: NIODeadline,
               stream: AsyncThrowingStream<[UInt8], any Error>.Continuation?) async throws(TransportError) -> Started {
        let eventLoop = channel.eventLoop
        let head = session == nil ? head : HTTP2Session.removingConnectionHeaders(head)
        let demand = stream.map { _ in BodyDemand() }
        let request = ExchangeRequest(head: head, body: body, headPromise: eventLoop.makePromise(), endPromise: eventLoop.makePromise(),
                                      limit: limit, stream: stream, demand: demand, delivered: NIOLockedValueBox(false))
        let flag = TimeoutFlag()
        let channel = self.channel
        let exchange = self.exchange
        let death = self.death
        // Timer, write and wait are set up in one visit to the event loop: each call on a loop from outside it is a
        // queued task and a wake-up, and a keep-alive request would otherwise pay four of them.
        @Sendable func send() {
            let timer = eventLoop.scheduleTask(deadline: deadline) {
                flag.set(.request)
                exchange.value.abort(.closed)
                // The handler may already be gone (the connection died while the request was on its way), so fail the
                // exchange here too; completing a completed promise is a no-op. Without this the request waits forever.
                request.headPromise.fail(ExchangeFailure.closed)
                request.endPromise.fail(ExchangeFailure.closed)
                request.stream?.finish(throwing: ExchangeFailure.closed)
                channel.close(promise: nil)
            }
            request.endPromise.futureResult.whenComplete { _ in timer.cancel() }
            // A write to a connection that has already closed never reaches the handler: complete the promises here,
            // with the reason the connection died when one was seen.
            channel.writeAndFlush(request).whenFailure { _ in
                guard !request.delivered.withLockedValue({ $0 }) else { return }
                let failure = ExchangeFailure.unsent(after: death.withLockedValue { $0 })
                request.headPromise.fail(failure)
                request.endPromise.fail(failure)
                request.stream?.finish(throwing: failure)
            }
        }
        do {
            guard stream != nil else {
                let ended = try await Self.sending(on: eventLoop, send, awaiting: request.endPromise.futureResult)
                return Started(head: ended.head, end: request.endPromise.futureResult, ended: ended, flag: flag)
            }
            let responseHead = try await Self.sending(on: eventLoop, send, awaiting: request.headPromise.futureResult)
            return Started(head: responseHead, end: request.endPromise.futureResult, ended: nil, flag: flag, demand: demand)
        } catch {
            throw mapExchangeError(error, flag: flag, phase: .response)
        }
    }

    /// Runs `send` on `eventLoop` and waits there for `future`, in one task on the loop.
    private static func sending<Value: Sendable>(on eventLoop: any EventLoop, _ send: @escaping @Sendable () -> Void,
                                                 awaiting future: EventLoopFuture<Value>) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            eventLoop.execute {
                send()
                future.whenComplete { continuation.resume(with: $0) }
            }
        }
    }

    func mapExchangeError(_ error: any Error, flag: TimeoutFlag, phase: TransportError.Phase) -> TransportError {
        let host = report.host
        let port = report.port
        if flag.phase != nil {
            return TransportError(.timedOut, phase: phase, host: host, port: port,
                                  "no complete response before the request's time limit", verdict: report.verdict, handshake: report.handshake)
        }
        switch error {
        case ExchangeFailure.tooLarge(let limit):
            return TransportError(.responseTooLarge, phase: .response, host: host, port: port,
                                  "the response body is larger than the limit of \(limit) bytes; raise HTTPSClientConfiguration.maximumResponseBytes, or read it with HTTPSClient.stream, which has no limit")
        case ExchangeFailure.refused:
            return TransportError(.connectionClosed, phase: phase, host: host, port: port,
                                  "the server refused the HTTP/2 stream before processing it (REFUSED_STREAM or GOAWAY)",
                                  verdict: report.verdict, handshake: report.handshake, underlying: ExchangeFailure.refusedMarker)
        case ExchangeFailure.closed:
            return TransportError(.connectionClosed, phase: phase, host: host, port: port,
                                  "the server closed the connection before the response was complete", verdict: report.verdict, handshake: report.handshake)
        case ExchangeFailure.notSent:
            return TransportError(.connectionClosed, phase: .request, host: host, port: port,
                                  "the server had closed the connection before the request was sent", verdict: report.verdict,
                                  handshake: report.handshake, underlying: ExchangeFailure.notSentMarker)
        case ExchangeFailure.streamReset(let code):
            let hint = code == "HTTP_1_1_REQUIRED" ? "; the server wants this request over HTTP/1.1 (HTTPSClientConfiguration.httpVersions = .http1Only)" : ""
            return TransportError(.connectionClosed, phase: phase, host: host, port: port,
                                  "the server reset the HTTP/2 stream (\(code)) before the response was complete\(hint)",
                                  verdict: report.verdict, handshake: report.handshake, underlying: "HTTP/2 RST_STREAM \(code)")
        case ExchangeFailure.requestRejected(let text):
            return TransportError(.invalidRequest, phase: .request, host: host, port: port,
                                  "the request was not sent: it is not valid HTTP/1.1 (NIO: \(text)); check its method, header names and values, and the URL's path",
                                  underlying: text)
        case ExchangeFailure.malformedResponse(let text):
            // NIO's parser stops at its header limits; "not valid" alone would hide that the server sent too much.
            let what = text == "\(HTTPParserError.headerOverflow)"
                ? "the server's response headers are over the limits this client reads (256 fields, 80 KiB a field, 2 MiB in all); the server is broken or hostile"
                : "the server's response is not valid HTTP/1.1"
            return TransportError(.malformedResponse, phase: phase, host: host, port: port, what, verdict: report.verdict, underlying: text)
        case ExchangeFailure.error(let text, let isTLS):
            if isTLS, let rejected = HandshakeFailureClassifier.clientCertificateAlert(in: text) {
                return TransportError(.clientCertificateRejected, phase: phase, host: host, port: port,
                                      "client certificate rejected: the server answered the handshake with \(rejected)",
                                      verdict: report.verdict, handshake: report.handshake, underlying: text)
            }
            if text.contains("ECONNRESET") || text.contains("reset") || text.contains("uncleanShutdown") {
                return TransportError(.connectionClosed, phase: phase, host: host, port: port,
                                      "the server reset the connection", verdict: report.verdict, underlying: text)
            }
            if isTLS, let reason = TLSFailureReason(boringSSLText: text) {
                var error = TransportError(.tlsFailure, phase: phase, host: host, port: port, "the TLS connection failed: \(reason.sentence)",
                                           verdict: report.verdict, handshake: report.handshake, underlying: text)
                error.tlsReason = reason
                return error
            }
            return TransportError(isTLS ? .tlsFailure : .malformedResponse, phase: phase, host: host, port: port,
                                  isTLS ? "the TLS connection failed for a reason the TLS library gave no known code for (see underlying)"
                                        : "the connection failed during the exchange (see underlying)",
                                  verdict: report.verdict, underlying: text)
        default:
            return TransportError(.internalError, phase: phase, host: host, port: port, "the exchange ended by an unexpected error (see underlying)",
                                  underlying: "\(error)")
        }
    }
}

extension Duration {
    /// Package-wide: the diagnostics layer sets NIO timeouts from the same durations.
    package var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// For messages: "2.5", "4" for 3.9996637 s, "0.000287" below a millisecond, and "0" for none or less.
    /// Package-wide, so the command line names limits the way the client does.
    package var secondsText: String {
        let value = inSeconds
        guard value > 0 else { return "0" }
        // Milliseconds are precision enough for a limit; below one, microseconds, so that a tiny limit is not "0".
        var text = String(format: value >= 0.0005 ? "%.3f" : "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "0" ? "0.000001" : text
    }

    /// For reports and benchmarks.
    package var inSeconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}

extension TimeAmount {
    var secondsText: String { Duration.nanoseconds(nanoseconds).secondsText }
}
