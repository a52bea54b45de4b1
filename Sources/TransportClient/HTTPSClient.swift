import AppTransportSecurity
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import TransportDecision
import TransportTrust

/// An HTTPS client (HTTP/1.1, and HTTP/2 where ALPN agrees) that enforces ATS, server trust and pins during the TLS handshake.
///
/// Each request's requirements are resolved by AppTransportSecurity for its URL (the same code as `ats check`),
/// turned into a TLS configuration (minimum version, allowed suites, SNI) and a verification callback that runs
/// the trust manager's evaluator for the host. The negotiated version and suite are read from the ServerHello
/// and the connection as a whole is checked against the requirements before any request byte is sent.
///
/// ```swift
/// let client = HTTPSClient(configuration: HTTPSClientConfiguration(trustManager: manager))
/// let response = try await client.execute(HTTPRequest(url: "https://api.example.com/v1/items"))
/// ```
///
/// Connections are kept per (scheme, host, port) and reused; every new connection is evaluated. swift-nio-ssl
/// never resumes a client session, so every handshake runs the verification callback; a handshake that
/// completes without it is refused.
public final class HTTPSClient: Sendable {
    /// What every request of this client is held to.
    public let configuration: HTTPSClientConfiguration
    let group: any EventLoopGroup
    /// Where each request's own code runs: on a loop, so that its waits end on time under load.
    let executors: EventLoopExecutors
    let pool: ConnectionPool
    let contexts = NIOLockedValueBox<[String: NIOSSLContext]>([:])
    /// URL → its parsed target and ATS requirements (successes only).
    let targets = NIOLockedValueBox<[String: Target]>([:])
    /// scheme://host:port → the loop hint its targets share.
    private let loopHints = NIOLockedValueBox<[String: LoopHint]>([:])
    let sessionCredentials = InMemoryCredentialStore()
    /// Proxy → the Proxy-Authorization that last opened it, sent first on the next connection through it.
    let proxyAuthorizations = NIOLockedValueBox<[String: String]>([:])
    private let ownedOCSPSource: HTTPOCSPResponseSource?
    private let ownedCRLSource: HTTPCRLSource?

    /// A client that holds every request to `configuration`.
    /// - Parameters:
    ///   - configuration: ATS, trust, pins, identities and limits; fixed for the client's life.
    ///   - eventLoopGroup: the loops to run on; by default NIO's shared singleton group.
    public init(configuration: HTTPSClientConfiguration = HTTPSClientConfiguration(), eventLoopGroup: (any EventLoopGroup)? = nil) {
        var configuration = configuration
        // A trust manager's evaluators may check revocation (RevocationTrustEvaluator) when the client does not.
        let mayCheck = configuration.revocation != .off || configuration.trustManager != nil
        // Revocation goes the way the requests go: through the proxy, when there is one.
        let ocsp = mayCheck && configuration.ocspSource == nil
            ? HTTPOCSPResponseSource(timeout: configuration.revocationFetchTimeout, addressOverrides: configuration.addressOverrides, proxy: configuration.proxy) : nil
        let crl = mayCheck && configuration.crlSource == nil
            ? HTTPCRLSource(timeout: configuration.revocationFetchTimeout, addressOverrides: configuration.addressOverrides, proxy: configuration.proxy) : nil
        if let ocsp { configuration.ocspSource = ocsp }
        if let crl { configuration.crlSource = crl }
        ownedOCSPSource = ocsp
        ownedCRLSource = crl
        self.configuration = configuration
        self.group = eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton
        self.executors = EventLoopExecutors(group)
        self.pool = ConnectionPool(maximumPerKey: configuration.maximumIdleConnectionsPerHost, maximumIdle: configuration.maximumIdleConnections,
                                   idleTimeout: configuration.idleConnectionTimeout.timeAmount)
    }

    /// Closes idle connections. Requests in flight finish or fail on their own.
    public func shutdown() async {
        pool.shutdown()
        await ownedOCSPSource?.shutdown()
        await ownedCRLSource?.shutdown()
    }

    /// Idle pooled connections, for tests and diagnostics.
    public var idleConnectionCount: Int { get async { pool.idleCount } }

    // MARK: Public entry points

