import NIOCore
import NIOEmbedded
import NIOTLS
import TestSupport
import TestServersSupport
import Testing
import TransportTrust

@testable import TransportServer

/// The handler alone on an EmbeddedChannel: what it delivers after a handshake, what it logs, when it closes.
@Suite struct ClientVerdictHandlerTests {
    final class EventRecorder: ChannelInboundHandler {
        typealias InboundIn = NIOAny
        var events: [String] = []
        var verdicts: [ClientCertificateVerdict] = []

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let verified = event as? ClientCertificateVerifiedEvent {
                events.append("verdict")
                verdicts.append(verified.verdict)
            } else if event is TLSUserEvent {
                events.append("handshakeCompleted")
            }
            context.fireUserInboundEventTriggered(event)
        }
    }

    struct Setup {
        let channel: EmbeddedChannel
        let recorder: EventRecorder
        let decided: ConnectionVerdict
        let log: LogCapture
    }

    func setUp(mode: ClientCertificateMode, timeout: TimeAmount = .seconds(10)) throws -> Setup {
        let decided = ConnectionVerdict()
        let log = LogCapture()
        let recorder = EventRecorder()
        let handler = ClientVerdictHandler(decided: decided, mode: mode, handshakeTimeout: timeout, logger: log.logger)
        let channel = EmbeddedChannel(handlers: [handler, recorder])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 4433)).wait()
        return Setup(channel: channel, recorder: recorder, decided: decided, log: log)
    }

    static let completed = TLSUserEvent.handshakeCompleted(negotiatedProtocol: nil)

    @Test func aVerifiedClientsVerdictIsFiredBeforeHandshakeCompletedAndKeptForLaterHandlers() throws {
        let s = try setUp(mode: .required)
        let verdict = ClientCertificateVerdict(outcome: .verified, spkiSHA256: "sha256/abc", names: ClientCertificateNames(subject: "CN=a"))
        s.decided.set(verdict)
        s.channel.pipeline.fireUserInboundEventTriggered(Self.completed)
        #expect(s.recorder.events == ["verdict", "handshakeCompleted"])
        #expect(s.recorder.verdicts.first?.spkiSHA256 == "sha256/abc")
        #expect(s.channel.pipeline.syncOperations.clientCertificateVerdict?.names?.subject == "CN=a")
        #expect(try s.channel.clientCertificateVerdict().wait()?.isVerified == true)
        #expect(s.channel.isActive)
        #expect(s.log.lines.isEmpty)
    }

    @Test func withoutACertificateOptionalModeLetsTheClientInAndRequiredModeClosesAndLogs() throws {
        let optional = try setUp(mode: .optional)
        optional.channel.pipeline.fireUserInboundEventTriggered(Self.completed)
        #expect(optional.recorder.verdicts.map(\.outcome) == [.notPresented])
        #expect(optional.channel.isActive)

        let none = try setUp(mode: .none)
        none.channel.pipeline.fireUserInboundEventTriggered(Self.completed)
        #expect(none.recorder.verdicts.map(\.outcome) == [.notPresented])

        // Required, and the handshake completed without a decision: fail closed.
        let required = try setUp(mode: .required)
        required.channel.pipeline.fireUserInboundEventTriggered(Self.completed)
        #expect(required.recorder.events.isEmpty, "nothing may reach the application")
        #expect(!required.channel.isActive)
        #expect(required.log.lines.count == 1)
        #expect(required.log.lines.first?.contains("reason=noCertificate") == true)
        #expect(required.log.lines.first?.hasSuffix("from 127.0.0.1:4433") == true)
    }

    @Test func aRefusalIsLoggedOnceHoweverTheConnectionEnds() throws {
        let s = try setUp(mode: .required)
        s.decided.set(ClientCertificateVerdict(outcome: .refused, spkiSHA256: "sha256/xyz", names: ClientCertificateNames(subject: "CN=bad"),
                                               failures: [TrustFailure(.expired, certificate: 0, "'CN=bad' expired")]))
        s.channel.pipeline.fireErrorCaught(ChannelError.ioOnClosedChannel)
        _ = try? s.channel.finish()
        #expect(s.log.lines == ["client refused: reason=expired subject=\"CN=bad\" spki=sha256/xyz ('CN=bad' expired) from 127.0.0.1:4433"])
    }

    @Test func boringSSLsMissingCertificateErrorIsLoggedAsNoCertificate() throws {
        struct FakeHandshakeError: Error, CustomStringConvertible {
            var description: String { "handshakeFailed(BoringSSLError: error:1000046c:SSL routines:OPENSSL_internal:PEER_DID_NOT_RETURN_A_CERTIFICATE)" }
        }
        let s = try setUp(mode: .required)
        s.channel.pipeline.fireErrorCaught(FakeHandshakeError())
        _ = try? s.channel.finish()
        #expect(s.log.lines.count == 1)
        #expect(s.log.lines.first?.contains("reason=noCertificate subject=\"-\" spki=-") == true)
    }

    @Test func aStalledHandshakeIsClosedAtTheTimeLimit() throws {
        let s = try setUp(mode: .required, timeout: .seconds(5))
        s.channel.embeddedEventLoop.advanceTime(by: .seconds(4))
        #expect(s.channel.isActive)
        s.channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!s.channel.isActive)
        #expect(s.log.lines.count == 1)
        #expect(s.log.lines.first?.contains("reason=handshakeTimeout") == true)
    }

    @Test func aCompletedHandshakeCancelsTheTimer() throws {
        let s = try setUp(mode: .optional, timeout: .seconds(5))
        s.channel.pipeline.fireUserInboundEventTriggered(Self.completed)
        s.channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(s.channel.isActive)
        #expect(s.log.lines.isEmpty)
    }

    /// A connection that ends before its verification does stops it: a hostile chain costs no CPU once its client
    /// has gone or its handshake limit has passed. The verification here ends only when cancelled.
    @Test(.timeLimit(.minutes(1))) func aClosedConnectionCancelsItsVerification() async throws {
        let s = try setUp(mode: .required)
        let (cancelled, seen) = AsyncStream<Void>.makeStream()
        s.decided.start {
            let (never, open) = AsyncStream<Never>.makeStream()
            for await _ in never {}
            withExtendedLifetime(open) {}
            if Task.isCancelled { seen.yield() }
        }
        s.channel.close(promise: nil)
        var events = cancelled.makeAsyncIterator()
        #expect(await events.next() != nil)

        // A verification that starts after the close is cancelled at once.
        let (late, lateSeen) = AsyncStream<Bool>.makeStream()
        s.decided.start { lateSeen.yield(Task.isCancelled) }
        var lateEvents = late.makeAsyncIterator()
        #expect(await lateEvents.next() == true)
    }
}
