import AppTransportSecurity
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import TransportTrust

/// Opens a connection to a proxy: TCP, TLS under the proxy's own trust for an `https://` proxy, and for an https
/// target a CONNECT tunnel. The target's own TLS is added afterwards by ``Connection``, exactly as without a proxy.
enum ProxyTunnel {
    enum Outcome {
        /// Ready for the target's handshake (or, without CONNECT, for absolute-form requests).
        case open(any Channel)
        /// The proxy answered 407; its head carries the Proxy-Authenticate challenges.
        case authenticationRequired(HTTPResponseHead)
    }

    /// - Parameters:
    ///   - connect: the `host:port` to CONNECT to; nil for plain http targets, which are sent to the proxy itself.
    ///   - authorization: the Proxy-Authorization value to send with CONNECT.
    ///   - target: the request's target, named in errors beside the proxy.
    static func open(_ proxy: Proxy, connect authority: String?, authorization: String?, target: Target,
                     configuration: HTTPSClientConfiguration, group: any EventLoopGroup, deadline: NIODeadline) async throws(TransportError) -> Outcome {
        let attempt = Attempt(proxy: proxy, target: target, limits: configuration.timeouts)
        let channel = try await attempt.connect(overrides: configuration.addressOverrides, group: group, deadline: deadline)

        // The proxy's TLS handshake and its answer to CONNECT share the handshake limit, within the request's. The
        // limit and the task's cancellation stop them the same way.
        let stop = attempt.stop
        let limit = min(NIODeadline.now() + configuration.timeouts.handshake.timeAmount, deadline)
        let answered = channel.eventLoop.makePromise(of: HTTPResponseHead.self)
        // Every path that does not complete it fails it here; completing a completed promise is a no-op.
        defer { answered.fail(ExchangeFailure.closed) }
        let halt = { @Sendable (reason: Attempt.Stop) in
            stop.withLockedValue { if $0 == nil { $0 = reason } }
            channel.close(promise: nil)
            // Bounds the wait for CONNECT's answer even when no handler is left to report the closure.
            answered.fail(ExchangeFailure.closed)
        }
        let timer = channel.eventLoop.scheduleTask(deadline: limit) { halt(.timedOut) }
        defer { timer.cancel() }
        let outcome: Result<Outcome, TransportError> = await withTaskCancellationHandler {
            do throws(TransportError) {
                return .success(try await through(channel, attempt, authority: authority, authorization: authorization, answered: answered,
                                                  configuration: configuration))
            } catch {
                return .failure(error)
            }
        } onCancel: {
            halt(.cancelled)
        }
        // A tunnel that opened as the limit or the cancellation came has been closed by it.
        if case .success = outcome, let late = attempt.expired() { throw late }
        return try outcome.get()
    }

    /// The proxy's TLS for an `https://` proxy, then CONNECT and the tunnel.
    private static func through(_ channel: any Channel, _ attempt: Attempt, authority: String?, authorization: String?,
                                answered: EventLoopPromise<HTTPResponseHead>,
                                configuration: HTTPSClientConfiguration) async throws(TransportError) -> Outcome {
        let proxy = attempt.proxy
        if proxy.scheme == .https {
            do throws(TransportError) { try await secure(channel, proxy: proxy, configuration: configuration) } catch {
                channel.close(promise: nil)
                if let late = attempt.expired() { throw late }
                var relabelled = error
                relabelled.phase = .proxy
                relabelled.message = "the proxy \(proxy) is not trusted or its TLS failed: \(error.message)"
                throw relabelled
            }
        }
        guard let authority else { return .open(channel) }
        let sentMore = NIOLockedValueBox(false)
        let head = try await attempt.sendConnect(on: channel, to: authority, authorization: authorization, answered: answered, sentMore: sentMore)
        // Only the proxy can answer CONNECT, so a 401 is the proxy's too: tinyproxy answers a wrong credential so.
        if head.status == .proxyAuthenticationRequired || head.status == .unauthorized {
            channel.close(promise: nil)
            return .authenticationRequired(head)
        }
        guard (200..<300).contains(head.status.code) else {
            channel.close(promise: nil)
            throw attempt.failure(.proxyRefused, "the proxy refused CONNECT to \(authority) with \(head.status.code) \(head.status.reasonPhrase)")
        }
        try await attempt.openTunnel(on: channel, answer: head, sentMore: sentMore)
        return .open(channel)
    }

