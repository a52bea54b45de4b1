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
/// any connection; each stream carries that decision. Its ``HTTP2ClientHandler`` drives the streams at the frame
/// level and queues those beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS until others close.
final class HTTP2Session: Sendable {
    let channel: any Channel
    let key: PoolKey
    let report: ConnectionReport
    let handler: NIOLoopBound<HTTP2ClientHandler>
    /// Why the connection ended, as its handler saw it: for requests that arrive after.
    let death: NIOLockedValueBox<ExchangeFailure?>
    /// The last stream ID of a GOAWAY the server sent, once it has.
    private let goingAway: NIOLockedValueBox<HTTP2StreamID?>
    private let streams: NIOLockedValueBox<StreamCount>

    init(channel: any Channel, key: PoolKey, report: ConnectionReport, handler: NIOLoopBound<HTTP2ClientHandler>,
         goingAway: NIOLockedValueBox<HTTP2StreamID?>, streams: NIOLockedValueBox<StreamCount>, death: NIOLockedValueBox<ExchangeFailure?>) {
        self.channel = channel
        self.key = key
        self.report = report
        self.handler = handler
        self.death = death
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

    /// A new stream, as a ``Connection`` whose exchange is that stream's. Nothing goes to the event loop yet: the
    /// stream gets its ID when its request is sent (``Connection/start(head:body:limit:deadline:streaming:)``).
    func openStream() async throws(TransportError) -> Connection {
        guard channel.isActive else {
            throw TransportError(.connectionClosed, phase: .request, host: report.host, port: report.port,
                                 "no new HTTP/2 stream could be opened on the connection", underlying: "the connection has closed")
        }
        let token = streams.withLockedValue { count in
            count.open += 1
            count.issued += 1
            return count.issued
        }
        return Connection(stream: HTTP2StreamHandle(token: token, streams: streams, channel: channel), session: self)
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
    /// Streams handed out so far: the last one's token.
    var issued = 0

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

/// How a stream the server left unprocessed, or reset, reaches its request: ``ExchangeFailure/refused``, which any
/// request may be retried after (RFC 9113 §8.7), for REFUSED_STREAM or a stream above a GOAWAY's last stream ID
/// (NIO closes those with CANCEL); the code's name otherwise.
enum StreamRefusal {
    static func failure(_ code: HTTP2ErrorCode, on id: HTTP2StreamID, lastStreamID: HTTP2StreamID?) -> ExchangeFailure {
        if code == .refusedStream || lastStreamID.map({ id > $0 }) == true { return .refused }
        return .streamReset(name(of: code))
    }

    /// RFC 9113 §7's name for an error code; NIO's description is a type dump.
    static func name(of code: HTTP2ErrorCode) -> String {
        let names = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
                     "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
                     "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]
        return names.indices.contains(code.networkCode) ? names[code.networkCode] : "error code 0x\(String(code.networkCode, radix: 16))"
    }
}
