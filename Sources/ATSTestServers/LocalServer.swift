import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import TransportServer

/// What a local server answers over HTTP.
public enum LocalResponse: Sendable {
    /// 200 with a short text naming the case.
    case text(String)
    /// 401 with `WWW-Authenticate: Basic` unless the request carries `user:password`; then 200.
    case basicAuth(user: String, password: String)
    /// 302 to `location`.
    case redirect(to: String)
    /// 200 with the connection's client-certificate verdict as JSON (`ats serve --mtls`, ``VerdictServer``).
    case clientVerdict
}

/// How a hostile server misbehaves (for tests of timeouts and fail-closed handling).
public enum Misbehaviour: Sendable {
    /// Accepts and never sends a byte.
    case stall
    /// Resets the connection (RST) as soon as the client speaks.
    case reset
    /// Answers with bytes that are not TLS.
    case garbage
    /// Answers a request with a status line, then header bytes one every 50 ms, never ending the header block
    /// (slowloris). Behind TLS when the server is given a TLS configuration.
    case slowHeaders
    /// Answers a request with a header block of ``oversizedHeaderBytes`` that never ends, then holds the connection.
    case oversizedHeaders

    /// The size of the `oversizedHeaders` block, in 1,000-byte fields: past NIO's limits (256 fields, 2 MiB in all).
    public static let oversizedHeaderBytes = 1 << 20
}

/// One server on 127.0.0.1.
public final class LocalServer: Sendable {
    /// The port on 127.0.0.1 the server listens on.
    public let port: Int
    private let channel: any Channel

    init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    /// Closes the listening socket.
    public func shutdown() async { try? await channel.close() }

    /// An HTTPS server (or plain HTTP when `tls` is nil) answering `response`.
    public static func start(tls: TLSConfiguration?, response: LocalResponse, port: Int = 0,
                             group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> LocalServer {
        let context: NIOSSLContext?
        do { context = try tls.map { try NIOSSLContext(configuration: $0) } } catch {
            throw TestServerError("the TLS server context could not be made: \(error)")
        }
        return try await bind(port: port, group: group) { channel in
            let sync = channel.pipeline.syncOperations
            if let context { try sync.addHandler(NIOSSLServerHandler(context: context)) }
            try sync.configureHTTPServerPipeline(withErrorHandling: true)
            try sync.addHandler(Responder(response: response))
        }
    }

    /// A TCP server that misbehaves; behind TLS when `tls` is given (the response misbehaviours need it to reach an
    /// HTTPS client's HTTP layer).
    public static func hostile(_ behaviour: Misbehaviour, tls: TLSConfiguration? = nil,
                               group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> LocalServer {
        let context: NIOSSLContext?
        do { context = try tls.map { try NIOSSLContext(configuration: $0) } } catch {
            throw TestServerError("the TLS server context could not be made: \(error)")
        }
        return try await bind(port: 0, group: group) { channel in
            let sync = channel.pipeline.syncOperations
            if let context { try sync.addHandler(NIOSSLServerHandler(context: context)) }
            try sync.addHandler(HostileHandler(behaviour: behaviour))
        }
    }

    /// Why a bind failed, in words and with the fix; NIO's text ("bind(descriptor:ptr:bytes:) … (errno: 98)") is not for users.
    static func bindProblem(_ error: any Error) -> String {
        guard let io = error as? IOError else { return "the port cannot be opened" }
        switch io.errnoCode {
        case EADDRINUSE: return "the port is already in use by another program; choose another port, or 0 to pick a free one"
        case EACCES: return "this user may not listen on that port (ports below 1024 need privileges); choose a port from 1024 up, or 0"
        case EADDRNOTAVAIL: return "127.0.0.1 is not available on this machine; check the loopback interface"
        default: return "the port cannot be opened (\(String(cString: strerror(io.errnoCode))))"
        }
    }

    /// Listens on 127.0.0.1:`port` (0 picks one) and sets up each accepted channel with `configure`.
    static func bind(port: Int, group: any EventLoopGroup,
                     _ configure: @escaping @Sendable (any Channel) throws -> Void) async throws -> LocalServer {
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in channel.eventLoop.makeCompletedFuture { try configure(channel) } }
                .bind(host: "127.0.0.1", port: port).get()
        } catch {
            throw TestServerError("cannot listen on 127.0.0.1:\(port): \(bindProblem(error))")
        }
        guard let bound = channel.localAddress?.port else {
            try? await channel.close()
            throw TestServerError("the server on 127.0.0.1:\(port) has no port")
        }
        return LocalServer(channel: channel, port: bound)
    }
}

