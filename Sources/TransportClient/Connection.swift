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
    let scheme: String
    let host: String
    let port: Int
    /// The TLS settings and identity; connections made under other requirements are not reused.
    let settings: String
    /// The proxy the connection goes through (``Proxy/description``), or empty for a direct connection.
    let proxy: String
    /// Hashed once: the pool looks a key up several times a request, and `settings` is long.
    private let hash: Int

    init(scheme: String, host: String, port: Int, settings: String, proxy: String = "") {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.settings = settings
        self.proxy = proxy
        var hasher = Hasher()
        hasher.combine(scheme)
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(settings)
        hasher.combine(proxy)
        hash = hasher.finalize()
    }

    static func == (a: PoolKey, b: PoolKey) -> Bool {
        a.hash == b.hash && a.port == b.port && a.scheme == b.scheme && a.host == b.host && a.settings == b.settings && a.proxy == b.proxy
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}

/// A request's destination. A class: requests, redirects and the request loop hand it around, and as a value each
/// copy retained every one of its strings and its plan.
final class Target: Sendable {
    let url: String
    let scheme: String
    /// The host in canonical form: ``peer``'s text.
    let host: String
    let peer: PeerName
    let port: Int
    let path: String
    /// Everything decided for this target before a byte is sent, resolved once (`ConnectionPlan.resolving`): every
    /// connection to it is opened with this plan.
    let plan: ConnectionPlan
    /// ``TLSSettings/requirementsKey(for:)`` of ``requirements``: every request's pool key holds it.
    let tlsKey: String
    /// The event loop this origin's connections were last on, shared by its targets.
    let loopHint: LoopHint
    /// The proxy requests to this target go through, if any, as the client's configuration says.
    let route: Proxy?
    /// The client's own identity for this host (https only), presented unless a challenge handler picks another.
    let identity: ClientIdentity?
    /// The pool key of a connection presenting ``identity`` through ``route``, made once: most requests use it.
    private let ownPoolKey: PoolKey
    /// The Host header's value: the host, bracketed when it is an IPv6 address, and the port unless it is the scheme's.
    let hostHeader: String

    var requirements: ConnectionRequirements { plan.requirements }

    /// The pool key of a connection presenting `identity` through ``route``.
    func poolKey(identity: ClientIdentity?) -> PoolKey {
        if identity?.cacheKey == self.identity?.cacheKey { return ownPoolKey }
        return Self.poolKey(scheme: scheme, host: host, port: port, tlsKey: tlsKey, identity: identity, proxy: route)
    }

    private static func poolKey(scheme: String, host: String, port: Int, tlsKey: String, identity: ClientIdentity?, proxy: Proxy?) -> PoolKey {
        PoolKey(scheme: scheme, host: host, port: port,
                settings: scheme == "https" ? TLSSettings.cacheKey(requirementsKey: tlsKey, identity: identity) : "",
                proxy: proxy?.description ?? "")
    }

    /// - Parameters:
    ///   - identity: the client's own identity for this host, and `route` the proxy it goes through, as decided once.
    init(url: String, scheme: String, host: String, peer: PeerName, port: Int, path: String, plan: ConnectionPlan, loopHint: LoopHint = LoopHint(),
         identity: ClientIdentity? = nil, route: Proxy? = nil) {
        self.url = url
        self.scheme = scheme
        self.host = host
        self.peer = peer
        self.port = port
        self.path = path
        self.plan = plan
        self.loopHint = loopHint
        tlsKey = TLSSettings.requirementsKey(for: plan.requirements)
        self.identity = identity
        self.route = route
        let defaultPort = scheme == "https" ? 443 : 80
        hostHeader = (host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host) + (port == defaultPort ? "" : ":\(port)")
        ownPoolKey = Self.poolKey(scheme: scheme, host: host, port: port, tlsKey: tlsKey, identity: identity, proxy: route)
    }
}

/// The event loop an origin's connections were last on. A request to it runs there from its start, so that its waits
/// for that connection end on the loop it already runs on; a request on another loop paid a hop to the connection's
/// loop and one back, which at 100 concurrent HTTP/2 streams cost about 15% of the client's CPU (docs/BENCHMARKS.md).
final class LoopHint: Sendable {
    private let loop = NIOLockedValueBox<(any EventLoop)?>(nil)

    var value: (any EventLoop)? { loop.withLockedValue { $0 } }

    func remember(_ eventLoop: any EventLoop) {
        loop.withLockedValue { if $0 !== eventLoop { $0 = eventLoop } }
    }
}

