import NIOCore
import NIOHTTP1
import TransportServer

// snippet.start handler
/// Answers every request with the name of the client certificate TransportServer verified in the handshake.
final class WhoAmIHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        // Set before the first request byte reaches this handler: a refused client never gets this far.
        let verdict = context.pipeline.syncOperations.clientCertificateVerdict
        let body = "hello \(verdict?.names?.uris.first ?? verdict?.names?.subject ?? "?")\n"
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["content-length": "\(body.utf8.count)"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
// snippet.end