    /// Sends `request`, follows redirects and answers authentication challenges, and reads the body into memory
    /// (up to ``HTTPSClientConfiguration/maximumResponseBytes``).
    ///
    /// Cancelling the calling task during the TLS handshake or while the response is awaited ends the request at once
    /// with a ``TransportError`` of kind ``TransportError/Kind/cancelled``, as URLSession ends a cancelled task.
    public func execute(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let first = try target(for: request.url, parsed: request.parsedTarget, phase: .requirements)
        return try await executors.run(preferring: first.loopHint.value) { () async throws(TransportError) in
            try await executeOnLoop(request, first)
        }
    }

    private func executeOnLoop(_ request: HTTPRequest, _ first: Target) async throws(TransportError) -> HTTPResponse {
        let outcome = try await perform(request, first, streaming: false)
        let end: ExchangeEnd
        do { end = try await outcome.started.finished() } catch {
            throw outcome.connection.mapExchangeError(error, phase: .response)
        }
        release(outcome.connection, reusable: end.reusable)
        return HTTPResponse(status: outcome.started.head.status, headers: outcome.started.head.headers, body: end.body,
                            url: outcome.url, redirects: outcome.redirects, connection: outcome.connection.report)
    }

    /// Like ``execute(_:)``, but hands the final response's body over as it arrives, without a size limit.
    ///
    /// A caller that reads slowly holds the server back: about 256 KiB at most is buffered ahead of it, then the
    /// client stops reading the connection (on HTTP/2, the stream) until the caller catches up.
    ///
    /// Only the final response is streamed. The client reads the bodies before it itself: a redirect's up to 1 MiB
    /// (past that it closes the connection rather than read on), and a 401's into memory, up to
    /// ``HTTPSClientConfiguration/maximumResponseBytes``, for the challenge handler and as the body when the 401 is
    /// the answer.
    ///
    /// The body ends with a ``TransportError`` when the exchange fails (a timeout, a reset). A caller that stops
    /// reading before the end closes the connection, which is then not reused.
    public func stream(_ request: HTTPRequest) async throws(TransportError) -> StreamingHTTPResponse {
        let first = try target(for: request.url, parsed: request.parsedTarget, phase: .requirements)
        return try await executors.run(preferring: first.loopHint.value) { () async throws(TransportError) in
            try await streamOnLoop(request, first)
        }
    }

    private func streamOnLoop(_ request: HTTPRequest, _ first: Target) async throws(TransportError) -> StreamingHTTPResponse {
        let outcome = try await perform(request, first, streaming: true)
        guard let buffer = outcome.started.body else {
            throw TransportError(.internalError, phase: .response, host: outcome.connection.report.host, port: outcome.connection.report.port,
                                 "no body stream was set up")
        }
        let connection = outcome.connection
        let pool = self.pool
        outcome.started.end.whenEnded { result in
            guard case .success(let end) = result, end.reusable else { return connection.close() }
            pool.put(connection)
        }
        // The exchange ends its body with its own failures; the caller gets them as TransportErrors. Bytes are
        // taken from the exchange only as the caller asks for them, so a slow caller holds the server back
        // (BodyBuffer) instead of having the whole body buffered for it.
        let reader = BodyReader(buffer, connection: connection)
        let body = AsyncThrowingStream<[UInt8], any Error> {
            do {
                guard let chunk = try await reader.next() else {
                    // Cancelled mid-body, the exchange's body ends early: the rest is never read, so not reused.
                    if Task.isCancelled { connection.close() }
                    return nil
                }
                return chunk
            } catch {
                throw connection.mapExchangeError(error, phase: .response)
            }
        }
        return StreamingHTTPResponse(status: outcome.started.head.status, headers: outcome.started.head.headers, url: outcome.url,
                                     redirects: outcome.redirects, connection: connection.report, body: body, buffer: buffer)
    }

    /// The requirements a URL would be held to, as resolved for requests.
    public func requirements(for url: String) throws(TransportError) -> ConnectionRequirements {
        try target(for: url, phase: .requirements).requirements
    }

    // MARK: The request loop

    private struct Final {
        var started: Connection.Started
        var connection: Connection
        var url: String
        var redirects: [String]
    }