/// One open connection, TLS or plain, with the decision made when it was opened.
final class Connection: Sendable {
    let channel: any Channel
    let key: PoolKey
    let report: ConnectionReport
    private let death: NIOLockedValueBox<ExchangeFailure?>
    /// The HTTP/2 connection this is a stream of; nil for an HTTP/1.1 connection. A stream is one exchange: closing
    /// it resets the stream, never the connection.
    let session: HTTP2Session?
    private let stream: HTTP2StreamHandle?

    init(channel: any Channel, key: PoolKey, report: ConnectionReport, death: NIOLockedValueBox<ExchangeFailure?>) {
        self.channel = channel
        self.key = key
        self.report = report
        self.death = death
        self.session = nil
        self.stream = nil
    }

    /// A stream of an HTTP/2 connection.
    init(stream: HTTP2StreamHandle, session: HTTP2Session) {
        self.channel = session.channel
        self.key = session.key
        self.report = session.report
        self.death = session.death
        self.session = session
        self.stream = stream
    }

    /// What ALPN settled, and the handlers it put in place.
    enum Negotiated: Sendable {
        case http1(NIOLoopBound<ExchangeHandler>)
        case http2(NIOLoopBound<HTTP2ClientHandler>, goingAway: NIOLockedValueBox<HTTP2StreamID?>, streams: NIOLockedValueBox<StreamCount>)

        var isHTTP2: Bool {
            if case .http2 = self { return true }
            return false
        }
    }

    var isActive: Bool { channel.isActive }

    /// Closes the connection; for a stream, resets the stream while its response is still coming.
    func close() {
        guard let stream, let session else { return channel.close(promise: nil) }
        // A stream that ended costs no visit to the loop.
        guard stream.isOpen else { return }
        let handler = session.handler
        channel.eventLoop.execute {
            handler.value.cancel(stream.token, failure: .closed)
            stream.end()
        }
    }

    // MARK: Opening

    static let http2NeedsTLS = "HTTP/2 is spoken only over TLS here (h2, negotiated by ALPN); plain http:// uses HTTP/1.1"

