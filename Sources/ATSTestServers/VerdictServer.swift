import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import TransportServer

/// `ats serve --mtls`: one HTTPS server on 127.0.0.1 that verifies each client certificate with the trust engine
/// (``MutualTLSServer``) and answers every request with the verdict as JSON.
public final class VerdictServer: Sendable {
    private let server: LocalServer

    private init(_ server: LocalServer) { self.server = server }

    public var port: Int { server.port }
    public var url: String { "https://127.0.0.1:\(port)/" }

    public func shutdown() async { await server.shutdown() }

    /// Listens on 127.0.0.1:`port` (0 picks a free port).
    public static func start(_ server: MutualTLSServer, port: Int = 0,
                             group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> VerdictServer {
        VerdictServer(try await LocalServer.bind(port: port, group: group) { channel in
            let sync = channel.pipeline.syncOperations
            try server.configure(sync)
            try sync.configureHTTPServerPipeline(withErrorHandling: true)
            try sync.addHandler(VerdictResponder())
        })
    }

    /// The JSON body of an answer: the verdict's report, keys sorted so that answers compare as text.
    public static func json(_ verdict: ClientCertificateVerdict?) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let verdict, let data = try? encoder.encode(ClientCertificateVerdictReport(verdict)) else {
            return Array("{\"verified\": false, \"error\": \"no verdict on this connection\"}\n".utf8)
        }
        return Array(data) + [UInt8(ascii: "\n")]
    }
}

/// Answers each request with the connection's verdict.
private final class VerdictResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var head: HTTPRequestHead?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h): head = h
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            let body = VerdictServer.json(context.pipeline.syncOperations.clientCertificateVerdict)
            var headers = HTTPHeaders([("content-type", "application/json"), ("content-length", String(body.count))])
            let keepAlive = head.isKeepAlive
            if !keepAlive { headers.replaceOrAdd(name: "connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keepAlive { channel.close(promise: nil) }
            }
        }
    }

    /// Refused and vanished clients are normal here; the refusal was logged by the verdict handler.
    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}
