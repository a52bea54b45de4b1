import TestSupport
import ATSTestServers
import TestServersSupport
import ATSCommandLine
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Testing
import TransportTrust

@testable import TransportClient

/// HTTP/2 against a real server, nghttpd: ALPN, streams over one connection within the server's bound, trust and pins
/// evaluated before any frame, and fallback to HTTP/1.1 where the server offers only that.
@Suite struct HTTPSClientHTTP2Tests {
    let host = "www.example.test"
    static let missing = "nghttpd is not installed (apt-get install nghttp2-server; .ci/run does)"

    @Test(.enabled(if: Nghttpd.path != nil, "\(missing)"))
    func aRequestOverHTTP2IsEvaluatedAsAnyOther() async throws {
        let pki = ServerPKI()
        let server = try await Nghttpd.start(pki, files: ["index.html": Array("over h2".utf8)])
        defer { server.stop() }
        let client = makeClient(anchors: pki.anchors)
        try await withShutdown({ await client.shutdown() }) {
            let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/index.html"))
            #expect(response.text == "over h2")
            #expect(response.connection.httpVersion == "HTTP/2")
            #expect(response.connection.verdict?.isTrusted == true)
            #expect(response.connection.handshake?.tlsVersion == .tls13)
            // Server push is announced off in the client's first SETTINGS.
            #expect(server.daemon.log.contains("SETTINGS_ENABLE_PUSH(0x02):0"), "\(server.daemon.log)")

            let missing = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/nothing-here"))
            #expect(missing.statusCode == 404)
        }
    }

