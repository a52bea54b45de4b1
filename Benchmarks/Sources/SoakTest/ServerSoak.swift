import ATSTestServers
import BenchmarkSupport
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import NIOSSL
import NIOTLS
import TransportServer
import TransportTrust

/// Hostile clients against a `MutualTLSServer` (served as `ats serve --mtls` serves it, by `VerdictServer`), round-robin
/// with a good client. No hostile one may be answered 200, every good one must be; how each connection ended is counted.
enum ServerSoak {
    enum Kind: String, CaseIterable, Sendable {
        case garbage = "garbage bytes"
        case stallAfterHello = "stall after ClientHello"
        case reset = "reset mid-ClientHello"
        case slowHeaders = "slowloris request headers"
        case oversizedHeaders = "oversized request headers"
        case oversizedChain = "151-certificate client chain"
        case refusedCertificate = "untrusted client certificate"
        /// The control: a good client among the hostile ones must still be answered, verified.
        case goodClient = "good client (control)"
    }

    /// The server's handshake limit: short, so that a stalled client costs little of the run, yet long enough for a
    /// good client's handshake on a loaded machine (300 ms cut off one in fifty at a load average of 15).
    static let handshakeTimeout: TimeAmount = .seconds(2)
    /// How long a client waits for the server to end the connection before it ends it itself.
    static let bound: TimeAmount = .seconds(5)
    /// The most the heap in use and RSS may rise after the first round. Without a leak the heap stayed within 0.9 MiB
    /// and RSS within 5.5 MiB (docs/RELIABILITY.md): a leak of a quarter KiB a connection fails the heap's limit.
    static let growth = SoakGrowth(heapLimitKiB: 2048, rssLimitKiB: 16_384)
    /// How long the slowloris client trickles its headers (one byte every 20 ms) before it gives up.
    static let trickle: TimeAmount = .seconds(1)

    /// - Returns: the number of failures: hostile connections the server answered 200, good ones it did not.
    static func run(total: Int, concurrency: Int) async throws -> Int {
        let pki = try LocalPKI()
        let leaf = try pki.leaf()
        let mtls = try MutualTLSServer(
            certificateChain: try [leaf, pki.intermediate].map { try NIOSSLCertificate(bytes: $0.der, format: .der) },
            privateKey: try NIOSSLPrivateKey(bytes: Array(leaf.key.pem.utf8), format: .pem),
            policy: ClientVerificationPolicy(anchors: [try InputCertificate(der: pki.root.der)]),
            handshakeTimeout: handshakeTimeout, logger: Logger(label: "soak", factory: { _ in SwiftLogNoOpLogHandler() }))
        let server = try await VerdictServer.start(mtls)
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: server.port)
        let hello = try clientHello()
        let good = try clientContext([try pki.client(), pki.intermediate])
        let contexts: [Kind: NIOSSLContext] = [
            .slowHeaders: good, .oversizedHeaders: good, .goodClient: good,
            .oversizedChain: try clientContext(try pki.longChain(depth: 150)),
            .refusedCertificate: try clientContext([try pki.selfSigned()]),
        ]
        let kinds = Kind.allCases
        let result = await soakRounds(total: total, concurrency: concurrency, growth: growth) { i in
            let kind = kinds[i % kinds.count]
            return "\(kind.rawValue): " + (await connect(kind, to: address, tls: contexts[kind], hello: hello))
        }
        await server.shutdown()
        let control = Kind.goodClient.rawValue
        let wrong = result.endings.filter { $0.key.hasPrefix(control) != $0.key.contains(HostileClientHandler.verified) }.values.reduce(0, +)
        return wrong + (result.growth == nil ? 0 : 1)
    }

    /// One hostile connection; how it ended.
    static func connect(_ kind: Kind, to address: SocketAddress, tls: NIOSSLContext?, hello: [UInt8]) async -> String {
        let group = MultiThreadedEventLoopGroup.singleton
        let ended = group.next().makePromise(of: String.self)
        do {
            _ = try await ClientBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        if let tls { try sync.addHandler(NIOSSLClientHandler(context: tls, serverHostname: nil)) }
                        try sync.addHandler(HostileClientHandler(kind: kind, hello: hello, ended: ended))
                    }
                }
                .connect(to: address).get()
        } catch {
            ended.succeed("could not connect: \(error)")
        }
        return (try? await ended.futureResult.get()) ?? "no ending"
    }

    /// The first flight of a TLS client, as swift-nio-ssl writes it.
    static func clientHello() throws -> [UInt8] {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            NIOSSLClientHandler(context: try NIOSSLContext(configuration: .makeClientConfiguration()), serverHostname: "localhost"))
        channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 443), promise: nil)
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
        _ = try? channel.finish()
        guard bytes.count > 16 else { throw TestServerError("swift-nio-ssl wrote no ClientHello") }
        return bytes
    }

    /// A client that presents `chain` and does not check the server: the hostile client only wants the server's answer.
    static func clientContext(_ chain: [LocalCertificate]) throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.certificateChain = try chain.map { .certificate(try NIOSSLCertificate(bytes: $0.der, format: .der)) }
        if let leaf = chain.first { tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(leaf.key.pem.utf8), format: .pem)) }
        return try NIOSSLContext(configuration: tls)
    }
}

