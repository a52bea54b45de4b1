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

    private func request(_ channel: EmbeddedChannel, headers: HTTPHeaders = ["accept": "*/*"], method: HTTPMethod = .GET,
                         responseBody: BodyBuffer? = nil,
                         timeLimit: TimeAmount? = nil) -> ExchangeRequest {
        ExchangeRequest(head: HTTPRequestHead(version: .http1_1, method: method, uri: "/", headers: headers), body: nil,
                        limit: 1 << 20, responseBody: responseBody,
                        deadline: timeLimit.map { channel.eventLoop.now + $0 } ?? .distantFuture)
    }

    /// The exchange's outcome if it has one: never waits, so an exchange that does not end fails the test, not hangs it.
    private func outcome(_ completion: ExchangeCompletion) -> ExchangeCompletion.Outcome? { completion.outcome }

    /// Keep-alive exchanges share one timer: an exchange that ended in time is not ended by it, and the one running
    /// when its own limit passes ends as a timeout, with the connection, whose response is still coming.
    @Test func theTimeLimitEndsOnlyTheExchangeWhoseTimeIsUp() throws {
        let channel = try channel()
        let loop = channel.embeddedEventLoop
        let first = request(channel, timeLimit: .seconds(1))
        channel.writeAndFlush(first, promise: nil)
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"))
        guard case .success(let end)? = outcome(first.completion), end.reusable else { Issue.record("the first exchange"); return }

        loop.advanceTime(by: .milliseconds(500))
        let second = request(channel, timeLimit: .seconds(1))
        channel.writeAndFlush(second, promise: nil)
        loop.advanceTime(by: .milliseconds(500))
        #expect(outcome(second.completion) == nil, "the first's deadline is not the second's")
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(499))
        #expect(outcome(second.completion) == nil)
        loop.advanceTime(by: .milliseconds(1))
        guard case .failure(.timedOut)? = outcome(second.completion) else {
            Issue.record("the second exchange did not end at its limit, as a timeout")
            return
        }
        #expect(!channel.isActive, "the late response must not reach the next exchange")
    }

    private func failure(_ completion: ExchangeCompletion) -> ExchangeFailure? {
        guard case .failure(let failure)? = completion.outcome else { return nil }
        return failure
    }

    @Test func aRequestNIORefusesToWriteIsTheRequestsFaultAndNothingIsSent() throws {
        let channel = try channel()
        let exchange = request(channel, headers: ["bad name": "x"])
        channel.write(exchange, promise: nil)
        channel.flush()
        guard case .requestRejected? = failure(exchange.completion) else {
            Issue.record("expected requestRejected, got \(String(describing: failure(exchange.completion)))")
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
        guard case .malformedResponse? = failure(exchange.completion) else {
            Issue.record("expected malformedResponse, got \(String(describing: failure(exchange.completion)))")
            return
        }
    }

    /// HTTP/2's codec hands on interim heads (103 Early Hints before the answer), which HTTP/1's decoder drops: the
    /// exchange waits for the final head, so a status, a redirect or a challenge after a 103 is not lost.
    @Test func anInterimHeadIsNotTheAnswer() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ExchangeHandler(death: NIOLockedValueBox(nil)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        let exchange = request(channel, headers: ["accept": "*/*"])
        channel.write(exchange, promise: nil)
        channel.flush()
        for code in [100, 103] {
            try channel.writeInbound(HTTPClientResponsePart.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: code))))
        }
        try channel.writeInbound(HTTPClientResponsePart.head(HTTPResponseHead(version: .http1_1, status: .notFound)))
        try channel.writeInbound(HTTPClientResponsePart.end(nil))
        #expect(exchange.completion.head?.status == .notFound)
        #expect(try exchange.completion.outcome?.get().head.status == .notFound)
    }

    /// Counts the reads that get past the exchange handler towards the socket.
    private final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    /// A streamed body past ``BodyBuffer/high`` unread holds back the channel's reads; the reader taking what is
    /// buffered lets the one read asked for meanwhile through, and the end of the body resumes reading.
    @Test func aStreamedBodyTheReaderIsBehindOnHoldsBackReading() async throws {
        let channel = EmbeddedChannel()
        let counter = ReadCounter()
        try channel.pipeline.syncOperations.addHandler(counter)
        try channel.pipeline.syncOperations.addHTTPClientHandlers()
        try channel.pipeline.syncOperations.addHandler(ExchangeHandler(death: NIOLockedValueBox(nil)))
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).get()
        let exchange = request(channel, responseBody: BodyBuffer())
        let buffer = try #require(exchange.responseBody)
        channel.write(exchange, promise: nil)
        channel.flush()
        _ = try channel.readOutbound(as: ByteBuffer.self)

        let chunk = 64 * 1024
        let chunks = BodyBuffer.high / chunk + 2
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 OK\r\ncontent-length: \(chunk * (chunks + 1))\r\n\r\n"))
        channel.read()
        #expect(counter.reads == 1)
        for _ in 0..<chunks { try channel.writeInbound(ByteBuffer(repeating: 0x61, count: chunk)) }
        #expect(buffer.buffered > BodyBuffer.high && buffer.isPaused)
        channel.read()
        channel.read()
        #expect(counter.reads == 1, "reads pass while the reader is behind")

        // The reader catches up: one held read goes through, on the channel's event loop.
        var taken = try #require(try await buffer.next()).count
        #expect(taken == chunk * chunks, "what was buffered, in one piece")
        #expect(!buffer.isPaused && buffer.buffered == 0)
        (channel.eventLoop as? EmbeddedEventLoop)?.run()
        #expect(counter.reads == 2)
        channel.read()
        #expect(counter.reads == 3)

        // The rest of the body ends the exchange, which leaves reading on.
        try channel.writeInbound(ByteBuffer(repeating: 0x61, count: chunk))
        let end = try await exchange.completion.end()
        #expect(end.reusable)
        channel.read()
        #expect(counter.reads == 4)
        while let next = try await buffer.next() { taken += next.count }
        #expect(taken == chunk * (chunks + 1))
    }

    /// A connection that closed before the request reached its handler sent nothing of it: the failure says so, and
    /// that is what lets the client send even a POST again on a new connection.
    @Test func aRequestOnAConnectionAlreadyClosedIsNotSent() throws {
        let channel = try channel()
        try channel.close().wait()
        let exchange = request(channel, method: .POST)
        channel.pipeline.write(exchange, promise: nil)
        guard case .notSent? = failure(exchange.completion) else {
            Issue.record("expected notSent, got \(String(describing: failure(exchange.completion)))")
            return
        }
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
    }

    /// RFC 9110 §9.2.2 and what provably did not run: which failures the client sends again on a new connection.
    @Test func whatIsSentAgain() {
        func error(_ kind: TransportError.Kind, _ underlying: String? = nil) -> TransportError {
            TransportError(kind, phase: .response, host: "h", port: 443, "x", underlying: underlying)
        }
        let closed = error(.connectionClosed)
        let notSent = error(.connectionClosed, ExchangeFailure.notSentMarker)
        let refused = error(.connectionClosed, ExchangeFailure.refusedMarker)
        #expect(ExchangeFailure.mayRetry(closed, reused: true, method: .GET))
        #expect(!ExchangeFailure.mayRetry(closed, reused: true, method: .POST), "it may have run")
        #expect(!ExchangeFailure.mayRetry(closed, reused: false, method: .GET), "a new connection that closes is the server's answer")
        #expect(ExchangeFailure.mayRetry(notSent, reused: true, method: .POST))
        #expect(!ExchangeFailure.mayRetry(notSent, reused: false, method: .POST))
        #expect(ExchangeFailure.mayRetry(refused, reused: false, method: .POST))
        #expect(!ExchangeFailure.mayRetry(error(.timedOut), reused: true, method: .GET))
    }
}
