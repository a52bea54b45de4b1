import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
import TestServersSupport

@testable import TransportClient

/// Handlers a waiting task depends on, added to a channel that has already closed: a proxy's tunnel that closed after
/// answering CONNECT, before the target's TLS handlers went in. The channel has fired channelInactive already, and NIO
/// tears its pipeline down a turn of the loop later (`close0` defers `removeHandlers`), so such a handler sees only
/// its removal. It must fail its promise then; otherwise the task awaiting the handshake or the proxy's answer waits
/// forever, with no thread busy and no time limit left to end it.
@Suite struct ClosedTunnelTests {
    /// An EmbeddedChannel that was active and has closed: its pipeline still takes handlers until the loop runs.
    private func closedChannel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        try channel.close().wait()
        return channel
    }

    /// Whether `future` has failed with ExchangeFailure.closed, nil while it is pending.
    private func closedFailure<T: Sendable>(_ future: EventLoopFuture<T>) -> Bool? {
        let seen = NIOLockedValueBox<Bool?>(nil)
        future.whenComplete { result in
            guard case .failure(let error) = result else { return seen.withLockedValue { $0 = false } }
            let closed: Bool
            if case ExchangeFailure.closed? = error as? ExchangeFailure { closed = true } else { closed = false }
            seen.withLockedValue { $0 = closed }
        }
        return seen.withLockedValue { $0 }
    }

    @Test func aHandshakeWaiterAddedAfterTheChannelClosedFailsWhenThePipelineGoes() throws {
        let channel = try closedChannel()
        let handshake = channel.eventLoop.makePromise(of: Void.self)
        try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(promise: handshake))
        channel.embeddedEventLoop.run()
        #expect(closedFailure(handshake.futureResult) == true, "the handshake's waiter would wait forever")
        handshake.succeed(())
    }

    /// What Connection.open installs on a tunnel, as it installs it.
    @Test func theTargetsTLSHandlersOnATunnelThatClosedFirstFailTheHandshake() async throws {
        let pki = ServerPKI()
        let client = makeClient(anchors: pki.anchors)
        let target = try client.target(for: "https://www.example.test/", phase: .connect)
        let context = try client.sslContext(for: target, identity: nil)
        let observation = HandshakeObservation()
        let verifier = HandshakeVerifier(plan: target.plan, challengeHandler: nil, observation: observation)
        let channel = try closedChannel()
        let handshake = channel.eventLoop.makePromise(of: Void.self)
        try channel.pipeline.syncOperations.addHandlers(
            Connection.tlsHandlers(context: context, serverName: verifier.plan.serverName, verifier: verifier, observation: observation,
                                   handshakePromise: handshake))
        channel.embeddedEventLoop.run()
        #expect(closedFailure(handshake.futureResult) == true, "the handshake's waiter would wait forever")
        handshake.succeed(())
        await client.shutdown()
    }

    @Test func aCONNECTHandlerAddedAfterTheProxyClosedFailsWhenThePipelineGoes() throws {
        let channel = try closedChannel()
        let answered = channel.eventLoop.makePromise(of: HTTPResponseHead.self)
        try channel.pipeline.syncOperations.addHandler(ProxyConnectHandler(authority: "www.example.test:443", authorization: nil, answered: answered))
        channel.embeddedEventLoop.run()
        #expect(closedFailure(answered.futureResult) == true, "the wait for the proxy's answer would never end")
        answered.succeed(HTTPResponseHead(version: .http1_1, status: .ok))
    }

    /// A handler removed once it has done its work (the CONNECT handler, when the tunnel opens) keeps its answer.
    @Test func aCONNECTHandlerRemovedAfterTheAnswerKeepsIt() throws {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        let answered = channel.eventLoop.makePromise(of: HTTPResponseHead.self)
        let handler = ProxyConnectHandler(authority: "www.example.test:443", authorization: nil, answered: answered)
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.writeInbound(HTTPClientResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeInbound(HTTPClientResponsePart.end(nil))
        try channel.pipeline.syncOperations.removeHandler(handler).wait()
        #expect(try answered.futureResult.wait().status == .ok)
        _ = try channel.finish()
    }
}