    @Test(.enabled(if: Nghttpd.path != nil, "\(missing)"))
    func aHundredConcurrentRequestsShareOneConnectionWithinTheServersBound() async throws {
        let pki = ServerPKI()
        let body = Array(repeating: UInt8(ascii: "x"), count: 20_000)
        let server = try await Nghttpd.start(pki, files: ["big": body], maxConcurrentStreams: 10)
        defer { server.stop() }
        let handshakes = NIOLockedValueBox(0)
        let client = makeClient(anchors: pki.anchors) { config in
            config.handshakeObserver = { _ in handshakes.withLockedValue { $0 += 1 } }
        }
        try await withShutdown({ await client.shutdown() }) {
            // All start at once: one opens the connection and the others wait to share it; they go as streams, ten at a
            // time (the server's SETTINGS_MAX_CONCURRENT_STREAMS), the rest queued by NIO until streams close.
            let url = "https://\(host):\(server.port)/big"
            let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 { group.addTask { try await client.execute(HTTPRequest(url: url)).body.count } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(sizes.count == 100)
            #expect(sizes.allSatisfy { $0 == body.count })
            #expect(handshakes.withLockedValue { $0 } == 1, "one connection, one evaluation")
            #expect(await client.idleConnectionCount == 1)
        }
    }

    @Test(.enabled(if: Nghttpd.path != nil, "\(missing)"))
    func pinsAreCheckedBeforeAnyFrame() async throws {
        let pki = ServerPKI()
        let server = try await Nghttpd.start(pki, files: ["index.html": Array("pinned".utf8)])
        defer { server.stop() }
        let good = try ServerTrustManager(evaluators: [host: PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + ServerPKI.pin(pki.intermediate))])])
        let pinned = makeClient(anchors: pki.anchors, trustManager: good)
        let response = try await pinned.execute(HTTPRequest(url: "https://\(host):\(server.port)/index.html"))
        await pinned.shutdown()
        #expect(response.text == "pinned")
        #expect(response.connection.httpVersion == "HTTP/2")

        let wrong = try ServerTrustManager(evaluators: [host: PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + ServerPKI.pin(ServerPKI().leaf))])])
        let misPinned = makeClient(anchors: pki.anchors, trustManager: wrong)
        let error = await transportError { try await misPinned.execute(HTTPRequest(url: "https://\(host):\(server.port)/index.html")) }
        await misPinned.shutdown()
        #expect(error?.kind == .pinMismatch)
        #expect(error?.phase == .handshake)
        #expect(!server.daemon.log.contains(":path: /index.html") || server.daemon.log.components(separatedBy: ":path: /index.html").count == 2,
                "only the pinned client's request reached the server")
    }

    @Test func aServerWithoutHTTP2IsSpokenToInHTTP1() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("one point one") }
        try await withShutdown({ await server.shutdown() }) {
            let negotiating = makeClient(anchors: pki.anchors)
            let response = try await negotiating.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            await negotiating.shutdown()
            #expect(response.text == "one point one")
            #expect(response.connection.httpVersion == "HTTP/1.1")

            let insisting = makeClient(anchors: pki.anchors) { $0.httpVersions = .http2Only }
            let error = await transportError { try await insisting.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            await insisting.shutdown()
            #expect(error?.message.contains("ALPN") == true)
            #expect(error?.kind == .http2NotNegotiated, "\(error?.description ?? "loaded")")
            #expect(error?.message.contains("--") == false, "a library message names no flag: \(error?.message ?? "")")
            #expect(server.requests.count == 1, "nothing was sent to a server that would not speak HTTP/2")
        }
    }

    @Test(.enabled(if: Nghttpd.path != nil, "\(missing)"))
    func atsFetchSaysWhichVersionItUsed() async throws {
        let pki = ServerPKI()
        let server = try await Nghttpd.start(pki, files: ["index.html": Array("fetched".utf8)])
        defer { server.stop() }
        let dir = try TemporaryDirectory()
        let anchors = try dir.write("root.pem", pki.root.pem)
        let base = withGenerousTimeLimits(["fetch", "https://\(host):\(server.port)/index.html", "--anchors", anchors, "--resolve", "\(host):127.0.0.1"])
        let verbose = Output.capture()
        #expect(await ATSCommand.run(arguments: base + ["--http2", "--verbose"], output: verbose) == 0, "\(verbose.standardError)")
        #expect(verbose.standardOutput == "fetched")
        #expect(verbose.standardError.contains("* HTTP/2 (ALPN: the server chose h2)"))
        let json = Output.capture()
        #expect(await ATSCommand.run(arguments: base + ["--json"], output: json) == 0)
        #expect(json.standardOutput.contains("\"httpVersion\" : \"HTTP/2\""))
        let both = Output.capture()
        #expect(await ATSCommand.run(arguments: base + ["--http2", "--http1.1"], output: both) == 2)
    }

    @Test(.enabled(if: Nghttpd.path != nil, "\(missing)"))
    func atsDiagnoseReportsWhatALPNChose() async throws {
        let pki = ServerPKI()
        let server = try await Nghttpd.start(pki, files: ["index.html": Array("diagnosed".utf8)])
        defer { server.stop() }
        let dir = try TemporaryDirectory()
        let anchors = try dir.write("root.pem", pki.root.pem)
        let output = Output.capture()
        _ = await ATSCommand.run(arguments: ["diagnose", "https://\(host):\(server.port)/index.html", "--anchors", anchors,
                                             "--resolve", "\(host):127.0.0.1"], output: output)
        let negotiated = output.standardOutput.components(separatedBy: "\n").filter { $0.hasPrefix("Negotiated : TLSv1.3") }
        #expect(!negotiated.isEmpty, "\(output.standardOutput)")
        #expect(negotiated.allSatisfy { $0.contains("ALPN h2") })
    }

    // MARK: The same behaviour as on HTTP/1.1, against an in-process HTTP/2 server

    @Test func challengesRedirectsLimitsStreamingAndTimeoutsBehaveAsOnHTTP1() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.http2(chain: pki.served, key: pki.leaf.key) { request in
            switch request.head.uri {
            case "/moved": return TestResponse(status: .found, headers: [("location", "/private")], body: [])
            case "/private":
                return request.head.headers.first(name: "authorization") == HTTPAuthorization.basic(user: "user", password: "good")
                    ? .text("welcome") : TestResponse(status: .unauthorized, headers: [("www-authenticate", "Basic realm=\"h2\"")], body: [])
            case "/big": return TestResponse(body: Array(repeating: 0x61, count: 100_000))
            case "/stall": return TestResponse(reply: false)
            default: return .text("hello")
            }
        }
        try await withShutdown({ await server.shutdown() }) {
            // makeClient's long limits: the loaded suite has kept a handshake waiting past 30 s. The limit this test is
            // about is the stalled request's own.
            let client = makeClient(anchors: pki.anchors) { config in
                config.maximumResponseBytes = 50_000
                config.challengeHandler = { challenge in
                    challenge.protectionSpace.authenticationMethod == .httpBasic ? .useCredential(.password(user: "user", password: "good")) : .performDefaultHandling
                }
            }
            try await withShutdown({ await client.shutdown() }) {
                let base = "https://\(host):\(server.port)"

                let redirected = try await client.execute(HTTPRequest(url: base + "/moved"))
                #expect(redirected.text == "welcome", "a redirect, then a 401 answered, over HTTP/2")
                #expect(redirected.redirects == [base + "/moved"])
                #expect(redirected.connection.httpVersion == "HTTP/2")

                let tooLarge = await transportError { try await client.execute(HTTPRequest(url: base + "/big")) }
                #expect(tooLarge?.kind == .responseTooLarge)
                var streamed = 0
                for try await chunk in try await client.stream(HTTPRequest(url: base + "/big")).body { streamed += chunk.count }
                #expect(streamed == 100_000, "streaming has no limit")

                let stalled = await transportError { try await client.execute(HTTPRequest(url: base + "/stall", timeout: .milliseconds(500))) }
                #expect(stalled?.kind == .timedOut)
                // The time limit reset its stream, not the connection the other requests share.
                #expect(try await client.execute(HTTPRequest(url: base + "/")).text == "hello")
                #expect(server.connectionCount == 1)
            }
        }
    }

    @Test func aGOAWAYMidwaySendsTheUnprocessedRequestsAgainOnANewConnection() async throws {
        let pki = ServerPKI()
        let server = try await GoAwayServer.start(pki, answerAfter: 5)
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors)
            try await withShutdown({ await client.shutdown() }) {
                let url = "https://\(host):\(server.port)/"
                #expect(try await client.execute(HTTPRequest(url: url)).text == "ok", "the connection is open, on stream 1")
                // Five at once on that connection: the server processes the first (stream 3) and sends GOAWAY naming it; the
                // other four, POSTs among them, were never processed and go again on a new connection.
                let methods: [HTTPMethod] = [.GET, .GET, .POST, .GET, .POST]
                let texts = try await withThrowingTaskGroup(of: String.self) { group in
                    for method in methods { group.addTask { try await client.execute(HTTPRequest(url: url, method: method, body: method == .POST ? [1] : nil)).text } }
                    return try await group.reduce(into: [String]()) { $0.append($1) }
                }
                #expect(texts.count == 5)
                #expect(texts.allSatisfy { $0 == "ok" })
                #expect(server.connections == 2)
                #expect(server.answeredOnFirstConnection == 2, "stream 1 and the one GOAWAY named; no request was processed twice")
                // The server keeps its side open after GOAWAY; the client closes the connection once its streams end.
                let closed = await bounded(.seconds(10)) { (try? await server.firstClosed.futureResult.get()) != nil }
                #expect(closed == true, "the connection that went away is closed by the client")
            }
        }
    }
}

