import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import TransportServer

/// `ats serve --mtls`: one HTTPS server on 127.0.0.1 that verifies each client certificate with the trust engine
/// (`MutualTLSServer`) and answers every request with the verdict as JSON.
public final class VerdictServer: Sendable {
    private let server: LocalServer

    private init(_ server: LocalServer) { self.server = server }

    /// The port on 127.0.0.1 the server listens on.
    public var port: Int { server.port }
    /// Its https:// URL.
    public var url: String { "https://127.0.0.1:\(port)/" }

    /// Closes the listening socket.
    public func shutdown() async { await server.shutdown() }

    /// Listens on 127.0.0.1:`port` (0 picks a free port). A client has `requestTimeout` to send a whole request,
    /// from connecting and again after each answer; then its connection is closed.
    public static func start(_ server: MutualTLSServer, port: Int = 0, requestTimeout: TimeAmount = .seconds(30),
                             group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> VerdictServer {
        VerdictServer(try await LocalServer.bind(port: port, group: group) { channel in
            let sync = channel.pipeline.syncOperations
            try server.configure(sync)
            try sync.configureHTTPServerPipeline(withErrorHandling: true)
            try sync.addHandler(RequestDeadline(limit: requestTimeout))
            try sync.addHandler(Responder(response: .clientVerdict))
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
