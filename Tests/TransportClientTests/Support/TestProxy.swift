import ATSTestServers
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

@testable import TransportClient

/// An in-process HTTP proxy on 127.0.0.1, for what a real proxy will not do: answer garbage, hang, or put its own
/// certificate in the tunnel. It also forwards CONNECT for real and records every request head it receives, so that
/// tests can see what reached the proxy.
final class TestProxy: Sendable {
    enum Behaviour: Sendable {
        /// Opens the tunnel to 127.0.0.1 at the CONNECT port; 407 unless Proxy-Authorization equals `requiredAuthorization`.
        case forward(requiredAuthorization: String?)
        /// Answers anything with bytes that are not HTTP.
        case garbage
        /// Answers CONNECT with 200 and, in the same write, bytes of its own that are not the origin's.
        case garbageAfterConnect
        /// Reads CONNECT and never answers.
        case silent
        /// Answers 200 to CONNECT, then never forwards a byte.
        case hangAfterConnect
        /// Answers 200 to CONNECT, then terminates TLS itself with this context and answers every request with 200.
        case inject(NIOSSLContext)
    }

    let channel: any Channel
    let port: Int
    private let seen: NIOLockedValueBox<[HTTPRequestHead]>
    private let accepted: NIOLockedValueBox<Int>

    private init(channel: any Channel, port: Int, seen: NIOLockedValueBox<[HTTPRequestHead]>, accepted: NIOLockedValueBox<Int>, tls: Bool,
                 handled: AsyncStream<Void>) {
        self.handled = handled
        self.tls = tls
        self.channel = channel
        self.port = port
        self.seen = seen
        self.accepted = accepted
    }

    /// The connections the proxy has accepted, in all.
    var acceptedConnections: Int { accepted.withLockedValue { $0 } }

    /// The request heads the proxy received (CONNECT or absolute-form), in order.
    var requests: [HTTPRequestHead] { seen.withLockedValue { $0 } }

    /// One element for each request the proxy has read to its end and acted on (answered, or not, as it behaves).
    let handled: AsyncStream<Void>

    var url: String { "\(tls ? "https" : "http")://127.0.0.1:\(port)" }
    private let tls: Bool

    func shutdown() async { try? await channel.close() }

    /// - Parameter tls: makes it an `https://` proxy presenting this context's certificate.
    static func start(_ behaviour: Behaviour, tls: NIOSSLContext? = nil) async throws -> TestProxy {
        let seen = NIOLockedValueBox<[HTTPRequestHead]>([])
        let accepted = NIOLockedValueBox(0)
        let (handled, handling) = AsyncStream<Void>.makeStream()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                accepted.withLockedValue { $0 += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let tls { try sync.addHandler(NIOSSLServerHandler(context: tls)) }
                    if case .garbage = behaviour {
                        try sync.addHandler(GarbageAnswer())
                        return
                    }
                    if case .garbageAfterConnect = behaviour {
                        try sync.addHandler(ConnectThenGarbage())
                        return
                    }
                    let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
                    let encoder = HTTPResponseEncoder()
                    try sync.addHandlers(decoder, encoder)
                    try sync.addHandler(ConnectAnswer(behaviour: behaviour, seen: seen, handled: handling, decoder: decoder, encoder: encoder))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw TestServerError("no port") }
        return TestProxy(channel: channel, port: port, seen: seen, accepted: accepted, tls: tls != nil, handled: handled)
    }
}

private final class GarbageAnswer: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: "SSH-2.0-OpenSSH_9.2\r\n\u{0}\u{1}\u{2}\r\n\r\n")), promise: nil)
    }
}

private final class ConnectThenGarbage: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var received = ""
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        received += String(buffer: unwrapInboundIn(data))
        guard received.contains("\r\n\r\n") else { return }
        answered = true
        let answer = "HTTP/1.1 200 Connection established\r\n\r\nSSH-2.0-OpenSSH_9.2\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: answer)), promise: nil)
    }
}

