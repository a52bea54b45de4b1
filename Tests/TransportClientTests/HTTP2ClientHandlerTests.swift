import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import Testing

@testable import TransportClient

/// The frame-level HTTP/2 handler on an EmbeddedChannel: frames in, frames out, promises completed, no socket.
@Suite struct HTTP2ClientHandlerTests {
    private struct Rig {
        let channel = EmbeddedChannel()
        let streams = NIOLockedValueBox(StreamCount())
        let goingAway = NIOLockedValueBox<HTTP2StreamID?>(nil)
        let handler: HTTP2ClientHandler

        init() throws {
            handler = HTTP2ClientHandler(death: NIOLockedValueBox(nil), goingAway: goingAway, streams: streams)
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        }

        /// A request as ``Connection/start(head:body:limit:deadline:streaming:)`` hands it over.
        func start(_ uri: String = "/", body: [UInt8]? = nil, limit: Int = 1 << 20,
                   streaming: Bool = false,
                   timeLimit: TimeAmount? = nil) -> (ExchangeRequest, HTTP2StreamHandle) {
            let head = HTTPRequestHead(version: .http1_1, method: body == nil ? .GET : .POST, uri: uri, headers: ["Host": "a.test", "Accept": "*/*"])
            let request = ExchangeRequest(head: head, body: body, limit: limit, responseBody: streaming ? BodyBuffer() : nil,
                                          deadline: timeLimit.map { channel.eventLoop.now + $0 } ?? .distantFuture)
            let token = streams.withLockedValue { count in
                count.open += 1
                count.issued += 1
                return count.issued
            }
            let handle = HTTP2StreamHandle(token: token, streams: streams, channel: channel)
            handler.start(request, handle: handle)
            return (request, handle)
        }

        func written() throws -> [HTTP2Frame] {
            var frames: [HTTP2Frame] = []
            while let frame = try channel.readOutbound(as: HTTP2Frame.self) { frames.append(frame) }
            return frames
        }

        func respond(_ id: HTTP2StreamID, status: Int = 200, endStream: Bool = false) throws {
            let block: HPACKHeaders = [":status": String(status), "content-type": "text/plain"]
            try channel.writeInbound(HTTP2Frame(streamID: id, payload: .headers(.init(headers: block, endStream: endStream))))
        }