    /// Sends, reads and answers as ``RequestLoop`` decides, until a response is the answer.
    private func perform(_ original: HTTPRequest, _ first: Target, streaming: Bool) async throws(TransportError) -> Final {
        let deadline = NIODeadline.now() + (original.timeout ?? configuration.timeouts.request).timeAmount
        if let problem = HTTPSyntax.problem(method: original.method, headers: original.headers) {
            throw TransportError(.invalidRequest, phase: .request, host: first.host, port: first.port, "\(problem); nothing was sent")
        }
        var loop = RequestLoop(request: original, target: first, limits: RequestLoop.Limits(configuration))
        while true {
            let (connection, started) = try await send(loop.request, to: loop.target, deadline: deadline, streaming: streaming)
            let target = loop.target
            let (next, accepted) = loop.received(status: started.head.status.code, headers: started.head.headers, proxy: target.route)
            for credential in accepted { await remember(credential.credential, for: credential.space) }
            switch next {
            case .redirect(let status, let location):
                try await drain(started, connection)
                try loop.follow(status, to: location) { (url: String) throws(TransportError) -> Target in
                    try self.target(for: url, phase: .redirect, checkScheme: false)
                }
            case .proxyChallenge(let proxy):
                // A remembered credential goes ahead of the caller's, so a 407 here refuses it.
                proxyAuthorizations.withLockedValue { $0[proxy.description] = nil }
                let (end, failure) = try await readWhole(started, on: connection, request: loop.request, redirects: loop.redirects)
                release(connection, reusable: end.reusable)
                loop.proxyChallengeAnswered(try await answerProxyChallenge(started.head, proxy: proxy, target: loop.target,
                                                                           failures: &loop.proxyFailures, failure: failure))
            case .challenge(let challenges):
                let exchange = Exchanged(started: started, connection: connection)
                if let response = try await unauthorized(exchange, challenges, loop: &loop, streaming: streaming) { return response }
            case .deliver:
                return Final(started: started, connection: connection, url: loop.request.url, redirects: loop.redirects)
            }
        }
    }

    /// One exchange whose response head has arrived.
    private struct Exchanged {
        var started: Connection.Started
        var connection: Connection
    }

    /// A 401 with challenges: nil when the loop's request now carries a credential and goes again, or the response
    /// when no credential answers (the 401 is then the answer, as URLSession returns it).
    private func unauthorized(_ exchange: Exchanged, _ challenges: [HTTPAuthChallenge], loop: inout RequestLoop,
                              streaming: Bool) async throws(TransportError) -> Final? {
        let connection = exchange.connection
        let (end, failure) = try await readWhole(exchange.started, on: connection, request: loop.request, redirects: loop.redirects)
        let answered: Answer?
        do throws(TransportError) {
            try loop.mayAnswerChallenge()
            answered = try await answer(challenges, failure: failure, request: loop.request, target: loop.target,
                                        lastSent: loop.pendingCredential, book: &loop.challenges)
        } catch {
            // A refused or cancelled challenge ends the request, not the connection, whose exchange is complete.
            release(connection, reusable: end.reusable)
            throw error
        }
        if loop.challengeAnswered(answered) {
            release(connection, reusable: end.reusable)
            return nil
        }
        // Whoever reads the response releases the connection, once: it was pooled twice here and went to two
        // requests at a time.
        return Final(started: replayed(end, started: exchange.started, streaming: streaming), connection: connection,
                     url: loop.request.url, redirects: loop.redirects)
    }

    /// A challenge read to its end: the response the challenge handler sees, and the one returned when it is not
    /// answered. Streamed, its body is held to the limit a buffered one is.
    private func readWhole(_ started: Connection.Started, on connection: Connection,
                           request: HTTPRequest, redirects: [String]) async throws(TransportError) -> (end: ExchangeEnd, response: HTTPResponse) {
        let end = try await intermediate(started, on: connection, phase: .response, keep: configuration.maximumResponseBytes)
        return (end, HTTPResponse(status: started.head.status, headers: started.head.headers, body: end.body, url: request.url,
                                  redirects: redirects, connection: connection.report))
    }

    /// A 401 whose body was already read, presented as a final response.
    private func replayed(_ end: ExchangeEnd, started: Connection.Started, streaming: Bool) -> Connection.Started {
        var copy = started
        copy.end = ExchangeCompletion(ended: ExchangeEnd(head: end.head, body: streaming ? [] : end.body, reusable: end.reusable),
                                      body: streaming ? BodyBuffer(complete: end.body) : nil)
        return copy
    }

