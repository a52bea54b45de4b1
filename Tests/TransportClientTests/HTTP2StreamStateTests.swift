import NIOHTTP2
import Testing

@testable import TransportClient

/// One stream's transitions as plain values: no channel, no socket.
@Suite struct HTTP2StreamStateTests {
    @Test func aHeadThenABodyThenItsEnd() {
        var stream = HTTP2StreamState(token: 7)
        #expect(stream.receivedHeaders(informational: false, endStream: false) == .head(ended: false))
        #expect(stream.phase == .body)
        #expect(stream.receivedData(length: 100, endStream: false, readerPaused: false) == .data(windowIncrement: nil, ended: false))
        #expect(stream.receivedData(length: 0, endStream: true, readerPaused: false) == .data(windowIncrement: nil, ended: true))
        #expect(stream.phase == .done)
        #expect(stream.receivedData(length: 10, endStream: false, readerPaused: false) == .ignored, "nothing after the end")
    }

    @Test func aHeadThatEndsTheStreamIsTheWholeResponse() {
        var stream = HTTP2StreamState(token: 1)
        #expect(stream.receivedHeaders(informational: false, endStream: true) == .head(ended: true))
        #expect(stream.phase == .done)
    }

    /// 103 Early Hints and the like are not the answer; the final head follows, then trailers end the response.
    @Test func interimHeadsAreSkippedAndTrailersEnd() {
        var stream = HTTP2StreamState(token: 1)
        #expect(stream.receivedHeaders(informational: true, endStream: false) == .interim)
        #expect(stream.phase == .awaitingHead)
        #expect(stream.receivedHeaders(informational: false, endStream: false) == .head(ended: false))
        #expect(stream.receivedHeaders(informational: false, endStream: true) == .trailers)
        #expect(stream.phase == .done)
    }

    @Test func framesOutOfOrderAreProtocolErrors() {
        var early = HTTP2StreamState(token: 1)
        #expect(early.receivedData(length: 5, endStream: false, readerPaused: false) == .protocolError, "a body before any head")
        #expect(early.phase == .done)
        var interimEnd = HTTP2StreamState(token: 1)
        #expect(interimEnd.receivedHeaders(informational: true, endStream: true) == .protocolError)
        var midBody = HTTP2StreamState(token: 1)
        _ = midBody.receivedHeaders(informational: false, endStream: false)
        #expect(midBody.receivedHeaders(informational: false, endStream: false) == .protocolError, "trailers must end the stream")
    }

    /// The window is given back in halves while the reader keeps up, held while it lags, and given back at once
    /// when it catches up.
    @Test func theWindowFollowsTheReader() {
        let half = HTTP2StreamState.window / 2
        var stream = HTTP2StreamState(token: 1)
        _ = stream.receivedHeaders(informational: false, endStream: false)
        #expect(stream.receivedData(length: half - 1, endStream: false, readerPaused: false) == .data(windowIncrement: nil, ended: false))
        #expect(stream.receivedData(length: 1, endStream: false, readerPaused: false) == .data(windowIncrement: half, ended: false))
        #expect(stream.unacknowledged == 0)
        #expect(stream.receivedData(length: half, endStream: false, readerPaused: true) == .data(windowIncrement: nil, ended: false))
        #expect(stream.receivedData(length: half, endStream: false, readerPaused: true) == .data(windowIncrement: nil, ended: false))
        #expect(stream.unacknowledged == 2 * half, "held back while the reader lags")
        #expect(stream.readerResumed() == 2 * half)
        #expect(stream.readerResumed() == nil, "given back once")
        stream.end()
        #expect(stream.readerResumed() == nil, "nothing for a stream that ended")
    }

    /// What an open stream costs once its head is in: the state here, without the response's own bytes.
    @Test func anOpenStreamIsSmall() {
        #expect(MemoryLayout<HTTP2StreamState>.size <= 64)
    }
}