    /// One attempt to open a proxy connection: what its steps share to word their failures.
    private struct Attempt {
        let proxy: Proxy
        let target: Target
        let limits: Timeouts
        /// What stopped the attempt, set before the channel is closed: the handshake limit or the task's cancellation.
        let stop = NIOLockedValueBox<Stop?>(nil)

        enum Stop: Sendable {
            case timedOut
            case cancelled
        }
        /// The CONNECT handlers, made on the event loop and removed by name: handlers are not Sendable, so they never
        /// cross into the request's task.
        static let names = (encoder: "proxy-connect-encoder", decoder: "proxy-connect-decoder", handler: "proxy-connect")

        func failure(_ kind: TransportError.Kind, _ message: String, underlying: String? = nil) -> TransportError {
            TransportError(kind, phase: .proxy, host: target.host, port: target.port, "through the proxy \(proxy): \(message)", underlying: underlying)
        }

        /// The limit's failure, once the timer has fired, or the cancellation's.
        func expired() -> TransportError? {
            switch stop.withLockedValue({ $0 }) {
            case nil:
                return nil
            case .timedOut:
                return failure(.timedOut, "the proxy did not complete \(proxy.scheme == .https ? "its TLS handshake and " : "")CONNECT within \(limits.handshake.secondsText) s (or the request's time limit)")
            case .cancelled:
                return failure(.cancelled, "the request's task was cancelled before the tunnel opened; its connection to the proxy was closed")
            }
        }

        /// TCP to the proxy (or the address an override names for it; the origin itself the proxy resolves), within
        /// the connect limit or what is left of the request's.
        func connect(overrides: [String: String], group: any EventLoopGroup, deadline: NIODeadline) async throws(TransportError) -> any Channel {
            let remaining = deadline - .now()
            let connectLimit = max(min(limits.connect.timeAmount, remaining), .milliseconds(1))
            let overrideAddress: SocketAddress?
            do throws(AddressOverrides.Refusal) {
                overrideAddress = try AddressOverrides.override(in: overrides, host: proxy.host, port: proxy.port)?.address
            } catch {
                throw failure(.invalidRequest, error.sentence)
            }
            do {
                // In turn, as direct connections are (Connection.open): the origin's connection runs on this loop.
                let bootstrap = ClientBootstrap(group: group.next())
                    .connectTimeout(connectLimit)
                    .channelOption(.socketOption(.so_reuseaddr), value: 1)
                return try await (overrideAddress.map { bootstrap.connect(to: $0) } ?? bootstrap.connect(host: proxy.host, port: proxy.port))
                    .channelUnlessCancelled()
            } catch {
                if case ExchangeFailure.cancelled = error {
                    throw failure(.cancelled, "the request's task was cancelled while the TCP connection to the proxy opened")
                }
                if case ChannelError.connectTimeout = error {
                    throw failure(.timedOut, "the proxy did not accept a TCP connection within \(connectLimit.secondsText) s", underlying: "\(error)")
                }
                throw failure(.connectionFailed, "the proxy is unreachable: \(ConnectFailure(error).sentence(address: proxy.host, port: proxy.port))",
                              underlying: "\(error)")
            }
        }