    private func drain(_ started: Connection.Started, _ connection: Connection) async throws(TransportError) {
        let end = try await intermediate(started, on: connection, phase: .redirect, keep: nil)
        release(connection, reusable: end.reusable)
    }

    /// How much of a redirect's streamed body is read to keep its connection; past it, closing the connection is cheaper.
    static let discardedBodyLimit = 1 << 20

    /// The end of a response the caller never sees (a redirect, a challenge). When it is streamed nobody else reads
    /// its body, and reading pauses at ``BodyBuffer/high`` until someone does: it is read here. `keep` bytes are
    /// kept (more fails as too large); with `keep` nil the body is dropped, and past ``discardedBodyLimit`` its
    /// connection with it.
    private func intermediate(_ started: Connection.Started, on connection: Connection,
                              phase: TransportError.Phase, keep: Int?) async throws(TransportError) -> ExchangeEnd {
        do {
            guard let buffer = started.body else { return try await started.finished() }
            var body: [UInt8] = []
            var dropped = 0
            while let chunk = try await buffer.next() {
                if let keep {
                    guard body.count + chunk.count <= keep else { throw ExchangeFailure.tooLarge(limit: keep) }
                    body += chunk
                } else {
                    dropped += chunk.count
                    if dropped > Self.discardedBodyLimit {
                        connection.close()
                        return ExchangeEnd(head: started.head, body: [], reusable: false)
                    }
                }
            }
            // A cancelled read ends early: what is left is never read, and reading may be paused, so waiting for the
            // end could last until the deadline.
            if Task.isCancelled { throw ExchangeFailure.cancelled }
            var end = try await started.finished()
            end.body = body
            return end
        } catch {
            connection.close()
            throw connection.mapExchangeError(error, phase: phase)
        }
    }

    private func release(_ connection: Connection, reusable: Bool) {
        if reusable { pool.put(connection) } else { connection.close() }
    }

    // MARK: Targets and requirements

    /// - Parameter checkScheme: false for redirects, whose https → http check has its own error.
    /// - Parameter parsed: the URL already parsed at the boundary (``HTTPRequest/parsedTarget``), so that it is not
    ///   parsed again.
    func target(for url: String, parsed: ConnectionTarget? = nil, phase: TransportError.Phase, checkScheme: Bool = true) throws(TransportError) -> Target {
        // The configuration is fixed, so a URL resolves the same way every time: parsing it and resolving its ATS
        // requirements again was most of a keep-alive request's own work.
        let target: Target
        if let known = targets.withLockedValue({ $0[url] }) {
            target = known
        } else {
            target = try resolveTarget(for: url, parsed: parsed, phase: phase)
            targets.withLockedValue {
                if $0.count >= Self.rememberedTargets { $0.removeAll(keepingCapacity: true) }
                $0[url] = target
            }
        }
        if checkScheme && target.scheme == "http" && !target.requirements.allowsInsecureHTTP.value {
            throw TransportError(.insecureHTTPRefused, phase: phase, host: target.host, port: target.port,
                                 "plain HTTP to \(target.host) is blocked (\(target.requirements.allowsInsecureHTTP.because)); use https, or allow it with NSExceptionAllowsInsecureHTTPLoads in NSExceptionDomains › \(target.host) (or NSAllowsArbitraryLoads)")
        }
        return target
    }

    /// How many URLs' targets a client remembers; past that it starts again, so memory stays bounded.
    static let rememberedTargets = 256

    /// The loop hint of an origin, made when the first of its URLs is resolved; bounded as ``targets`` is.
    private func loopHint(scheme: String, host: String, port: Int) -> LoopHint {
        loopHints.withLockedValue { hints in
            let origin = "\(scheme)://\(host):\(port)"
            if let known = hints[origin] { return known }
            if hints.count >= Self.rememberedTargets { hints.removeAll(keepingCapacity: true) }
            let hint = LoopHint()
            hints[origin] = hint
            return hint
        }
    }

