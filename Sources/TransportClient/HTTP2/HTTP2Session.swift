import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Which HTTP versions the client offers through ALPN.
public enum HTTPVersionPreference: String, Sendable, CaseIterable {
    /// Offer `h2` and `http/1.1`; use what the server picks (the default, as URLSession).
    case negotiate
    /// Offer `http/1.1` only.
    case http1Only
    /// Offer `h2` only, and fail when the server does not pick it.
    case http2Only

    /// The ALPN protocol names to offer.
    var alpn: [String] {
        switch self {
        case .negotiate: return ["h2", "http/1.1"]
        case .http1Only: return ["http/1.1"]
        case .http2Only: return ["h2"]
        }
    }
}

/// One HTTP/2 connection, shared by concurrent requests as streams. It was evaluated once, when it was opened, like
/// any connection; each stream carries that decision. NIO's HTTP/2 handler queues streams beyond the server's
/// SETTINGS_MAX_CONCURRENT_STREAMS until others close, so concurrency stays within the server's bound.
final class HTTP2Session: Sendable {
    let channel: any Channel
    let key: PoolKey
    let report: ConnectionReport
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    /// The last stream ID of a GOAWAY the server sent, once it has.
    private let goingAway: NIOLockedValueBox<HTTP2StreamID?>
    private let streams: NIOLockedValueBox<StreamCount>

    init(channel: any Channel, key: PoolKey, report: ConnectionReport, multiplexer: NIOHTTP2Handler.StreamMultiplexer,
         goingAway: NIOLockedValueBox<HTTP2StreamID?>, streams: NIOLockedValueBox<StreamCount>) {
        self.channel = channel
        self.key = key
        self.report = report
        self.multiplexer = multiplexer
        self.goingAway = goingAway
        self.streams = streams
    }

    /// Whether new streams may start here: open, and no GOAWAY received.
    var isUsable: Bool { channel.isActive && goingAway.withLockedValue { $0 } == nil }

    func close() { channel.close(promise: nil) }

    /// Takes no new stream, and closes once its open streams end: a connection out of the pool is nobody's to close
    /// later, and a server may keep it open after its GOAWAY for as long as it likes.
    func retire() {
        if streams.withLockedValue({ $0.retire() }) { close() }
    }

    /// A new stream, as a ``Connection`` whose exchange is that stream's: NIO's HTTP/2-to-HTTP/1 codec turns the
    /// stream's frames into the same request and response parts as on HTTP/1.1.
    func openStream() async throws(TransportError) -> Connection {
        let death = NIOLockedValueBox<ExchangeFailure?>(nil)
        let goingAway = self.goingAway
        let exchangePromise = channel.eventLoop.makePromise(of: NIOLoopBound<ExchangeHandler>.self)
        let stream: any Channel
        let exchange: NIOLoopBound<ExchangeHandler>
        do {
            // One wait for both: each wait on a future from outside its event loop is a task there and a wake-up here.
            (stream, exchange) = try await multiplexer.createStreamChannel { stream in
                stream.eventLoop.makeCompletedFuture {
                    let sync = stream.pipeline.syncOperations
                    try sync.addHandler(HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .https))
                    try sync.addHandler(StreamRefusal(goingAway: goingAway))
                    let handler = ExchangeHandler(death: death)
                    try sync.addHandler(handler)
                    exchangePromise.succeed(NIOLoopBound(handler, eventLoop: stream.eventLoop))
                }
            }.flatMap { stream in exchangePromise.futureResult.map { (stream, $0) } }.get()
        } catch {
            exchangePromise.fail(ExchangeFailure.closed)
            throw TransportError(.connectionClosed, phase: .request, host: report.host, port: report.port,
                                 "no new HTTP/2 stream could be opened on the connection", underlying: "\(error)")
        }
        streams.withLockedValue { $0.open += 1 }
        // The channel, not the session: a retired session may be gone by then, and its connection must still close.
        let streams = self.streams, channel = self.channel
        stream.closeFuture.whenComplete { _ in
            if streams.withLockedValue({ $0.end() }) { channel.close(promise: nil) }
        }
        return Connection(stream: stream, session: self, exchange: exchange, death: death)
    }

    /// Connection-specific headers (RFC 9113 §8.2.2), which HTTP/2 forbids: NIO would refuse the request.
    static func removingConnectionHeaders(_ head: HTTPRequestHead) -> HTTPRequestHead {
        var head = head
        if let named = head.headers.first(name: "connection") {
            for name in named.split(separator: ",") { head.headers.remove(name: name.trimmingCharacters(in: .whitespaces)) }
        }
        for name in ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"] { head.headers.remove(name: name) }
        if let te = head.headers.first(name: "te"), te.lowercased() != "trailers" { head.headers.remove(name: "te") }
        return head
    }
}

/// The streams open on one HTTP/2 connection, and whether it is retiring: it then closes when the last one ends.
struct StreamCount: Sendable {
    var open = 0
    var retiring = false

    /// Marks it retiring; true when nothing is open, so it is to close now.
    mutating func retire() -> Bool {
        retiring = true
        return open == 0
    }

    /// A stream ended; true when it was the last of a retiring connection.
    mutating func end() -> Bool {
        open -= 1
        return open == 0 && retiring
    }
}

/// Notes a GOAWAY on the connection, so that no new stream starts there; streams the server will still answer go on,
/// and the connection closes after the last of them, or at once when none is open.
final class GoAwayObserver: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let goingAway: NIOLockedValueBox<HTTP2StreamID?>
    private let streams: NIOLockedValueBox<StreamCount>

    init(goingAway: NIOLockedValueBox<HTTP2StreamID?>, streams: NIOLockedValueBox<StreamCount>) {
        self.goingAway = goingAway
        self.streams = streams
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var idle = false
        if case .goAway(let lastStreamID, _, _) = unwrapInboundIn(data).payload {
            // A second GOAWAY may only lower the last stream ID (RFC 9113 §6.8).
            goingAway.withLockedValue { $0 = min($0 ?? lastStreamID, lastStreamID) }
            idle = streams.withLockedValue { $0.retire() }
        }
        context.fireChannelRead(data)
        if idle { context.close(promise: nil) }
    }
}

/// Turns a stream the server left unprocessed into ``ExchangeFailure/refused``, which any request may be retried
/// after (RFC 9113 §8.7): one reset with REFUSED_STREAM, or one above a GOAWAY's last stream ID (NIO closes those
/// with CANCEL).
final class StreamRefusal: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let goingAway: NIOLockedValueBox<HTTP2StreamID?>

    init(goingAway: NIOLockedValueBox<HTTP2StreamID?>) { self.goingAway = goingAway }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let closed = error as? NIOHTTP2Errors.StreamClosed {
            let last = goingAway.withLockedValue { $0 }
            if closed.errorCode == .refusedStream || (closed.errorCode == .cancel && last.map { closed.streamID > $0 } == true) {
                return context.fireErrorCaught(ExchangeFailure.refused)
            }
            return context.fireErrorCaught(ExchangeFailure.streamReset(Self.name(of: closed.errorCode)))
        }
        context.fireErrorCaught(error)
    }

    /// RFC 9113 §7's name for an error code; NIO's description is a type dump.
    static func name(of code: HTTP2ErrorCode) -> String {
        let names = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
                     "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
                     "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]
        return names.indices.contains(code.networkCode) ? names[code.networkCode] : "error code 0x\(String(code.networkCode, radix: 16))"
    }
}