        func data(_ id: HTTP2StreamID, _ count: Int, endStream: Bool = false) throws {
            let bytes = ByteBuffer(repeating: UInt8(ascii: "a"), count: count)
            try channel.writeInbound(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(bytes), endStream: endStream))))
        }
    }

    /// The future's outcome if it has one: never waits, so a test whose response never comes fails instead of hanging.
    private func outcome(_ completion: ExchangeCompletion) -> ExchangeCompletion.Outcome? { completion.outcome }

    private func value(_ completion: ExchangeCompletion) -> ExchangeEnd? {
        guard case .success(let value)? = completion.outcome else { return nil }
        return value
    }

    private func failure(_ completion: ExchangeCompletion) -> ExchangeFailure? {
        guard case .failure(let failure)? = completion.outcome else { return nil }
        return failure
    }

    private func windowUpdates(_ frames: [HTTP2Frame]) -> [(HTTP2StreamID, Int)] {
        frames.compactMap { frame in
            if case .windowUpdate(let increment) = frame.payload { return (frame.streamID, increment) }
            return nil
        }
    }

    @Test func aRequestGoesOutAsFramesAndItsResponseComesBack() throws {
        let rig = try Rig()
        let (request, handle) = rig.start("/path?q=1", body: [1, 2, 3])
        let frames = try rig.written()
        #expect(frames.count == 2)
        guard case .headers(let headers) = frames.first?.payload, case .data(let data) = frames.last?.payload else {
            Issue.record("\(frames)")
            return
        }
        #expect(frames.first?.streamID == 1)
        #expect(headers.headers.first(name: ":method") == "POST" && headers.headers.first(name: ":path") == "/path?q=1")
        #expect(headers.headers.first(name: ":authority") == "a.test" && headers.headers.first(name: ":scheme") == "https")
        #expect(headers.headers.first(name: "accept") == "*/*" && !headers.headers.contains(name: "host"))
        #expect(!headers.endStream && data.endStream && data.data.readableBytes == 3)

        try rig.respond(1)
        #expect(request.completion.head?.status == .ok)
        #expect(handle.isOpen)
        try rig.data(1, 5)
        try rig.data(1, 0, endStream: true)
        let end = value(request.completion)
        #expect(end?.body.count == 5 && end?.head.headers.first(name: "content-type") == "text/plain")
        #expect(!handle.isOpen, "the stream is counted out as its response ends")
        #expect(rig.streams.withLockedValue { $0.open } == 0)
    }

    /// 103 Early Hints is not the answer; the head after it is.
    @Test func anInterimHeadIsSkipped() throws {
        let rig = try Rig()
        let (request, _) = rig.start()
        try rig.respond(1, status: 103)
        try rig.respond(1, status: 404, endStream: true)
        #expect(value(request.completion)?.head.status == .notFound)
    }

    /// Beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS a request waits, and goes out when a stream ends.
    @Test func requestsBeyondTheServersBoundWait() throws {
        let rig = try Rig()
        try rig.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 1)]))))
        let (first, _) = rig.start("/1")
        let (second, _) = rig.start("/2")
        #expect(try rig.written().map(\.streamID) == [1], "the second waits")
        try rig.respond(1, endStream: true)
        #expect(value(first.completion) != nil)
        let next = try rig.written()
        #expect(next.map(\.streamID) == [3])
        guard case .headers(let headers) = next.first?.payload else { Issue.record("\(next)"); return }
        #expect(headers.headers.first(name: ":path") == "/2")
        try rig.respond(3, endStream: true)
        #expect(value(second.completion) != nil)
    }

    /// GOAWAY: the streams above its last ID and the queued requests fail as refused (safe to send again), the one
    /// below goes on, and the connection closes after it.
    @Test func goAwayRefusesTheUnprocessedAndClosesAfterTheRest() throws {
        let rig = try Rig()
        try rig.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 2)]))))
        let (kept, _) = rig.start()
        let (above, _) = rig.start()
        let (queued, _) = rig.start()
        try rig.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 1, errorCode: .noError, opaqueData: nil)))
        guard case .refused? = failure(above.completion), case .refused? = failure(queued.completion) else {
            Issue.record("\(String(describing: failure(above.completion))), \(String(describing: failure(queued.completion)))")
            return
        }
        #expect(rig.goingAway.withLockedValue { $0 } == 1)
        #expect(rig.channel.isActive, "stream 1 is still answered")
        let (late, _) = rig.start()
        guard case .refused? = failure(late.completion) else { Issue.record("a new request after GOAWAY"); return }
        try rig.respond(1, endStream: true)
        #expect(value(kept.completion) != nil)
        #expect(!rig.channel.isActive, "closed once its last stream ended")
    }

    @Test func resetsAreRefusalsOrNamed() throws {
        let rig = try Rig()
        let (refused, _) = rig.start()
        let (reset, _) = rig.start()
        try rig.channel.writeInbound(HTTP2Frame(streamID: 1, payload: .rstStream(.refusedStream)))
        try rig.channel.writeInbound(HTTP2Frame(streamID: 3, payload: .rstStream(.http11Required)))
        guard case .refused? = failure(refused.completion),
              case .streamReset("HTTP_1_1_REQUIRED")? = failure(reset.completion) else {
            Issue.record("\(String(describing: failure(refused.completion))), \(String(describing: failure(reset.completion)))")
            return
        }
        #expect(rig.channel.isActive, "a reset ends a stream, not the connection")
    }

    /// A buffered body past its limit ends that stream only, with RST_STREAM CANCEL.
    @Test func aBodyPastItsLimitResetsItsStream() throws {
        let rig = try Rig()
        let (request, _) = rig.start(limit: 10)
        _ = try rig.written()
        try rig.respond(1)
        try rig.data(1, 11)
        guard case .tooLarge(10)? = failure(request.completion) else { Issue.record("not tooLarge"); return }
        let frames = try rig.written()
        guard case .rstStream(.cancel)? = frames.last?.payload else { Issue.record("\(frames)"); return }
        #expect(rig.channel.isActive)
    }

    /// The stream's window is given back while its reader keeps up, held back while the reader lags past
    /// ``BodyBuffer/high``, and given back once the reader has caught up.
    @Test func aSlowReaderHoldsTheStreamsWindow() async throws {
        let rig = try Rig()
        let (request, _) = rig.start(streaming: true)
        let buffer = try #require(request.responseBody)
        _ = try rig.written()
        try rig.respond(1)
        let chunk = 16_384
        try rig.data(1, chunk)
        try rig.data(1, chunk)
        #expect(windowUpdates(try rig.written()).map(\.1) == [2 * chunk], "given back at half the window")
        while !buffer.isPaused { try rig.data(1, chunk) }
        _ = try rig.written()
        try rig.data(1, chunk)
        try rig.data(1, chunk)
        #expect(windowUpdates(try rig.written()).isEmpty, "held back while the reader lags")
        // The reader takes what is buffered.
        let held = buffer.buffered
        #expect(try await buffer.next()?.count == held)
        #expect(!buffer.isPaused)
        rig.channel.embeddedEventLoop.run()
        let given = windowUpdates(try rig.written())
        #expect(given.count == 1 && given.first?.0 == 1 && (given.first?.1 ?? 0) >= 2 * chunk, "\(given)")
    }

    /// NIO counts the connection's window and says so; the handler tops it up once half is used.
    @Test func theConnectionsWindowIsToppedUp() throws {
        let rig = try Rig()
        let window = HTTP2ConnectionState.connectionWindow
        rig.channel.pipeline.fireUserInboundEventTriggered(NIOHTTP2WindowUpdatedEvent(streamID: .rootStream, inboundWindowSize: window - 1000, outboundWindowSize: nil))
        #expect(windowUpdates(try rig.written()).isEmpty)
        rig.channel.pipeline.fireUserInboundEventTriggered(NIOHTTP2WindowUpdatedEvent(streamID: .rootStream, inboundWindowSize: 1000, outboundWindowSize: nil))
        let given = windowUpdates(try rig.written())
        #expect(given.count == 1 && given.first?.0 == .rootStream && given.first?.1 == window - 1000)
    }

    /// A closed connection fails what was sent as closed, and what never went out as not sent (safe to retry).
    @Test func aClosedConnectionFailsSentAndUnsentApart() throws {
        let rig = try Rig()
        try rig.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 1)]))))
        let (sent, _) = rig.start()
        let (unsent, _) = rig.start()
        try rig.channel.close().wait()
        guard case .closed? = failure(sent.completion), case .notSent? = failure(unsent.completion) else {
            Issue.record("\(String(describing: failure(sent.completion))), \(String(describing: failure(unsent.completion)))")
            return
        }
        let (after, _) = rig.start()
        guard case .notSent? = failure(after.completion) else { Issue.record("a request after the close"); return }
    }

    /// A cancelled request (its time limit, or its owner letting go) resets its stream and leaves the connection.
    @Test func aCancelledRequestResetsItsStreamOnly() throws {
        let rig = try Rig()
        let (request, handle) = rig.start()
        _ = try rig.written()
        rig.handler.cancel(handle.token, failure: .closed)
        guard case .closed? = failure(request.completion) else { Issue.record("not failed"); return }
        let frames = try rig.written()
        guard case .rstStream(.cancel)? = frames.last?.payload, frames.last?.streamID == 1 else { Issue.record("\(frames)"); return }
        #expect(!handle.isOpen && rig.channel.isActive)
        try rig.respond(1, endStream: true)
    }

    /// A request's time limit resets its stream, or takes it out of the queue, and marks the failure a timeout; the
    /// other streams, and the connection, go on. One timer serves them all.
    @Test func aTimeLimitEndsItsRequestOnly() throws {
        let rig = try Rig()
        try rig.channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([HTTP2Setting(parameter: .maxConcurrentStreams, value: 2)]))))
        let (short, _) = rig.start("/short", timeLimit: .seconds(1))
        let (long, _) = rig.start("/long", timeLimit: .seconds(5))
        let (queued, _) = rig.start("/queued", timeLimit: .seconds(2))
        #expect(try rig.written().map(\.streamID) == [1, 3], "the third waits for a stream")

        rig.channel.embeddedEventLoop.advanceTime(by: .milliseconds(999))
        #expect(outcome(short.completion) == nil, "not before its time")
        rig.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        guard case .timedOut? = failure(short.completion) else { Issue.record("the first request did not end as a timeout"); return }
        // Its stream is reset, and the queued request takes the freed stream.
        let frames = try rig.written()
        #expect(frames.map(\.streamID) == [1, 5])
        guard case .rstStream(.cancel)? = frames.first?.payload else { Issue.record("\(frames)"); return }

        rig.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        guard case .timedOut? = failure(queued.completion) else { Issue.record("the third request did not end as a timeout"); return }
        #expect(outcome(long.completion) == nil)

        try rig.respond(3, endStream: true)
        #expect(value(long.completion)?.head.status == .ok, "a response in time is not a timeout")
        rig.channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        guard case .success? = outcome(long.completion) else { Issue.record("a response in time became a timeout"); return }
        #expect(rig.channel.isActive)
    }

    /// A request with an earlier deadline than the timer is armed for moves the timer.
    @Test func anEarlierDeadlineMovesTheTimer() throws {
        let rig = try Rig()
        let (late, _) = rig.start(timeLimit: .seconds(10))
        let (early, _) = rig.start(timeLimit: .seconds(1))
        rig.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        guard case .timedOut? = failure(early.completion) else { Issue.record("the early request did not end"); return }
        #expect(outcome(late.completion) == nil)
        rig.channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        guard case .timedOut? = failure(late.completion) else { Issue.record("the late request did not end"); return }
    }

    // MARK: Against NIO's own handler on both sides, bytes moved in memory

    /// A client pipeline as the connection has it (NIO's handler with no multiplexer, then ours) and a server that
    /// reads and writes frames, joined by moving bytes between two EmbeddedChannels.
    private struct Pair {
        let client = EmbeddedChannel()
        let server = EmbeddedChannel()
        let streams = NIOLockedValueBox(StreamCount())
        let handler: HTTP2ClientHandler

        init() throws {
            handler = HTTP2ClientHandler(death: NIOLockedValueBox(nil), goingAway: NIOLockedValueBox(nil), streams: streams)
            try client.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .client, frameDelegate: handler))
            try client.pipeline.syncOperations.addHandler(handler)
            // The server's checks are off, so that it sends what a broken server would.
            try server.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .server, headerBlockValidation: .disabled))
            try client.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
            try server.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            try exchange()
        }

        /// Moves bytes both ways until neither side has more to send (a bounded number of rounds, so that two sides
        /// that never settle fail the test instead of hanging it).
        func exchange() throws {
            var moved = true
            var rounds = 0
            while moved {
                rounds += 1
                guard rounds < 1_000 else {
                    Issue.record("the two sides kept sending")
                    return
                }
                moved = false
                while case .byteBuffer(let bytes)? = try client.readOutbound(as: IOData.self) {
                    _ = try? server.writeInbound(bytes)
                    moved = true
                }
                while case .byteBuffer(let bytes)? = try server.readOutbound(as: IOData.self) {
                    _ = try? client.writeInbound(bytes)
                    moved = true
                }
            }
        }

        func serverFrames() throws -> [HTTP2Frame] {
            var frames: [HTTP2Frame] = []
            while let frame = try server.readInbound(as: HTTP2Frame.self) { frames.append(frame) }
            return frames
        }

        func start(limit: Int = 1 << 20) throws -> ExchangeRequest {
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["Host": "a.test"])
            let request = ExchangeRequest(head: head, body: nil, limit: limit)
            let token = streams.withLockedValue { count in
                count.open += 1
                count.issued += 1
                return count.issued
            }
            handler.start(request, handle: HTTP2StreamHandle(token: token, streams: streams, channel: client))
            try exchange()
            return request
        }

        func send(_ frame: HTTP2Frame) throws {
            // Not writeOutbound, which waits for the write: NIO holds a DATA frame back while the window is spent.
            server.writeAndFlush(frame, promise: nil)
            try exchange()
        }
    }

    /// A body larger than both windows arrives whole: the client gives back the connection's window and the
    /// stream's, or NIO on the server would stop at 65,535 bytes.
    @Test func aLargeBodyFlowsBecauseTheWindowsAreGivenBack() throws {
        let pair = try Pair()
        let request = try pair.start()
        let frames = try pair.serverFrames()
        guard case .headers(let headers)? = frames.last(where: { $0.streamID == 1 })?.payload else { Issue.record("\(frames)"); return }
        #expect(headers.headers.first(name: ":authority") == "a.test" && headers.endStream)
        try pair.send(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: [":status": "200"]))))
        let size = 200_000
        var sent = 0
        while sent < size {
            let chunk = min(16_384, size - sent)
            sent += chunk
            try pair.send(HTTP2Frame(streamID: 1, payload: .data(.init(data: .byteBuffer(ByteBuffer(repeating: 0x61, count: chunk)), endStream: sent == size))))
        }
        #expect(value(request.completion)?.body.count == size)
        let updates = try pair.serverFrames().compactMap { frame -> HTTP2StreamID? in
            if case .windowUpdate = frame.payload { return frame.streamID }
            return nil
        }
        #expect(updates.contains(.rootStream) && updates.contains(1), "\(updates)")
    }

    /// A response NIO finds malformed on one stream fails that request as the server's fault; the connection goes on.
    @Test func aMalformedResponseFailsItsStreamOnly() throws {
        let pair = try Pair()
        let request = try pair.start()
        _ = try pair.serverFrames()
        // A header block without :status breaks RFC 9113 §8.3.2; NIO resets the stream.
        try pair.send(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: ["content-type": "text/plain"]))))
        guard case .malformedResponse? = failure(request.completion) else {
            Issue.record("\(String(describing: failure(request.completion)))")
            return
        }
        #expect(pair.client.isActive)
        let next = try pair.start()
        try pair.send(HTTP2Frame(streamID: 3, payload: .headers(.init(headers: [":status": "204"], endStream: true))))
        #expect(value(next.completion)?.head.status == .noContent)
    }

    /// A connection error: NIO sends GOAWAY, and the client closes the connection and fails what was on it.
    @Test func aConnectionErrorClosesTheConnection() throws {
        let pair = try Pair()
        let request = try pair.start()
        // DATA on stream 0 is a connection error (RFC 9113 §6.1); the server's NIO would not send it, so raw bytes.
        _ = try? pair.client.writeInbound(ByteBuffer(bytes: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0x61]))
        pair.client.embeddedEventLoop.run()
        #expect(!pair.client.isActive)
        guard case .error? = failure(request.completion) else {
            Issue.record("\(String(describing: failure(request.completion)))")
            return
        }
    }
}
