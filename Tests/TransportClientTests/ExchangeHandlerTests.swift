import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import TransportClient

/// One exchange over NIO's HTTP/1.1 codec: who is blamed when it fails.
@Suite struct ExchangeHandlerTests {
    private func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHTTPClientHandlers()
        try channel.pipeline.syncOperations.addHandler(ExchangeHandler(death: NIOLockedValueBox(nil)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        return channel
    }

    private func request(_ channel: EmbeddedChannel, headers: HTTPHeaders) -> ExchangeRequest {
        ExchangeRequest(head: HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: headers), body: nil,
                        headPromise: channel.eventLoop.makePromise(), endPromise: channel.eventLoop.makePromise(),
                        limit: 1 << 20, stream: nil, delivered: NIOLockedValueBox(false))
    }

    private func failure(_ future: EventLoopFuture<ExchangeEnd>) -> ExchangeFailure? {
        do {
            _ = try future.wait()
            return nil
        } catch {
            return error as? ExchangeFailure
        }
    }

    @Test func aRequestNIORefusesToWriteIsTheRequestsFaultAndNothingIsSent() throws {
        let channel = try channel()
        let exchange = request(channel, headers: ["bad name": "x"])
        channel.write(exchange, promise: nil)
        channel.flush()
        guard case .requestRejected? = failure(exchange.endPromise.futureResult) else {
            Issue.record("expected requestRejected, got \(String(describing: failure(exchange.endPromise.futureResult)))")
            return
        }
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
    }

    @Test func aResponseNIOCannotParseIsTheServersFault() throws {
        let channel = try channel()
        let exchange = request(channel, headers: ["accept": "*/*"])
        channel.write(exchange, promise: nil)
        channel.flush()
        #expect(try channel.readOutbound(as: ByteBuffer.self) != nil)
        // The decoder's error goes to the handler, which ends the exchange; whether the channel also throws it does not matter here.
        _ = try? channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\nbad header\r\n\r\n"))
        guard case .malformedResponse? = failure(exchange.endPromise.futureResult) else {
            Issue.record("expected malformedResponse, got \(String(describing: failure(exchange.endPromise.futureResult)))")
            return
        }
    }
}