/// An HTTP/2 server whose first connection answers stream 1, then holds the next stream until `answerAfter` streams
/// have arrived, sends GOAWAY naming the held one as the last it processes, answers it, and leaves the rest unanswered.
/// Later connections answer everything.
private final class GoAwayServer: Sendable {
    let channel: any Channel
    let port: Int
    private let counts: NIOLockedValueBox<(connections: Int, answered: Int)>
    /// Completes when the first connection closes: the server itself never closes it.
    let firstClosed: EventLoopPromise<Void>

    private init(channel: any Channel, port: Int, counts: NIOLockedValueBox<(connections: Int, answered: Int)>, firstClosed: EventLoopPromise<Void>) {
        self.channel = channel
        self.port = port
        self.counts = counts
        self.firstClosed = firstClosed
    }

    var connections: Int { counts.withLockedValue { $0.connections } }
    var answeredOnFirstConnection: Int { counts.withLockedValue { $0.answered } }

    func shutdown() async {
        try? await channel.close()
        firstClosed.succeed(())
    }

    static func start(_ pki: ServerPKI, answerAfter: Int) async throws -> GoAwayServer {
        var tls = try TestServer.tlsConfiguration(chain: pki.served, key: pki.leaf.key)
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let counts = NIOLockedValueBox<(connections: Int, answered: Int)>((0, 0))
        let firstClosed = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: Void.self)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let first = counts.withLockedValue { $0.connections += 1; return $0.connections == 1 }
                    if first { channel.closeFuture.cascade(to: firstClosed) }
                    let state = NIOLoopBound(GoAwayState(), eventLoop: channel.eventLoop)
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLServerHandler(context: context))
                    _ = try sync.configureHTTP2Pipeline(mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                            try stream.pipeline.syncOperations.addHandler(
                                GoAwayStream(first: first, state: state.value, answerAfter: answerAfter, counts: counts))
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw TestServerError("no port") }
        return GoAwayServer(channel: channel, port: port, counts: counts, firstClosed: firstClosed)
    }
}

private final class GoAwayState {
    var streams = 0
    var held: (() -> Void)?
}

private final class GoAwayStream: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let first: Bool
    let state: GoAwayState
    let answerAfter: Int
    let counts: NIOLockedValueBox<(connections: Int, answered: Int)>

    init(first: Bool, state: GoAwayState, answerAfter: Int, counts: NIOLockedValueBox<(connections: Int, answered: Int)>) {
        self.first = first
        self.state = state
        self.answerAfter = answerAfter
        self.counts = counts
    }

    private func answer(_ context: ChannelHandlerContext) {
        if first { counts.withLockedValue { $0.answered += 1 } }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http2, status: .ok, headers: ["content-length": "2"]))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: "ok")))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        guard first else { return answer(context) }
        state.streams += 1
        // Client streams are numbered 1, 3, 5, … in the order they open.
        switch state.streams {
        case 1:
            answer(context)
        case 2:
            state.held = { self.answer(context) }
        default:
            break
        }
        if state.streams == 1 + answerAfter, let parent = context.channel.parent {
            let goAway = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: HTTP2StreamID(3), errorCode: .noError, opaqueData: nil))
            parent.writeAndFlush(goAway, promise: nil)
            state.held?()
            state.held = nil
        }
    }
}
