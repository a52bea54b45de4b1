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
/// - Fails closed: a handshake that completes without a decision where a certificate is required (a resumed
///   session, which skips verification) is closed.
public final class ClientVerdictHandler: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = NIOAny
    public typealias InboundOut = NIOAny

    /// The verdict, once the handshake has completed; nil before.
    public private(set) var verdict: ClientCertificateVerdict?

    private let decided: ConnectionVerdict
    private let mode: ClientCertificateMode
    private let handshakeTimeout: TimeAmount
    private let logger: Logger
    private var timer: Scheduled<Void>?
    private var handshakeDone = false
    private var logged = false

    init(decided: ConnectionVerdict, mode: ClientCertificateMode, handshakeTimeout: TimeAmount, logger: Logger) {
        self.decided = decided
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
        } else if Self.peerSentCertificate(context) {
            // The callback did not run: a resumed session. Nothing was verified on this connection, so refuse.
            log(context, "client refused: reason=unverifiedResumption (a resumed TLS session skipped client verification)")
            context.close(promise: nil)
            return
        } else if mode == .optional {
            verdict = ClientCertificateVerdict(outcome: .notPresented)
        } else {
            log(context, ClientCertificateVerdict.noCertificate.logLine)
            context.close(promise: nil)
            return
        }
        self.verdict = verdict
        context.fireUserInboundEventTriggered(ClientCertificateVerifiedEvent(verdict: verdict))
        context.fireUserInboundEventTriggered(event)
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

    static func peerSentCertificate(_ context: ChannelHandlerContext) -> Bool {
        guard let ssl = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self) else { return false }
        return ssl.peerCertificate != nil
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

extension Channel {
    /// The client verdict of this connection, once its handshake has completed; nil before, or on a channel
    /// without a ``ClientVerdictHandler``.
    public func clientCertificateVerdict() -> EventLoopFuture<ClientCertificateVerdict?> {
        let pipeline = self.pipeline
        if eventLoop.inEventLoop { return eventLoop.makeSucceededFuture(pipeline.syncOperations.clientCertificateVerdict) }
        return eventLoop.submit { pipeline.syncOperations.clientCertificateVerdict }
    }
}

extension ChannelPipeline.SynchronousOperations {
    /// The client verdict of this connection, from a handler on its event loop; nil before the handshake has
    /// completed, or without a ``ClientVerdictHandler``.
    public var clientCertificateVerdict: ClientCertificateVerdict? {
        (try? handler(type: ClientVerdictHandler.self))?.verdict
    }
}