private final class ConnectAnswer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let behaviour: TestProxy.Behaviour
    let seen: NIOLockedValueBox<[HTTPRequestHead]>
    let handled: AsyncStream<Void>.Continuation
    let decoder: ByteToMessageHandler<HTTPRequestDecoder>
    let encoder: HTTPResponseEncoder
    var head: HTTPRequestHead?

    init(behaviour: TestProxy.Behaviour, seen: NIOLockedValueBox<[HTTPRequestHead]>, handled: AsyncStream<Void>.Continuation,
         decoder: ByteToMessageHandler<HTTPRequestDecoder>,
         encoder: HTTPResponseEncoder) {
        self.behaviour = behaviour
        self.seen = seen
        self.handled = handled
        self.decoder = decoder
        self.encoder = encoder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let received):
            head = received
            seen.withLockedValue { $0.append(received) }
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            answer(head, context: context)
            handled.yield()
        }
    }

    private func respond(_ status: HTTPResponseStatus, headers: HTTPHeaders = [:], context: ChannelHandlerContext) {
        var headers = headers
        headers.add(name: "content-length", value: "0")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// Takes NIO's HTTP handlers out, so that the channel carries the tunnel's bytes, then adds `next`.
    private func openTunnel(context: ChannelHandlerContext, then next: @escaping (ChannelPipeline.SynchronousOperations) throws -> Void) {
        respond(.ok, context: context)
        let pipeline = context.pipeline
        let channel = context.channel
        let decoder = self.decoder, encoder = self.encoder
        pipeline.syncOperations.removeHandler(context: context).assumeIsolated()
            .flatMap { pipeline.syncOperations.removeHandler(decoder) }
            .flatMap { pipeline.syncOperations.removeHandler(encoder) }
            .flatMapThrowing { try next(pipeline.syncOperations) }
            .whenFailure { _ in channel.close(promise: nil) }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        switch behaviour {
        case .garbage, .garbageAfterConnect, .silent:
            return
        case .hangAfterConnect:
            openTunnel(context: context) { _ in }
        case .inject(let tls):
            openTunnel(context: context) { sync in
                try sync.addHandler(NIOSSLServerHandler(context: tls))
                try sync.configureHTTPServerPipeline()
                try sync.addHandler(OKResponder())
            }
        case .forward(let required):
            if let required, head.headers.first(name: "proxy-authorization") != required {
                respond(.proxyAuthenticationRequired, headers: ["proxy-authenticate": "Basic realm=\"test proxy\""], context: context)
                return
            }
            guard head.method == .CONNECT, let port = head.uri.split(separator: ":").last.flatMap({ Int($0) }) else {
                respond(.badRequest, context: context)
                return
            }
            let (near, far) = Glue.pair()
            let farSide = NIOLoopBound(far, eventLoop: context.eventLoop)
            ClientBootstrap(group: context.eventLoop)
                .channelInitializer { outbound in outbound.eventLoop.makeCompletedFuture { try outbound.pipeline.syncOperations.addHandler(farSide.value) } }
                .connect(host: "127.0.0.1", port: port).assumeIsolated()
                .whenComplete { result in
                    switch result {
                    case .success: self.openTunnel(context: context) { sync in try sync.addHandler(near) }
                    case .failure: self.respond(.badGateway, context: context)
                    }
                }
        }
    }
}

/// Answers every request with 200 and a short body: the proxy impersonating the origin.
private final class OKResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: ["content-length": "8"]))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: "injected")))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// Joins two channels on one event loop: what one reads, the other writes.
private final class Glue: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var partner: Glue?
    private var context: ChannelHandlerContext?

    static func pair() -> (Glue, Glue) {
        let a = Glue(), b = Glue()
        a.partner = b
        b.partner = a
        return (a, b)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { partner?.context?.write(data, promise: nil) }

    func channelReadComplete(context: ChannelHandlerContext) { partner?.context?.flush() }

    func channelInactive(context: ChannelHandlerContext) { partner?.context?.close(promise: nil) }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}
