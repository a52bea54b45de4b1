import HummingbirdCore
import Logging
import NIOCore
import TransportServer

/// Hummingbird's HTTP/1 channel behind TransportServer's TLS handlers: the handshake verifies the client with the
/// trust engine, and the verdict stays on the channel for the routes.
struct MutualTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let server: MutualTLSServer

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try server.configure(channel.pipeline.syncOperations)
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension MutualTLSChannel: HTTPChannelHandler where Base: HTTPChannelHandler {
    var responder: HTTPChannelHandler.Responder { base.responder }
}

extension HTTPServerBuilder {
    /// HTTP/1 over TLS, clients verified by `server`.
    static func mutualTLS(_ server: MutualTLSServer) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in MutualTLSChannel(base: HTTP1Channel(responder: responder), server: server) }
    }
}