        /// Sends CONNECT and waits for the proxy's answer.
        func sendConnect(on channel: any Channel, to authority: String, authorization: String?, answered: EventLoopPromise<HTTPResponseHead>,
                         sentMore: NIOLockedValueBox<Bool>) async throws(TransportError) -> HTTPResponseHead {
            let names = Self.names
            do {
                try await channel.eventLoop.submit {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(HTTPRequestEncoder(), name: names.encoder)
                    try sync.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes)), name: names.decoder)
                    try sync.addHandler(ProxyConnectHandler(authority: authority, authorization: authorization, answered: answered,
                                                              sentMore: sentMore), name: names.handler)
                }.get()
                return try await answered.futureResult.get()
            } catch {
                channel.close(promise: nil)
                if let late = expired() { throw late }
                switch error {
                case ExchangeFailure.malformedResponse(let text):
                    // NIO's parser stops at its header limits too; "not HTTP" would hide that the proxy sent too much.
                    let what = text == "\(HTTPParserError.headerOverflow)"
                        ? "the proxy's answer to CONNECT has headers over the limits this client reads (256 fields, 80 KiB a field, 2 MiB in all)"
                        : "the proxy's answer to CONNECT is not HTTP"
                    throw failure(.malformedResponse, what, underlying: text)
                case ExchangeFailure.closed:
                    throw failure(.connectionClosed, "the proxy closed the connection without answering CONNECT")
                default:
                    throw failure(.connectionClosed, "the proxy connection failed during CONNECT", underlying: "\(error)")
                }
            }
        }

        /// The tunnel is open: from here on the channel carries the target's bytes only.
        func openTunnel(on channel: any Channel, answer head: HTTPResponseHead, sentMore: NIOLockedValueBox<Bool>) async throws(TransportError) {
            let names = Self.names
            var removal: (any Error)?
            do {
                try await channel.eventLoop.flatSubmit {
                    let pipeline = channel.pipeline
                    return pipeline.removeHandler(name: names.handler).flatMap { pipeline.removeHandler(name: names.decoder) }
                        .flatMap { pipeline.removeHandler(name: names.encoder) }
                }.get()
            } catch {
                removal = error
            }
            if let late = expired() {
                channel.close(promise: nil)
                throw late
            }
            // The origin's TLS server speaks only after our ClientHello, which is not sent yet: the bytes are the proxy's.
            if sentMore.withLockedValue({ $0 }) {
                channel.close(promise: nil)
                throw failure(.malformedResponse, "the proxy answered CONNECT with \(head.status.code), then sent bytes of its own before the tunnel carried anything; they cannot be the origin's, so the tunnel is not used. Check the proxy",
                              underlying: removal.map { "\($0)" })
            }
            if let removal {
                channel.close(promise: nil)
                throw failure(.connectionClosed, "the proxy closed the tunnel as it opened", underlying: "\(removal)")
            }
        }
    }

    /// TLS to an `https://` proxy under the default ATS policy and the proxy's anchors. Pins and the trust manager
    /// are for origins and never apply here.
    private static func secure(_ channel: any Channel, proxy: Proxy, configuration: HTTPSClientConfiguration) async throws(TransportError) {
        let url = "https://\(AddressOverrides.key(host: proxy.host, port: proxy.port))/"
        let parsed: ConnectionTarget
        do throws(RequirementsError) { parsed = try ConnectionTarget(url: url) } catch {
            throw TransportError(.invalidRequest, phase: .proxy, host: proxy.host, port: proxy.port, error.description)
        }
        var own = configuration
        own.trustManager = nil
        own.anchors = proxy.anchors ?? configuration.anchors
        let plan = ConnectionPlan(peer: parsed.peer, port: proxy.port,
                                  requirements: ATSPolicy.default().requirements(for: parsed, url: url, on: .newest), settings: own.trustSettings)
        let target = Target(url: url, scheme: "https", host: proxy.host, peer: parsed.peer, port: proxy.port, path: "/", plan: plan)
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: TLSSettings.configuration(for: try plan.tlsParameters(), identity: nil))
        } catch {
            throw TransportError(.internalError, phase: .proxy, host: proxy.host, port: proxy.port, "the TLS context for the proxy could not be made (the TLS library's reason is in underlying)", underlying: "\(error)")
        }
        let observation = HandshakeObservation()
        let verifier = HandshakeVerifier(plan: plan, challengeHandler: nil, observation: observation)
        let done = channel.eventLoop.makePromise(of: Void.self)
        // Unfulfilled when the handlers could not go in (the proxy closed first); completing it twice is a no-op.
        defer { done.fail(ExchangeFailure.closed) }
        do {
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandlers(
                    Connection.tlsHandlers(context: context, serverName: verifier.plan.serverName, verifier: verifier,
                                           observation: observation, handshakePromise: done))
            }.get()
            try await done.futureResult.get()
        } catch {
            verifier.cancel()
            if let refusal = verifier.outcome?.refusal { throw refusal }
            throw HandshakeFailureClassifier(target: target, observation: observation, verifier: verifier).classify(error, identityPresented: false)
        }
        guard let outcome = verifier.outcome, outcome.refusal == nil else {
            throw TransportError(.serverTrustRefused, phase: .proxy, host: proxy.host, port: proxy.port,
                                 ConnectionPlan.unevaluatedHandshake.message)
        }
    }
}