    /// - Parameter tunnel: a channel already open to a proxy (and through its CONNECT tunnel, for https); nil to
    ///   connect to the target directly. The target's handshake and evaluation are the same either way.
    static func open(target: Target, key: PoolKey, configuration: HTTPSClientConfiguration, identity: ClientIdentity?,
                     sslContext: NIOSSLContext?, group: any EventLoopGroup, deadline: NIODeadline,
                     over tunnel: (any Channel)? = nil) async throws(TransportError) -> Connection {
        // Through a tunnel the proxy reaches the target: an override for it does not apply.
        let override: (text: String, address: SocketAddress)?
        do throws(AddressOverrides.Refusal) {
            override = tunnel == nil ? try AddressOverrides.override(in: configuration.addressOverrides, host: target.host, port: target.port) : nil
        } catch {
            throw TransportError(.invalidRequest, phase: .connect, host: target.host, port: target.port, error.sentence)
        }
        let verifier = HandshakeVerifier(plan: target.plan, challengeHandler: configuration.challengeHandler,
                                         observation: HandshakeObservation())
        // The group's loops in turn, not the request's own: requests to one origin start on one loop (LoopHint), and a
        // burst of them would otherwise put every new connection on it, handshakes and all. The next request to
        // reuse this connection starts on its loop.
        let setup = PipelineSetup(isTLS: target.scheme == "https", sslContext: sslContext, verifier: verifier,
                                  eventLoop: tunnel?.eventLoop ?? group.next())
        // Every path that does not succeed its promises fails them here (a tunnel that closed before the handlers went
        // in would otherwise leave the handshake's promise unfulfilled); completing a completed promise is a no-op.
        defer { setup.failUnfinished() }
        let channel: any Channel
        if let tunnel {
            channel = try await setup.install(over: tunnel, host: target.host, port: target.port)
        } else {
            channel = try await setup.connect(host: target.host, port: target.port, override: override, limits: configuration.timeouts,
                                              deadline: deadline)
        }
        try await setup.awaitHandshake(on: channel, target: target, limits: configuration.timeouts, deadline: deadline,
                                       identityPresented: identity != nil)
        return try await setup.connection(on: channel, target: target, key: key, configuration: configuration)
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

    /// The response head, and the end of the body: already there for a buffered response, to come for a streamed one.
    struct Started: Sendable {
        var head: HTTPResponseHead
        var end: ExchangeCompletion
        /// A streamed response's body.
        var body: BodyBuffer? { end.body }

        /// The end of the response; a buffered one's is there already, and costs no suspension.
        func finished() async throws -> ExchangeEnd { try await end.end() }
    }

    /// Sends a request and waits for the response head, or for the whole response when it is buffered (not
    /// `streaming`): one wait instead of two. The request deadline closes the connection (resets the stream, on HTTP/2)
    /// when it passes, whether the head or the body is still awaited.
    func start(head: HTTPRequestHead, body: [UInt8]?, limit: Int, deadline: NIODeadline,
               streaming: Bool) async throws(TransportError) -> Started {
        let head = session == nil ? head : HTTP2Session.removingConnectionHeaders(head)
        let responseBody = streaming ? BodyBuffer() : nil
        let request = ExchangeRequest(head: head, body: body, limit: limit, responseBody: responseBody,
                                      deadline: deadline)
        let completion = request.completion
        do {
            // A task cancelled already sends nothing. (HTTPSClient looks first and keeps the connection; this is for a
            // cancellation that came between its look and here.)
            guard !Task.isCancelled else {
                close()
                throw ExchangeFailure.cancelled
            }
            // Cancelled while it waits, the exchange ends at once, as a cancelled URLSession task does, and the rest
            // of its response is not read: the connection closes (on HTTP/2, the stream is reset).
            try await withTaskCancellationHandler {
                guard streaming else { return try await sending(request) { completion.awaitEnd(.task($0)) } }
                try await sending(request) { completion.awaitHead($0) }
            } onCancel: {
                if completion.fail(.cancelled) { close() }
            }
            return Started(head: try streaming ? completion.receivedHead() : completion.ended().head, end: completion)
        } catch {
            throw mapExchangeError(error, phase: .response)
        }
    }

    /// Waits (`wait` registers the continuation with the exchange's completion) while the request is handed to the
    /// connection on its event loop: at once when the request already runs on that loop (EventLoopExecutors), which
    /// saves a task, and a closure, each an allocation. The completion resumes the task straight from the loop.
    private func sending(_ request: ExchangeRequest, wait: (ExchangeCompletion.Waiter) -> Void) async throws {
        try await withUnsafeThrowingContinuation { continuation in
            wait(continuation)
            if channel.eventLoop.inEventLoop { send(request) } else { channel.eventLoop.execute { self.send(request) } }
        }
    }

    /// Hands the request to its exchange handler; on the event loop. HTTP/1.1: run on the loop, the channel cannot
    /// close between the look and the write. A write to a connection that has already closed never reaches the
    /// handler: the exchange ends here, with the reason the connection died when one was seen. An open one's handler
    /// takes the request over, failures included, so the write needs no promise of its own. The time limit is the
    /// handler's (``DeadlineSchedule``).
    private func send(_ request: ExchangeRequest) {
        if let stream, let session { return session.handler.value.start(request, handle: stream) }
        guard channel.isActive else {
            let failure = ExchangeFailure.unsent(after: death.withLockedValue { $0 })
            request.completion.fail(failure)
            return
        }
        channel.writeAndFlush(request, promise: nil)
    }

    func mapExchangeError(_ error: any Error, phase: TransportError.Phase) -> TransportError {
        let host = report.host
        let port = report.port
        switch error {
        case ExchangeFailure.timedOut:
            return TransportError(.timedOut, phase: phase, host: host, port: port,
                                  "no complete response before the request's time limit", verdict: report.verdict, handshake: report.handshake)
        case ExchangeFailure.cancelled:
            return .cancelled(phase, host: host, port: port, "before its response was read to the end; its connection was closed",
                              verdict: report.verdict, handshake: report.handshake)
        case ExchangeFailure.concurrentRead:
            return TransportError(.invalidRequest, phase: .response, host: host, port: port,
                                  "two tasks read the same streamed body at once; read a StreamingHTTPResponse's body from one task")
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
            return connectionError(text, isTLS: isTLS, phase: phase)
        default:
            return TransportError(.internalError, phase: phase, host: host, port: port, "the exchange ended by an unexpected error (see underlying)",
                                  underlying: "\(error)")
        }
    }

    /// An error the channel reported during the exchange: a client certificate refused late (TLS 1.3), a reset, or
    /// a TLS failure with BoringSSL's reason in words.
    private func connectionError(_ text: String, isTLS: Bool, phase: TransportError.Phase) -> TransportError {
        let host = report.host
        let port = report.port
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
