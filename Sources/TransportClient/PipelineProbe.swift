import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// The client's handlers for the bytes a server sends, installed as `Connection` installs them, on a channel the caller
/// owns (an `EmbeddedChannel`). For the fuzz targets (Fuzz/), which drive them with hostile bytes; `package`, so the
/// handlers themselves stay internal and nothing is added to the public API.
package enum ClientPipelineProbe {
    /// What the ServerHello observer recorded: the hello when it found one, else why not.
    package struct FirstRecordSeen: Sendable, Equatable {
        package var hello: ServerHelloInfo?
        package var description: String
    }

    /// Adds the ServerHello observer. The returned closure reads what it recorded (nil while it still waits).
    package static func addServerHelloObserver(to channel: any Channel) throws -> @Sendable () -> FirstRecordSeen? {
        let observation = HandshakeObservation()
        try channel.pipeline.syncOperations.addHandler(ServerHelloObserver(observation: observation))
        return {
            guard let first = observation.first else { return nil }
            return FirstRecordSeen(hello: observation.serverHello, description: "\(first)")
        }
    }

    /// How one exchange ended: the response, or the failure the client would report.
    package enum ExchangeOutcome: Sendable {
        case response(status: HTTPResponseStatus, body: [UInt8], reusable: Bool)
        case failed(String)
    }

    /// Adds NIO's HTTP/1.1 client codec and the exchange handler, then writes one GET whose body may be at most `limit`
    /// bytes. Feed the response with `writeInbound`; the future completes when the exchange ends.
    package static func startExchange(on channel: any Channel, limit: Int) throws -> EventLoopFuture<ExchangeOutcome> {
        try channel.pipeline.syncOperations.addHTTPClientHandlers()
        try channel.pipeline.syncOperations.addHandler(ExchangeHandler(death: NIOLockedValueBox(nil)))
        let request = ExchangeRequest(
            head: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["host": "www.example.test"]), body: nil,
            limit: limit)
        let outcome = channel.eventLoop.makePromise(of: ExchangeOutcome.self)
        request.completion.whenEnded { result in
            switch result {
            case .success(let end): outcome.succeed(.response(status: end.head.status, body: end.body, reusable: end.reusable))
            case .failure(let failure): outcome.succeed(.failed("\(failure)"))
            }
        }
        channel.writeAndFlush(request, promise: nil)
        return outcome.futureResult
    }
}