/// Misbehaves as its kind says, then reports how the connection ended: closed by the server, refused in the TLS
/// handshake, answered (with the status line), or held until the client gave up after ``ServerSoak/bound``.
final class HostileClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    static let verified = "answered HTTP/1.1 200"

    private let kind: ServerSoak.Kind
    private let hello: [UInt8]
    private let ended: EventLoopPromise<String>
    private var closedBySelf: String?
    /// How the TLS layer failed, in words, when it did.
    private var tlsError: String?
    private var statusLine: [UInt8] = []
    private var timers: [Scheduled<Void>] = []
    private var trickle: RepeatedTask?
    private let started = NIODeadline.now()

    init(kind: ServerSoak.Kind, hello: [UInt8], ended: EventLoopPromise<String>) {
        self.kind = kind
        self.hello = hello
        self.ended = ended
    }

    func channelActive(context: ChannelHandlerContext) {
        giveUp(context, after: ServerSoak.bound, as: "held until the client gave up (\(ServerSoak.bound.nanoseconds / 1_000_000_000) s)")
        switch kind {
        case .garbage:
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: (0..<512).map { _ in UInt8.random(in: 0...255) })), promise: nil)
        case .stallAfterHello:
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: hello)), promise: nil)
        case .reset:
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: hello.prefix(hello.count / 2))), promise: nil)
            closedBySelf = "reset by the client"
            let channel = context.channel
            // SO_LINGER 0: close sends RST, not FIN.
            (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        case .slowHeaders, .oversizedHeaders, .oversizedChain, .refusedCertificate, .goodClient:
            break  // after the handshake
        }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let tls = event as? TLSUserEvent, case .handshakeCompleted = tls else { return context.fireUserInboundEventTriggered(event) }
        let request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        switch kind {
        case .slowHeaders:
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
            let channel = context.channel
            let line = Array("X-Slow: a\r\n".utf8)
            let sent = NIOLoopBoundBox(0, eventLoop: context.eventLoop)
            trickle = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(20), delay: .milliseconds(20)) { _ in
                channel.writeAndFlush(channel.allocator.buffer(bytes: [line[sent.value % line.count]]), promise: nil)
                sent.value += 1
            }
            giveUp(context, after: ServerSoak.trickle, as: "held until the client gave up (after \(ServerSoak.trickle.nanoseconds / 1_000_000) ms of trickling)")
        case .oversizedHeaders:
            // 300 fields of 1,000 bytes: past NIO's 256 fields.
            let fields = String(repeating: "X-Filler: \(String(repeating: "a", count: 1000))\r\n", count: 300)
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request + fields + "\r\n")), promise: nil)
        case .oversizedChain, .refusedCertificate:
            // Under TLS 1.3 the client finishes before the server has judged its certificate: ask, and see.
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request + "\r\n")), promise: nil)
        case .goodClient:
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request + "Connection: close\r\n\r\n")), promise: nil)
        case .garbage, .stallAfterHello, .reset:
            break
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard statusLine.count < 32 else { return }
        statusLine += unwrapInboundIn(data).readableBytesView.prefix(32 - statusLine.count)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOSSLError || error is BoringSSLError {
            let text = String(describing: error)
            tlsError = tlsError ?? (text.contains("ALERT") ? "refused with a TLS alert"
                                    : text.contains("uncleanShutdown") ? "closed in the TLS handshake without an alert" : "a TLS error")
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        for timer in timers { timer.cancel() }
        trickle?.cancel()
        let status = String(decoding: statusLine.prefix { $0 != 13 }, as: UTF8.self)
        let elapsed = Double((NIODeadline.now() - started).nanoseconds) / 1e9
        let when = elapsed < 1 ? "in under 1 s" : "after \(Int(elapsed)) s"
        if status.hasPrefix("HTTP/") {
            ended.succeed("answered \(status), then closed \(when)")
        } else if let closedBySelf {
            ended.succeed(closedBySelf)
        } else if let tlsError {
            ended.succeed("\(tlsError) \(when)")
        } else {
            // A raw client reads TLS records (an alert, or a ServerHello) before the close.
            ended.succeed("closed by the server \(when)")
        }
        context.fireChannelInactive()
    }

    private func giveUp(_ context: ChannelHandlerContext, after limit: TimeAmount, as ending: String) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timers.append(context.eventLoop.scheduleTask(in: limit) {
            let (handler, context) = loopBound.value
            guard handler.closedBySelf == nil else { return }
            handler.closedBySelf = ending
            context.close(promise: nil)
        })
    }
}
