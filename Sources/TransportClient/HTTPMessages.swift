import AppTransportSecurity
import NIOCore
import NIOHTTP1
import TransportTrust

/// A request to send.
public struct HTTPRequest: Sendable {
    /// An absolute `https` (or, where ATS allows it, `http`) URL.
    public var url: String
    /// The HTTP method; GET by default.
    public var method: HTTPMethod
    /// Headers sent as given. The client adds `Host` when absent and sets `Content-Length` from ``body``.
    public var headers: HTTPHeaders
    /// The request body, if any.
    public var body: [UInt8]?
    /// This request's whole time limit, across redirects and retries, in place of the client's
    /// ``Timeouts/request`` (as `URLRequest.timeoutInterval` overrides the session's). Nil: the client's.
    public var timeout: Duration?
    /// ``url`` as the caller already parsed it, at its boundary: the client then does not parse it again.
    package var parsedTarget: ConnectionTarget?

    /// A request for `url`; nothing is checked until it is sent.
    public init(url: String, method: HTTPMethod = .GET, headers: HTTPHeaders = [:], body: [UInt8]? = nil, timeout: Duration? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// What was negotiated and decided for the connection a response came over.
public struct ConnectionReport: Sendable {
    /// `http` or `https`.
    public var scheme: String {
        get { fields.scheme }
        set { fields.scheme = newValue }
    }
    /// The host connected to, as the URL names it.
    public var host: String {
        get { fields.host }
        set { fields.host = newValue }
    }
    /// The port connected to.
    public var port: Int {
        get { fields.port }
        set { fields.port = newValue }
    }
    /// Nil for plain HTTP.
    public var handshake: HandshakeSummary? {
        get { fields.handshake }
        set { fields.handshake = newValue }
    }
    /// Nil for plain HTTP.
    public var verdict: TrustVerdict? {
        get { fields.verdict }
        set { fields.verdict = newValue }
    }
    /// The ATS decision for this connection, with the rule behind each check.
    public var atsEvaluation: ConnectionEvaluation {
        get { fields.atsEvaluation }
        set { fields.atsEvaluation = newValue }
    }
    /// The requirements the connection was held to.
    public var requirements: ConnectionRequirements {
        get { fields.requirements }
        set { fields.requirements = newValue }
    }
    /// Facts worth telling: a delegate that loosened trust, an expired pin set, soft-fail revocation.
    public var notes: [String] {
        get { fields.notes }
        set { fields.notes = newValue }
    }
    /// `HTTP/1.1` or `HTTP/2` (chosen by ALPN on TLS).
    public var httpVersion: String {
        get { fields.httpVersion }
        set { fields.httpVersion = newValue }
    }
    /// The protocol the server chose through ALPN (`h2`, `http/1.1`), or nil when it chose none.
    public var alpn: String? {
        get { fields.alpn }
        set { fields.alpn = newValue }
    }

    private struct Fields: Sendable {
        var scheme: String
        var host: String
        var port: Int
        var handshake: HandshakeSummary?
        var verdict: TrustVerdict?
        var atsEvaluation: ConnectionEvaluation
        var requirements: ConnectionRequirements
        var notes: [String]
        var httpVersion: String
        var alpn: String?
    }

    /// The fields, shared by every copy: a report goes with every response and every HTTP/2 stream, and inline its
    /// 688 bytes were copied (and each field retained) each time.
    private final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    /// A change makes the copy its own storage; reports are written while the connection is set up, then only read.
    private var fields: Fields {
        get { storage.fields }
        set { storage = Storage(newValue) }
    }

    init(scheme: String, host: String, port: Int, handshake: HandshakeSummary?, verdict: TrustVerdict?,
         atsEvaluation: ConnectionEvaluation, requirements: ConnectionRequirements, notes: [String],
         httpVersion: String = "HTTP/1.1", alpn: String? = nil) {
        storage = Storage(Fields(scheme: scheme, host: host, port: port, handshake: handshake, verdict: verdict,
                                 atsEvaluation: atsEvaluation, requirements: requirements, notes: notes,
                                 httpVersion: httpVersion, alpn: alpn))
    }
}

extension ConnectionReport: CustomReflectable {
    /// The report's fields, as `dump` and `String(describing:)` showed them before they moved into a shared box.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "scheme": scheme, "host": host, "port": port, "handshake": handshake as Any, "verdict": verdict as Any,
            "atsEvaluation": atsEvaluation, "requirements": requirements, "notes": notes, "httpVersion": httpVersion,
            "alpn": alpn as Any,
        ], displayStyle: .struct)
    }
}

/// A response, with its body read into memory.
public struct HTTPResponse: Sendable {
    /// The final response's status, after redirects and authentication.
    public var status: HTTPResponseStatus
    /// The final response's headers.
    public var headers: HTTPHeaders
    /// The whole body, up to ``HTTPSClientConfiguration/maximumResponseBytes``.
    public var body: [UInt8]
    /// The URL that produced this response, after redirects.
    public var url: String
    /// Every URL visited before this one, in order.
    public var redirects: [String]
    /// The connection that carried the final response.
    public var connection: ConnectionReport

    /// The status as a number.
    public var statusCode: Int { Int(status.code) }
    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A response whose body arrives in pieces.
public struct StreamingHTTPResponse: Sendable {
    /// The final response's status, after redirects and authentication.
    public var status: HTTPResponseStatus
    /// The final response's headers.
    public var headers: HTTPHeaders
    /// The URL that produced this response, after redirects.
    public var url: String
    /// Every URL visited before this one, in order.
    public var redirects: [String]
    /// The connection that carries the body.
    public var connection: ConnectionReport
    /// The body. Iterate it to the end; a failure (timeout, reset) ends it with a ``TransportError``. Stopping
    /// before the end closes the connection. Each piece is everything that arrived since the last one was taken: one
    /// read's or frame's worth for a reader that keeps up, up to about 320 KiB for one that fell behind. Read it from
    /// one task at a time.
    public var body: AsyncThrowingStream<[UInt8], any Error>
    /// What the body's reader has not taken yet (nil when the body was read before it was handed over).
    var buffer: BodyBuffer?

    /// The body's bytes that have arrived and not been read: for the benchmarks' memory per open stream beyond what
    /// it buffers.
    @_spi(Benchmarks) public var bufferedBodyBytes: Int { buffer?.buffered ?? 0 }
}
