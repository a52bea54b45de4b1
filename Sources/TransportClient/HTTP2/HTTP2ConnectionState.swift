import NIOHTTP2

/// The requests of one HTTP/2 connection and their streams: a plain value that the connection's handler feeds
/// frames and requests to, and that answers what to do. Requests are known by a token, so that this value holds no
/// promise, buffer or channel, and runs in tests without a socket.
///
/// Stream IDs are given when a request goes out, not when it arrives: a request queued behind the server's
/// SETTINGS_MAX_CONCURRENT_STREAMS holds none, and IDs go out in increasing order as RFC 9113 §5.1.1 requires.
struct HTTP2ConnectionState: Sendable {
    /// What became of a request handed over.
    enum Start: Sendable, Equatable {
        /// To send now, on this stream.
        case send(HTTP2StreamID)
        /// Held until a stream closes.
        case queued
        /// The server sent GOAWAY: nothing new starts here, and nothing of the request went out.
        case refused
        /// The connection has closed.
        case closed
    }

    /// What a reset, or a request's end before its response, means for the stream.
    enum Cancel: Sendable, Equatable {
        /// The request was on this stream: reset it.
        case reset(HTTP2StreamID)
        /// The request was still queued: nothing went out.
        case dequeued
        /// Nothing is left of the request here.
        case unknown
    }

    /// The connection's receive window, kept as NIO keeps it for its multiplexer: topped back up to this once it
    /// falls to half. Each stream's own window holds back a slow reader, so the connection's is given back at once.
    static let connectionWindow = 65_535

    private(set) var streams: [HTTP2StreamID: HTTP2StreamState] = [:]
    private(set) var queued: [Int] = []
    private var queueStart = 0
    private var nextStreamID = HTTP2StreamID(1)
    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS; NIO assumes 100 until the server's SETTINGS say otherwise.
    private(set) var maxConcurrentStreams = 100
    /// The last stream ID of the GOAWAY the server sent, once it has.
    private(set) var lastStreamID: HTTP2StreamID?
    private(set) var isClosed = false

    /// Requests waiting for a stream.
    var queuedCount: Int { queued.count - queueStart }

    /// A request handed over; `token` names it from now on.
    mutating func start(_ token: Int) -> Start {
        if isClosed { return .closed }
        if lastStreamID != nil { return .refused }
        guard streams.count < maxConcurrentStreams, queuedCount == 0 else {
            queued.append(token)
            return .queued
        }
        return .send(open(token))
    }

    /// The next queued request to send, when a stream is free for it.
    mutating func nextToSend() -> (token: Int, streamID: HTTP2StreamID)? {
        guard !isClosed, lastStreamID == nil, streams.count < maxConcurrentStreams, queueStart < queued.count else { return nil }
        let token = queued[queueStart]
        queueStart += 1
        // Compacted now and then, so the queue never grows past the requests waiting in it.
        if queueStart == queued.count {
            queued.removeAll(keepingCapacity: true)
            queueStart = 0
        } else if queueStart > 32 && queueStart * 2 > queued.count {
            queued.removeFirst(queueStart)
            queueStart = 0
        }
        return (token, open(token))
    }

    private mutating func open(_ token: Int) -> HTTP2StreamID {
        let id = nextStreamID
        nextStreamID = HTTP2StreamID(Int(id) + 2)
        streams[id] = HTTP2StreamState(token: token)
        return id
    }

    /// The server's SETTINGS, when they carry SETTINGS_MAX_CONCURRENT_STREAMS.
    mutating func receivedSettings(maxConcurrentStreams: Int) {
        self.maxConcurrentStreams = max(0, maxConcurrentStreams)
    }

    /// A HEADERS frame: the request it belongs to, and what it means. A stream that ends is closed here.
    mutating func receivedHeaders(on id: HTTP2StreamID, informational: Bool, endStream: Bool) -> (token: Int, event: HTTP2StreamState.Event)? {
        guard var stream = streams[id] else { return nil }
        let event = stream.receivedHeaders(informational: informational, endStream: endStream)
        store(stream, id)
        return (stream.token, event)
    }

    /// A DATA frame of `length` flow-controlled bytes (NIO has counted them against the connection's window).
    mutating func receivedData(on id: HTTP2StreamID, length: Int, endStream: Bool, readerPaused: Bool) -> (token: Int, event: HTTP2StreamState.Event)? {
        guard var stream = streams[id] else { return nil }
        let event = stream.receivedData(length: length, endStream: endStream, readerPaused: readerPaused)
        store(stream, id)
        return (stream.token, event)
    }

    /// NIO's count of the connection's receive window changed: the WINDOW_UPDATE to send, once it is down to half.
    static func connectionIncrement(windowSize: Int) -> Int? {
        windowSize <= connectionWindow / 2 ? connectionWindow - windowSize : nil
    }

    /// The reader of `id` caught up: the stream's WINDOW_UPDATE, when one is due.
    mutating func readerResumed(on id: HTTP2StreamID) -> Int? {
        guard var stream = streams[id] else { return nil }
        let increment = stream.readerResumed()
        streams[id] = stream
        return increment
    }

    /// The stream ended early: by the server's reset, NIO's closing of it, or a protocol error. The request's token.
    mutating func closed(_ id: HTTP2StreamID) -> Int? {
        streams.removeValue(forKey: id)?.token
    }

    /// GOAWAY: the requests the server will never process, those above `last` and those still queued, all safe to
    /// send again elsewhere. A second GOAWAY may only lower the last stream ID (RFC 9113 §6.8).
    mutating func receivedGoAway(lastStreamID last: HTTP2StreamID) -> [Int] {
        lastStreamID = min(lastStreamID ?? last, last)
        var refused = queued[queueStart...].map { $0 }
        queued = []
        queueStart = 0
        for (id, stream) in streams where id > (lastStreamID ?? last) {
            streams[id] = nil
            refused.append(stream.token)
        }
        return refused
    }

    /// The request named `token` (on stream `id`, once it has one) ends before its response has: what is left of
    /// it to undo.
    mutating func cancel(_ token: Int, on id: HTTP2StreamID?) -> Cancel {
        if let id, streams[id]?.token == token {
            streams[id] = nil
            return .reset(id)
        }
        guard id == nil, let index = queued[queueStart...].firstIndex(of: token) else { return .unknown }
        queued.remove(at: index)
        return .dequeued
    }

    /// The connection closed: the requests on streams, and those that never went out.
    mutating func close() -> (sent: [Int], unsent: [Int]) {
        isClosed = true
        let sent = streams.values.map(\.token)
        let unsent = Array(queued[queueStart...])
        streams = [:]
        queued = []
        queueStart = 0
        return (sent, unsent)
    }

    /// A stream that is done no longer counts against the server's bound.
    private mutating func store(_ stream: HTTP2StreamState, _ id: HTTP2StreamID) {
        streams[id] = stream.phase == .done ? nil : stream
    }
}