final class Responder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let response: LocalResponse
    private var head: HTTPRequestHead?

    init(response: LocalResponse) { self.response = response }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): head = h
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            var headers = HTTPHeaders([("content-type", "text/plain; charset=utf-8")])
            let status: HTTPResponseStatus
            let body: String
            var bytes: [UInt8]?
            switch response {
            case .text(let text):
                status = .ok
                body = text
            case .basicAuth(let user, let password):
                let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
                if head.headers.first(name: "authorization") == expected {
                    status = .ok
                    body = "authenticated\n"
                } else {
                    status = .unauthorized
                    body = "authentication required\n"
                    headers.add(name: "www-authenticate", value: "Basic realm=\"ats serve\"")
                }
            case .redirect(let location):
                status = .found
                body = "see \(location)\n"
                headers.add(name: "location", value: location)
            case .clientVerdict:
                status = .ok
                body = ""
                bytes = VerdictServer.json(context.pipeline.syncOperations.clientCertificateVerdict)
                headers.replaceOrAdd(name: "content-type", value: "application/json")
            }
            let payload = bytes ?? Array(body.utf8)
            headers.add(name: "content-length", value: String(payload.count))
            // A client that asked to close must be told and then closed on. Otherwise it may send its next request on
            // this connection, which NIO's pipeline has already given up on, and get a 400 (curl did, for every
            // other request).
            let keepAlive = head.isKeepAlive
            if !keepAlive { headers.replaceOrAdd(name: "connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: payload)))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keepAlive { channel.close(promise: nil) }
            }
        }
    }

    /// A client that gives up mid-handshake is normal here; drop the connection quietly.
    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}

private final class HostileHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let behaviour: Misbehaviour
    private var answered = false
    private var trickle: RepeatedTask?

    init(behaviour: Misbehaviour) { self.behaviour = behaviour }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch behaviour {
        case .slowHeaders:
            guard !answered else { return }
            answered = true
            let channel = context.channel
            channel.writeAndFlush(channel.allocator.buffer(string: "HTTP/1.1 200 OK\r\n"), promise: nil)
            let line = Array("X-Slow: a\r\n".utf8)
            let sent = NIOLockedValueBox(0)
            trickle = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(50), delay: .milliseconds(50)) { _ in
                let next = sent.withLockedValue { count in
                    defer { count += 1 }
                    return line[count % line.count]
                }
                channel.writeAndFlush(channel.allocator.buffer(bytes: [next]), promise: nil)
            }
        case .oversizedHeaders:
            guard !answered else { return }
            answered = true
            var block = Array("HTTP/1.1 200 OK\r\n".utf8)
            let line = Array("X-Filler: \(String(repeating: "a", count: 1000))\r\n".utf8)
            while block.count + line.count <= Misbehaviour.oversizedHeaderBytes { block += line }
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: block)), promise: nil)
        case .stall:
            break
        case .reset:
            // SO_LINGER 0 makes close send RST instead of FIN.
            let channel = context.channel
            if let provider = channel as? any SocketOptionProvider {
                provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        case .garbage:
            let garbage = Array("HTTP/1.1 200 OK\r\nthis is not TLS\r\n\r\n".utf8) + (0..<64).map { _ in UInt8.random(in: 0...255) }
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: garbage)), promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        trickle?.cancel()
        trickle = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}