/// Sends CONNECT once the channel is active and reports the proxy's response head once the response has ended.
final class ProxyConnectHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    /// A proxy's error page is read to its end, up to this much, so that the 407's connection ends cleanly.
    static let maximumBodyBytes = 64 << 10

    private let authority: String
    private let authorization: String?
    private let answered: EventLoopPromise<HTTPResponseHead>
    /// Set when anything follows the answer before the tunnel is handed over.
    private let sentMore: NIOLockedValueBox<Bool>
    private var head: HTTPResponseHead?
    private var bodyBytes = 0
    private var sent = false
    private var done = false

    init(authority: String, authorization: String?, answered: EventLoopPromise<HTTPResponseHead>,
         sentMore: NIOLockedValueBox<Bool> = NIOLockedValueBox(false)) {
        self.authority = authority
        self.authorization = authorization
        self.answered = answered
        self.sentMore = sentMore
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { sendConnect(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendConnect(context)
        context.fireChannelActive()
    }

    private func sendConnect(_ context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        var headers = HTTPHeaders([("host", authority)])
        if let authorization { headers.add(name: "proxy-authorization", value: authorization) }
        context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .CONNECT, uri: authority, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return answeredAlready(context) }
        switch unwrapInboundIn(data) {
        case .head(let received):
            head = received
        case .body(let chunk):
            bodyBytes += chunk.readableBytes
            if bodyBytes > Self.maximumBodyBytes { finish(.failure(ExchangeFailure.malformedResponse("an answer to CONNECT longer than \(Self.maximumBodyBytes) bytes")), context) }
        case .end:
            guard let head else { return finish(.failure(ExchangeFailure.malformedResponse("no response head")), context) }
            finish(.success(head), context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !done else {
            // After the answer, the decoder fails on whatever bytes came next; other errors are the connection's.
            if error is HTTPParserError || error is NIOHTTPDecoderError { return answeredAlready(context) }
            return context.close(promise: nil)
        }
        let failure: ExchangeFailure = error is HTTPParserError ? .malformedResponse("\(error)") : .error("\(error)", isTLS: false)
        finish(.failure(failure), context)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(.failure(ExchangeFailure.closed), context)
        context.fireChannelInactive()
    }

    /// Removed before the proxy answered: added to a channel that had already closed (the proxy closed it as it
    /// accepted), it never sees channelInactive, only this when NIO tears the pipeline down.
    func handlerRemoved(context: ChannelHandlerContext) {
        finish(.failure(ExchangeFailure.closed), context)
    }

    /// Bytes after the proxy's answer: nothing may come before the target's first bytes, which need ours first.
    private func answeredAlready(_ context: ChannelHandlerContext) {
        sentMore.withLockedValue { $0 = true }
        context.close(promise: nil)
    }

    private func finish(_ result: Result<HTTPResponseHead, any Error>, _ context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        answered.completeWith(result)
    }
}
