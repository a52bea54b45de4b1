import TestSupport
import ATSTestServers
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL


/// What a test server answers.
public struct TestResponse: Sendable {
    public var status: HTTPResponseStatus
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Send `connection: close` and close after the response.
    public var close: Bool
    /// Never answer (a server that stalls after the handshake).
    public var reply: Bool
    /// Announce the whole body but send only this many bytes of it, then stall.
    public var stallAfter: Int?
    /// Close the connection without answering, as a server that took the request and then died.
    public var hangUp: Bool
    /// Announce the whole body, send only this many bytes of it, then close the connection: with a reset (RST) when
    /// `reset`, else a plain close (FIN), as a server that dies or is cut off mid-body.
    public var cutAfter: (bytes: Int, reset: Bool)?

    public init(status: HTTPResponseStatus = .ok, headers: [(String, String)] = [], body: [UInt8] = Array("hello".utf8),
                close: Bool = false, reply: Bool = true, stallAfter: Int? = nil, hangUp: Bool = false,
                cutAfter: (bytes: Int, reset: Bool)? = nil) {
        (self.status, self.headers, self.body, self.close) = (status, headers, body, close)
        (self.reply, self.stallAfter, self.hangUp, self.cutAfter) = (reply, stallAfter, hangUp, cutAfter)
    }

    public static func text(_ s: String, status: HTTPResponseStatus = .ok, headers: [(String, String)] = []) -> TestResponse {
        TestResponse(status: status, headers: headers, body: Array(s.utf8))
    }
}

/// One request as the server saw it.
public struct SeenRequest: Sendable {
    public var head: HTTPRequestHead
    public var body: [UInt8]
}

public typealias Responder = @Sendable (SeenRequest) -> TestResponse

/// A server on 127.0.0.1 with an ephemeral port, started and stopped by a test.
public final class TestServer: Sendable {
    public let channel: any Channel
    public let port: Int
    private let counters = NIOLockedValueBox<(connections: Int, requests: [SeenRequest])>((0, []))

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    public var connectionCount: Int { counters.withLockedValue { $0.connections } }
    public var requests: [SeenRequest] { counters.withLockedValue { $0.requests } }

    fileprivate func noteConnection() { counters.withLockedValue { $0.connections += 1 } }
    fileprivate func note(_ request: SeenRequest) { counters.withLockedValue { $0.requests.append(request) } }

    public func shutdown() async { try? await channel.close() }

    /// An HTTPS server presenting `chain` (leaf first) with `key`, TLS configured by `configure`.
    public static func https(chain: [TestCert], key: TestKey, responder: @escaping Responder = { _ in TestResponse() },
                      configure: (inout TLSConfiguration) -> Void = { _ in }) async throws -> TestServer {
        var tls = try tlsConfiguration(chain: chain, key: key)
        tls.minimumTLSVersion = .tlsv1
        configure(&tls)
        let context = try NIOSSLContext(configuration: tls)
        return try await start(tls: context, responder: responder)
    }

    /// An HTTPS server that speaks HTTP/2 only (ALPN h2), answering each stream through NIO's HTTP/2-to-HTTP/1 codec
    /// with `responder`, as ``https(chain:key:responder:configure:)`` answers each request.
    public static func http2(chain: [TestCert], key: TestKey, responder: @escaping Responder = { _ in TestResponse() }) async throws -> TestServer {
        var tls = try tlsConfiguration(chain: chain, key: key)
        tls.applicationProtocols = ["h2"]
        return try await start(tls: try NIOSSLContext(configuration: tls), http2: true, responder: responder)
    }

    /// A server configuration presenting `chain` (leaf first) with `key`.
    public static func tlsConfiguration(chain: [TestCert], key: TestKey) throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: try chain.map { .certificate(try NIOSSLCertificate(bytes: $0.der, format: .der)) },
            privateKey: .privateKey(try key.nioPrivateKey()))
    }

    /// A plain HTTP server.
    public static func http(responder: @escaping Responder = { _ in TestResponse() }) async throws -> TestServer {
        try await start(tls: nil, responder: responder)
    }

    private static func start(tls: NIOSSLContext?, http2: Bool = false, responder: @escaping Responder) async throws -> TestServer {
        let box = NIOLockedValueBox<TestServer?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    box.withLockedValue { $0 }?.noteConnection()
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addHandler(NIOSSLServerHandler(context: tls)) }
                    guard http2 else {
                        try sync.configureHTTPServerPipeline(withErrorHandling: true)
                        return try sync.addHandler(HTTPResponder(responder: responder, server: box))
                    }
                    _ = try sync.configureHTTP2Pipeline(mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                            try stream.pipeline.syncOperations.addHandler(HTTPResponder(responder: responder, server: box))
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw TestServerError("no port") }
        let server = TestServer(channel: channel, port: port)
        box.withLockedValue { $0 = server }
        return server
    }

    /// A TCP server that misbehaves: the one `ats serve` and the diagnostics tests use.
    public static func raw(_ behaviour: Misbehaviour, tls: TLSConfiguration? = nil) async throws -> LocalServer {
        try await LocalServer.hostile(behaviour, tls: tls)
    }
}

private final class HTTPResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let responder: Responder
    let server: NIOLockedValueBox<TestServer?>
    var head: HTTPRequestHead?
    var body: [UInt8] = []

    init(responder: @escaping Responder, server: NIOLockedValueBox<TestServer?>) {
        self.responder = responder
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body = []
        case .body(let b):
            body += b.readableBytesView
        case .end:
            guard let head else { return }
            let seen = SeenRequest(head: head, body: body)
            server.withLockedValue { $0 }?.note(seen)
            let response = responder(seen)
            if response.hangUp { return context.close(promise: nil) }
            guard response.reply else { return }
            var headers = HTTPHeaders(response.headers)
            headers.replaceOrAdd(name: "content-length", value: String(response.body.count))
            if response.close { headers.replaceOrAdd(name: "connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers))), promise: nil)
            if let (bytes, reset) = response.cutAfter {
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body.prefix(bytes)))))).whenComplete { _ in
                    // A zero linger turns the close into a reset.
                    guard reset, let socket = channel as? any SocketOptionProvider else { return channel.close(promise: nil) }
                    socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
                }
                return
            }
            if let stallAfter = response.stallAfter {
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body.prefix(stallAfter))))), promise: nil)
                return
            }
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
            let close = response.close
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if close { channel.close(promise: nil) }
            }
        }
    }
}

extension TestKey {
    /// The key in swift-nio-ssl's form, via PEM.
    public func nioPrivateKey() throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(bytes: Array(pemString.utf8), format: .pem)
    }
}
