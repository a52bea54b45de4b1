import AppTransportSecurity
import NIOConcurrencyHelpers
import NIOCore

/// What the client learnt from the server's first TLS records, which swift-nio-ssl does not expose.
package struct ServerHelloInfo: Sendable, Equatable {
    /// The negotiated version: `supported_versions` when present (TLS 1.3), else the ServerHello version.
    public var version: ATSTLSVersion?
    /// The raw negotiated version (0x0303 is TLS 1.2).
    public var wireVersion: UInt16
    /// The cipher suite the server chose.
    public var cipherSuiteCode: UInt16

    /// The suite's IANA name when it is one ATS knows, else `0x…`.
    public var cipherSuiteName: String {
        CipherSuite.known.first { $0.code == cipherSuiteCode }?.name
            ?? "0x" + String(cipherSuiteCode, radix: 16, uppercase: true)
    }
}

/// What the observer saw first on the wire.
enum FirstRecord: Sendable, Equatable {
    case serverHello(ServerHelloInfo)
    /// A plaintext alert before any ServerHello (level, description).
    case alert(level: UInt8, description: UInt8)
    /// Bytes that are not TLS at all, shown printable.
    case notTLS(String)
    /// A handshake that could not be parsed.
    case unparsable(String)
}

/// Shared between the observer (on the event loop) and the verification callback (in a task).
final class HandshakeObservation: Sendable {
    private let state = NIOLockedValueBox<FirstRecord?>(nil)

    var first: FirstRecord? { state.withLockedValue { $0 } }
    var serverHello: ServerHelloInfo? {
        if case .serverHello(let hello)? = first { return hello }
        return nil
    }

    func record(_ value: FirstRecord) {
        state.withLockedValue { if $0 == nil { $0 = value } }
    }
}

/// Reads the ServerHello from the TLS record layer as it passes, without consuming anything, so that the
/// negotiated version and cipher suite are known when the certificate callback runs (the ServerHello always
/// precedes the Certificate message). Placed before `NIOSSLClientHandler`.
final class ServerHelloObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// A ServerHello is small; a server that needs more than this before one is not worth parsing further.
    static let limit = 1 << 16

    private let observation: HandshakeObservation
    private var records: [UInt8] = []
    private var handshake: [UInt8] = []
    private var done = false

    init(observation: HandshakeObservation) { self.observation = observation }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !done {
            let buffer = unwrapInboundIn(data)
            records += buffer.readableBytesView
            inspect()
        }
        context.fireChannelRead(data)
        // Once it has seen the ServerHello it has nothing more to do; every later read would still pass through it.
        if done { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
    }

    private func finish(_ value: FirstRecord) {
        observation.record(value)
        done = true
        records = []
        handshake = []
    }

    private func inspect() {
        while !done {
            guard let type = records.first else { return }
            guard type == 22 || type == 21 else {
                let printable = String(decoding: records.prefix(40).map { (32...126).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
                return finish(.notTLS(printable))
            }
            guard records.count >= 5 else { return }
            let length = Int(records[3]) << 8 | Int(records[4])
            guard length <= 18432 else { return finish(.unparsable("a TLS record of \(length) bytes")) }
            guard records.count >= 5 + length else {
                if records.count > Self.limit { finish(.unparsable("no ServerHello in the first \(Self.limit) bytes")) }
                return
            }
            let payload = Array(records[5..<(5 + length)])
            records.removeFirst(5 + length)
            if type == 21 {
                guard payload.count >= 2 else { return finish(.unparsable("a truncated alert")) }
                return finish(.alert(level: payload[0], description: payload[1]))
            }
            handshake += payload
            parseHandshake()
        }
    }

    private func parseHandshake() {
        guard handshake.count >= 4 else { return }
        guard handshake[0] == 2 else { return finish(.unparsable("the first handshake message is type \(handshake[0]), not ServerHello")) }
        let length = Int(handshake[1]) << 16 | Int(handshake[2]) << 8 | Int(handshake[3])
        guard length <= Self.limit else { return finish(.unparsable("a ServerHello of \(length) bytes")) }
        guard handshake.count >= 4 + length else { return }
        if let hello = Self.parseServerHello(handshake[4..<(4 + length)]) {
            finish(.serverHello(hello))
        } else {
            finish(.unparsable("a malformed ServerHello"))
        }
    }

    /// Parses a ServerHello body (RFC 8446 §4.1.3, RFC 5246 §7.4.1.3).
    static func parseServerHello(_ body: ArraySlice<UInt8>) -> ServerHelloInfo? {
        var reader = ByteReader(body)
        guard let legacy = reader.u16(), reader.skip(32), let sessionLength = reader.u8(), reader.skip(Int(sessionLength)),
              let suite = reader.u16(), reader.skip(1) else { return nil }
        var version = legacy
        if let extensionsLength = reader.u16(), var extensions = reader.take(Int(extensionsLength)).map(ByteReader.init) {
            while let type = extensions.u16(), let len = extensions.u16(), let data = extensions.take(Int(len)) {
                // supported_versions: the version actually negotiated under TLS 1.3.
                if type == 43, data.count == 2 { version = UInt16(data[data.startIndex]) << 8 | UInt16(data[data.startIndex + 1]) }
            }
        }
        return ServerHelloInfo(version: tlsVersion(wire: version), wireVersion: version, cipherSuiteCode: suite)
    }

    static func tlsVersion(wire: UInt16) -> ATSTLSVersion? {
        switch wire {
        case 0x0301: return .tls10
        case 0x0302: return .tls11
        case 0x0303: return .tls12
        case 0x0304: return .tls13
        default: return nil
        }
    }
}

/// Bounds-checked reading of big-endian fields.
struct ByteReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func u8() -> UInt8? { bytes.popFirst() }

    mutating func u16() -> UInt16? {
        guard bytes.count >= 2 else { return nil }
        let value = UInt16(bytes[bytes.startIndex]) << 8 | UInt16(bytes[bytes.startIndex + 1])
        bytes = bytes.dropFirst(2)
        return value
    }

    mutating func skip(_ n: Int) -> Bool { take(n) != nil }

    mutating func take(_ n: Int) -> ArraySlice<UInt8>? {
        guard n >= 0, bytes.count >= n else { return nil }
        let out = bytes.prefix(n)
        bytes = bytes.dropFirst(n)
        return out
    }
}
