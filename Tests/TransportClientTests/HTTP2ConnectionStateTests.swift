import NIOHTTP2
import Testing

@testable import TransportClient

/// The requests of one HTTP/2 connection as plain values: stream IDs, the server's bound, GOAWAY, resets, closing.
@Suite struct HTTP2ConnectionStateTests {
    @Test func streamsGetOddIncreasingIDsAsTheyGoOut() {
        var state = HTTP2ConnectionState()
        #expect(state.start(10) == .send(1))
        #expect(state.start(11) == .send(3))
        #expect(state.streams[3]?.token == 11)
    }

    /// Beyond SETTINGS_MAX_CONCURRENT_STREAMS requests wait, in order, and take an ID only when they go out.
    @Test func requestsBeyondTheServersBoundAreQueued() {
        var state = HTTP2ConnectionState()
        state.receivedSettings(maxConcurrentStreams: 2)
        #expect(state.start(1) == .send(1))
        #expect(state.start(2) == .send(3))
        #expect(state.start(3) == .queued)
        #expect(state.start(4) == .queued)
        #expect(state.nextToSend() == nil, "no stream is free")
        #expect(state.receivedHeaders(on: 1, informational: false, endStream: true)?.token == 1)
        let next = state.nextToSend()
        #expect(next?.token == 3 && next?.streamID == 5)
        #expect(state.nextToSend() == nil)
        #expect(state.closed(3) == 2)
        let last = state.nextToSend()
        #expect(last?.token == 4 && last?.streamID == 7)
        #expect(state.queuedCount == 0)
    }

    /// A request dropped while queued leaves the queue; one on a stream is reset; one already over is nothing.
    @Test func cancellingAQueuedOrOpenRequest() {
        var state = HTTP2ConnectionState()
        state.receivedSettings(maxConcurrentStreams: 1)
        #expect(state.start(1) == .send(1))
        #expect(state.start(2) == .queued)
        #expect(state.cancel(2, on: nil) == .dequeued)
        #expect(state.cancel(1, on: 1) == .reset(1))
        #expect(state.cancel(1, on: 1) == .unknown)
        #expect(state.start(3) == .send(3), "the queue is empty and the stream is free")
    }

    /// GOAWAY: streams above its last stream ID and queued requests were never processed, so they come back to be
    /// sent elsewhere; streams at or below it go on; nothing new starts.
    @Test func goAwayRefusesWhatTheServerWillNotProcess() {
        var state = HTTP2ConnectionState()
        state.receivedSettings(maxConcurrentStreams: 3)
        for token in 1...5 { _ = state.start(token) }
        let refused = state.receivedGoAway(lastStreamID: 3)
        #expect(Set(refused) == [3, 4, 5])
        #expect(Set(state.streams.keys) == [1, 3])
        #expect(state.start(6) == .refused)
        #expect(state.nextToSend() == nil)
        // A second GOAWAY may only lower the last stream ID.
        #expect(state.receivedGoAway(lastStreamID: 5) == [])
        #expect(state.lastStreamID == 3)
        #expect(state.receivedGoAway(lastStreamID: 1) == [2])
    }

    @Test func closingFailsSentAndUnsentApart() {
        var state = HTTP2ConnectionState()
        state.receivedSettings(maxConcurrentStreams: 1)
        _ = state.start(1)
        _ = state.start(2)
        let (sent, unsent) = state.close()
        #expect(sent == [1] && unsent == [2])
        #expect(state.start(3) == .closed)
    }

    @Test func dataOfAStreamThatIsGoneIsIgnored() {
        var state = HTTP2ConnectionState()
        _ = state.start(1)
        #expect(state.receivedData(on: 1, length: 1, endStream: false, readerPaused: false)?.event == .protocolError)
        #expect(state.streams.isEmpty, "a protocol error ends the stream")
        #expect(state.receivedData(on: 1, length: 1, endStream: false, readerPaused: false) == nil)
    }

    /// The connection's window is topped back up once half is used, as NIO does for its multiplexer.
    @Test func theConnectionWindowIsGivenBackAtHalf() {
        let window = HTTP2ConnectionState.connectionWindow
        #expect(HTTP2ConnectionState.connectionIncrement(windowSize: window) == nil)
        #expect(HTTP2ConnectionState.connectionIncrement(windowSize: window / 2 + 1) == nil)
        #expect(HTTP2ConnectionState.connectionIncrement(windowSize: window / 2) == window - window / 2)
        #expect(HTTP2ConnectionState.connectionIncrement(windowSize: 0) == window)
    }

    /// Many requests through a queue of one: the queue's storage stays bounded by what waits in it.
    @Test func aLongQueueDrainsInOrder() {
        var state = HTTP2ConnectionState()
        state.receivedSettings(maxConcurrentStreams: 1)
        _ = state.start(0)
        for token in 1...200 { #expect(state.start(token) == .queued) }
        var order: [Int] = []
        var id = HTTP2StreamID(1)
        while state.closed(id) != nil, let next = state.nextToSend() {
            order.append(next.token)
            id = next.streamID
        }
        #expect(order == Array(1...200))
        #expect(state.queued.isEmpty, "the queue's storage is let go once it drains")
    }
}
