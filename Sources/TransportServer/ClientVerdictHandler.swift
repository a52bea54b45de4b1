import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// Delivers the client verdict of one connection, and bounds its handshake. It sits right after the
/// `NIOSSLServerHandler` that ``MutualTLSServer`` adds.
///
/// - After the handshake it fires ``ClientCertificateVerifiedEvent`` and keeps the verdict in ``verdict``, which
///   later handlers read with `Channel.clientCertificateVerdict()` or the pipeline's synchronous operations.
/// - Every refusal is logged here, one line with the peer's address: a certificate the verifier refused, no
///   certificate where one is required (BoringSSL ends those handshakes itself), a handshake that does not finish
///   within the time limit.
/// - A resumed session skips BoringSSL's verification callback. Its client is verified again here, from the chain
///   it sent when the session was made (``MutualTLSServer`` remembers recent chains); the application sees neither
///   the handshake nor any data until that verdict is in. Fails closed: a resumed client whose chain is no longer
///   remembered, and a handshake that completes without a certificate where one is required, are closed.
public final class ClientVerdictHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = NIOAny
    public typealias InboundOut = NIOAny
    public typealias OutboundIn = NIOAny
    public typealias OutboundOut = NIOAny

    /// The verdict, once the handshake has completed; nil before.
    public private(set) var verdict: ClientCertificateVerdict?

    /// Verifies a resumed session's client by its leaf (DER).
    typealias Reverify = @Sendable ([UInt8]) async -> ClientCertificateVerdict

    private let decided: ConnectionVerdict
    private let reverify: Reverify?
    /// Reads held back while a resumed client is verified again; nil otherwise.
    private var heldReads: [NIOAny]?
    private let mode: ClientCertificateMode
    private let handshakeTimeout: TimeAmount
    private let logger: Logger
    private var timer: Scheduled<Void>?
    private var handshakeDone = false
    private var logged = false
    /// A read asked for while a resumed client is verified again: it is made once the verdict is in, so that what the
    /// client sends meanwhile waits in the socket, not in memory.
    private var readPending = false

    init(decided: ConnectionVerdict, mode: ClientCertificateMode, handshakeTimeout: TimeAmount, logger: Logger,
         reverify: Reverify? = nil) {
        self.decided = decided
        self.reverify = reverify
        self.mode = mode
        self.handshakeTimeout = handshakeTimeout
        self.logger = logger
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startTimer(context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        startTimer(context)
        context.fireChannelActive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        decided.cancel()
        logRefusal(context)
        context.fireChannelInactive()
    }

    private func startTimer(_ context: ChannelHandlerContext) {
        guard timer == nil, !handshakeDone else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let limit = handshakeTimeout
        timer = context.eventLoop.scheduleTask(in: limit) {
            let (handler, context) = loopBound.value
            guard !handler.handshakeDone else { return }
            handler.log(context, "client refused: reason=handshakeTimeout (the TLS handshake did not finish within \(limit.secondsText) s)")
            context.close(promise: nil)
        }
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let tls = event as? TLSUserEvent, case .handshakeCompleted = tls else {
            return context.fireUserInboundEventTriggered(event)
        }
        handshakeDone = true
        timer?.cancel()
        let verdict: ClientCertificateVerdict
        if let decided = decided.value {
            verdict = decided
        } else if mode == .none {
            verdict = ClientCertificateVerdict(outcome: .notPresented)
        } else if let leaf = Self.peerCertificate(context) {
            // The callback did not run: a resumed session. Verify its client again before anything goes on.
            guard let reverify else {
                log(context, ClientCertificateVerdict.unverifiedResumption(leaf: leaf).logLine)
                context.close(promise: nil)
                return
            }
            heldReads = []
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            // The handshake's limit holds for its second verification too: a revocation fetch may hang.
            let limit = handshakeTimeout
            timer = eventLoop.scheduleTask(in: limit) {
                let (handler, context) = loopBound.value
                guard handler.heldReads != nil else { return }
                handler.log(context, "client refused: reason=handshakeTimeout (the resumed session's client was not verified again within \(limit.secondsText) s)")
                handler.decided.cancel()
                context.close(promise: nil)
            }
            decided.start {
                let verdict = await reverify(leaf)
                eventLoop.execute {
                    let (handler, context) = loopBound.value
                    handler.finishResumption(context, verdict: verdict, event: tls)
                }
            }
            return
        } else if mode == .optional {
            verdict = ClientCertificateVerdict(outcome: .notPresented)
        } else {
            log(context, ClientCertificateVerdict.noCertificate.logLine)
            context.close(promise: nil)
            return
        }
        deliver(context, verdict, event)
    }

    private func deliver(_ context: ChannelHandlerContext, _ verdict: ClientCertificateVerdict, _ event: Any) {
        self.verdict = verdict
        context.fireUserInboundEventTriggered(ClientCertificateVerifiedEvent(verdict: verdict))
        context.fireUserInboundEventTriggered(event)
    }

    private func finishResumption(_ context: ChannelHandlerContext, verdict: ClientCertificateVerdict, event: TLSUserEvent) {
        guard context.channel.isActive, let held = heldReads else { return }
        timer?.cancel()
        heldReads = nil
        guard verdict.isVerified else {
            log(context, verdict.logLine)
            context.close(promise: nil)
            return
        }
        deliver(context, verdict, event)
        for data in held { context.fireChannelRead(data) }
        if !held.isEmpty { context.fireChannelReadComplete() }
        if readPending {
            readPending = false
            context.read()
        }
    }

    public func read(context: ChannelHandlerContext) {
        if heldReads != nil { readPending = true } else { context.read() }
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if heldReads != nil { heldReads?.append(data) } else { context.fireChannelRead(data) }
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        if heldReads == nil { context.fireChannelReadComplete() }
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !handshakeDone, decided.value == nil, mode == .required, Self.isMissingCertificate(error) {
            log(context, ClientCertificateVerdict.noCertificate.logLine)
        }
        logRefusal(context)
        context.fireErrorCaught(error)
    }

    /// Logs the verifier's refusal, once, whether the connection ends with an error or just closes.
    private func logRefusal(_ context: ChannelHandlerContext) {
        if let refused = decided.value, refused.outcome == .refused { log(context, refused.logLine) }
    }

    private func log(_ context: ChannelHandlerContext, _ line: String) {
        guard !logged else { return }
        logged = true
        logger.notice("\(line)\(Self.peer(context.channel))")
    }

    static func peer(_ channel: any Channel) -> String {
        guard let address = channel.remoteAddress, let ip = address.ipAddress, let port = address.port else { return "" }
        return " from \(ip):\(port)"
    }

    /// The client's leaf as DER, when it sent one (in this handshake or the one that made a resumed session).
    static func peerCertificate(_ context: ChannelHandlerContext) -> [UInt8]? {
        guard let ssl = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self) else { return nil }
        return try? ssl.peerCertificate?.toDERBytes()
    }

    /// BoringSSL's refusal of a client that sent no certificate under SSL_VERIFY_FAIL_IF_NO_PEER_CERT.
    static func isMissingCertificate(_ error: any Error) -> Bool {
        "\(error)".uppercased().contains("PEER_DID_NOT_RETURN_A_CERTIFICATE")
    }
}

extension TimeAmount {
    /// Whole and fractional seconds, for messages.
    var secondsText: String {
        let s = Double(nanoseconds) / 1_000_000_000
        return s == s.rounded() ? String(Int(s)) : String(s)
    }
}

/// The verdict on a mutual-TLS connection's client, from the channel.
extension Channel {
    /// The client verdict of this connection, once its handshake has completed; nil before, or on a channel
    /// without a ``ClientVerdictHandler``.
    public func clientCertificateVerdict() -> EventLoopFuture<ClientCertificateVerdict?> {
        let pipeline = self.pipeline
        if eventLoop.inEventLoop { return eventLoop.makeSucceededFuture(pipeline.syncOperations.clientCertificateVerdict) }
        return eventLoop.submit { pipeline.syncOperations.clientCertificateVerdict }
    }
}

/// The verdict on a mutual-TLS connection's client, on the event loop.
extension ChannelPipeline.SynchronousOperations {
    /// The client verdict of this connection, from a handler on its event loop; nil before the handshake has
    /// completed, or without a ``ClientVerdictHandler``.
    public var clientCertificateVerdict: ClientCertificateVerdict? {
        (try? handler(type: ClientVerdictHandler.self))?.verdict
    }
}
