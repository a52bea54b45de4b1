import AppTransportSecurity
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import TransportClient
import TransportTrust

/// Asks a server, with a bare TLS 1.2 ClientHello, whether it would pick one of the cipher suites BoringSSL cannot
/// offer (the ECDHE `*_CBC_SHA384` suites, DHE). It only reads the ServerHello's suite and closes: it decides
/// nothing about trust and loads nothing. A test that failed on suite negotiation is NOT TESTABLE when the server
/// takes one of them (Apple's client might succeed) and stays FAIL when the server refuses them all.
enum SuiteProbe {
    enum Answer: Sendable, Equatable {
        /// The server chose this suite.
        case accepts(CipherSuite)
        /// The server answered with an alert: none of the probed suites.
        case refuses
        /// No clear answer (closed, timed out, not TLS).
        case unknown(String)
    }

    /// - Parameter override: the address an `--resolve` entry gives for the host, connected to without a lookup.
    static func probe(host: String, port: Int, override: String?, suites: [CipherSuite], timeout: Duration) async -> Answer {
        guard !suites.isEmpty else { return .refuses }
        // An override is connected to as it is, never looked up, as the client does; only the URL's own host is.
        var literal: SocketAddress?
        if let override {
            literal = AddressOverrides.socketAddress(override, port: port)
            guard literal != nil else {
                return .unknown("the address override '\(override)' is not an IPv4 or IPv6 address; overrides are never looked up")
            }
        }
        let hello = clientHello(host: host, suites: suites)
        let group = MultiThreadedEventLoopGroup.singleton
        let eventLoop = group.next()
        let promise = eventLoop.makePromise(of: Answer.self)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout.timeAmount)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(HelloReader(promise: promise)) }
            }
        let channel: any Channel
        do {
            if let literal {
                channel = try await bootstrap.connect(to: literal).get()
            } else {
                channel = try await bootstrap.connect(host: host, port: port).get()
            }
        } catch {
            promise.succeed(.unknown("cannot connect: \(error)"))
            return .unknown("cannot connect: \(error)")
        }
        let deadline = eventLoop.scheduleTask(in: timeout.timeAmount) { promise.succeed(.unknown("no answer in time")) }
        channel.writeAndFlush(channel.allocator.buffer(bytes: hello), promise: nil)
        let answer = (try? await promise.futureResult.get()) ?? .unknown("no answer")
        deadline.cancel()
        try? await channel.close()
        switch answer {
        case .accepts(let chosen): return suites.contains(chosen) ? answer : .unknown("the server chose \(chosen.name), which was not offered")
        default: return answer
        }
    }

    /// A TLS 1.2 ClientHello offering only `suites`, with the extensions servers need to pick an ECDHE or DHE suite.
    static func clientHello(host: String, suites: [CipherSuite]) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
        func u24(_ v: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 16)] + u16(v) }
        func ext(_ type: Int, _ data: [UInt8]) -> [UInt8] { u16(type) + u16(data.count) + data }
        var extensions: [UInt8] = []
        if case .dns? = try? PeerName(host) {
            let name = Array(host.utf8)
            extensions += ext(0x0000, u16(name.count + 3) + [0] + u16(name.count) + name)
        }
        let groups: [UInt8] = [0x00, 0x1d, 0x00, 0x17, 0x00, 0x18]
        extensions += ext(0x000a, u16(groups.count) + groups)
        extensions += ext(0x000b, [1, 0])
        let algorithms: [UInt8] = [0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x04, 0x08, 0x05, 0x08, 0x06, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01, 0x02, 0x01, 0x02, 0x03]
        extensions += ext(0x000d, u16(algorithms.count) + algorithms)
        extensions += ext(0xff01, [0])
        let codes = suites.flatMap { u16(Int($0.code)) }
        var body: [UInt8] = [0x03, 0x03] + (0..<32).map { _ in UInt8.random(in: 0...255) } + [0]
        body += u16(codes.count) + codes + [1, 0] + u16(extensions.count) + extensions
        let handshake = [0x01] + u24(body.count) + body
        return [0x16, 0x03, 0x01] + u16(handshake.count) + handshake
    }

    /// Reads the first record: a ServerHello (its suite) or an alert.
    private final class HelloReader: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let promise: EventLoopPromise<Answer>
        private var bytes: [UInt8] = []

        init(promise: EventLoopPromise<Answer>) { self.promise = promise }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            bytes += unwrapInboundIn(data).readableBytesView
            // Record header (5) + handshake header (4) + version (2) + random (32) + session id length (1).
            guard bytes.count >= 5 else { return }
            if bytes[0] == 0x15 { return promise.succeed(.refuses) }
            guard bytes[0] == 0x16 else { return promise.succeed(.unknown("not a TLS answer")) }
            guard bytes.count >= 44 else { return }
            guard bytes[5] == 0x02 else { return promise.succeed(.unknown("the first handshake message is not a ServerHello")) }
            let sessionLength = Int(bytes[43])
            let at = 44 + sessionLength
            guard bytes.count >= at + 2 else {
                if bytes.count > 4096 { promise.succeed(.unknown("malformed ServerHello")) }
                return
            }
            let code = UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
            let suite = CipherSuite.known.first { $0.code == code } ?? CipherSuite(name: "0x" + String(code, radix: 16, uppercase: true), code: code)
            promise.succeed(.accepts(suite))
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.succeed(.unknown("the server closed the connection"))
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.succeed(.unknown("\(error)"))
            context.close(promise: nil)
        }
    }
}