    /// `url` parsed once, the one parse of a request's URL (``ConnectionTarget``), with its refusals in the client's words.
    package static func parse(_ url: String, phase: TransportError.Phase) throws(TransportError) -> ConnectionTarget {
        if let problem = URLText.problem(in: url) {
            throw TransportError(.invalidRequest, phase: phase, host: "", port: 0, "\(url.debugDescription) is not a URL: it has \(problem)")
        }
        // Refused before the parse: ConnectionTarget reads ws and wss as ATS does (as http and https), and the
        // client speaks neither.
        if let scheme = URLText.scheme(of: url), scheme != "https" && scheme != "http" {
            throw TransportError(.invalidRequest, phase: phase, host: "", port: 0, "'\(scheme)' URLs are not supported: only https, and http where ATS allows it")
        }
        do throws(RequirementsError) { return try ConnectionTarget(url: url) } catch {
            guard case .invalidURL(_, let reason) = error else { throw TransportError(.invalidRequest, phase: phase, host: "", port: 0, error.description) }
            throw TransportError(.invalidRequest, phase: phase, host: "", port: 0, "'\(url)' is not an absolute http or https URL: \(reason)")
        }
    }

    private func resolveTarget(for url: String, parsed: ConnectionTarget?, phase: TransportError.Phase) throws(TransportError) -> Target {
        let parsed = if let parsed { parsed } else { try Self.parse(url, phase: phase) }
        let (scheme, host, peer, port) = (parsed.scheme, parsed.host, parsed.peer, parsed.port)
        guard (1...65535).contains(port) else {
            throw TransportError(.invalidRequest, phase: phase, host: host, port: port, "port \(port) is out of range")
        }
        switch ConnectionPlan.resolving(parsed, url: url, ats: configuration.ats, platform: configuration.platform,
                                        settings: configuration.trustSettings) {
        case .success(let plan):
            return Target(url: url, scheme: scheme, host: host, peer: peer, port: port, path: parsed.path, plan: plan,
                          loopHint: loopHint(scheme: scheme, host: host, port: port),
                          identity: scheme == "https" ? configuration.identity(forHost: host) : nil,
                          route: configuration.proxy?.proxy(scheme: scheme, host: host))
        case .failure(let refusal):
            throw TransportError(.hostNotAllowed, phase: phase, host: host, port: port, refusal.message,
                                 verdict: .refused(TrustFailure(.hostNotAllowed, certificate: nil, refusal.message)))
        }
    }

    func sslContext(for target: Target, identity: ClientIdentity?) throws(TransportError) -> NIOSSLContext {
        let (host, port) = (target.host, target.port)
        let key = TLSSettings.cacheKey(requirementsKey: target.tlsKey, identity: identity)
        if let cached = contexts.withLockedValue({ $0[key] }) { return cached }
        var tls: TLSConfiguration
        do throws(ConnectionPlanError) { tls = TLSSettings.configuration(for: try target.plan.tlsParameters(), identity: identity) } catch {
            throw TransportError(.atsRefused, phase: .handshake, host: host, port: port, error.description)
        }
        // Per client, so the key above need not name it.
        tls.applicationProtocols = configuration.httpVersions.alpn
        let context: NIOSSLContext
        do { context = try NIOSSLContext(configuration: tls) } catch {
            throw TransportError(identity == nil ? .internalError : .invalidClientIdentity, phase: .handshake, host: host, port: port,
                                 identity == nil ? "the TLS context could not be made (the TLS library's reason is in underlying)"
                                     : "the TLS library refused the client identity's certificate or key; check that the key belongs to the certificate",
                                 underlying: "\(error)")
        }
        contexts.withLockedValue { $0[key] = context }
        return context
    }
}

/// The reading end of a streamed body. The stream calls ``next()`` once at a time, which is what makes the unchecked
/// conformance hold. A body dropped or cancelled before its end closes the connection, whose rest is never read.
private final class BodyReader: @unchecked Sendable {
    private let buffer: BodyBuffer
    private var ended = false
    private let connection: Connection

    init(_ buffer: BodyBuffer, connection: Connection) {
        self.buffer = buffer
        self.connection = connection
    }

    func next() async throws -> [UInt8]? {
        do {
            let chunk = try await buffer.next()
            if chunk == nil { ended = true }
            return chunk
        } catch {
            ended = true
            throw error
        }
    }

    deinit {
        if !ended { connection.close() }
    }
}
