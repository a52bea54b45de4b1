import NIOHTTP2

/// One HTTP/2 stream of a request, as the client sees it: a plain value, changed only by the frames and events of
/// that stream. It holds no channel and no buffer, so an open stream costs a few words here.
struct HTTP2StreamState: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// The request went out; no final response head yet.
        case awaitingHead
        /// The head is in; the body is arriving.
        case body
        /// The response ended, or the stream failed: no frame of it is read any more.
        case done
    }

    /// What a frame of the stream means for its request.
    enum Event: Sendable, Equatable {
        /// The final response head; `ended` when the response has no body.
        case head(ended: Bool)
        /// An interim (1xx) response, which is not the answer.
        case interim
        /// Body bytes, and a WINDOW_UPDATE to send for the stream when one is due.
        case data(windowIncrement: Int?, ended: Bool)
        /// Trailers, which end the response.
        case trailers
        /// The frame breaks the protocol (a body before any head, say): the stream is to be reset.
        case protocolError
        /// The stream is already done: nothing to do.
        case ignored
    }

    /// Bytes this client is willing to have in flight on a stream: what it announces as its initial window. NIO's
    /// default; a slow reader then holds back at most this much beyond ``BodyBuffer/high``.
    static let window = 65_535

    /// The request this stream carries (``HTTP2ConnectionState`` numbers requests in the order they arrive).
    let token: Int
    private(set) var phase = Phase.awaitingHead
    /// Flow-controlled bytes received and not yet given back to the server by a WINDOW_UPDATE.
    private(set) var unacknowledged = 0

    init(token: Int) { self.token = token }

    /// A HEADERS frame: the head, an interim head, or trailers.
    mutating func receivedHeaders(informational: Bool, endStream: Bool) -> Event {
        switch phase {
        case .done:
            return .ignored
        case .awaitingHead:
            // An interim response that ends the stream breaks RFC 9113 §8.1.
            if informational { return endStream ? fail() : .interim }
            phase = endStream ? .done : .body
            return .head(ended: endStream)
        case .body:
            // Headers after the body began are trailers, and end the stream (RFC 9113 §8.1).
            guard endStream else { return fail() }
            phase = .done
            return .trailers
        }
    }

    /// A DATA frame of `length` flow-controlled bytes (padding included). While the reader keeps up
    /// (`readerPaused` false), the bytes are given back once half the window is used, as NIO does for its streams;
    /// while it lags they are held, and the server stops once the window is spent.
    mutating func receivedData(length: Int, endStream: Bool, readerPaused: Bool) -> Event {
        switch phase {
        case .done: return .ignored
        case .awaitingHead: return fail()
        case .body:
            if endStream {
                phase = .done
                return .data(windowIncrement: nil, ended: true)
            }
            unacknowledged += length
            guard !readerPaused else { return .data(windowIncrement: nil, ended: false) }
            return .data(windowIncrement: takeIncrement(), ended: false)
        }
    }

    /// The reader caught up: the WINDOW_UPDATE held back, when one is due.
    mutating func readerResumed() -> Int? {
        guard phase == .body else { return nil }
        return takeIncrement()
    }

    /// The stream ended early (a reset, a refusal, a time limit).
    mutating func end() { phase = .done }

    private mutating func takeIncrement() -> Int? {
        guard unacknowledged >= Self.window / 2 else { return nil }
        defer { unacknowledged = 0 }
        return unacknowledged
    }

    private mutating func fail() -> Event {
        phase = .done
        return .protocolError
    }
}
