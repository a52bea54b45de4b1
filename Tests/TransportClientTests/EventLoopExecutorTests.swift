import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import TestSupport
import TestServersSupport
import Testing
import TransportTrust

@testable import TransportClient

/// A request's own code runs on an event loop, its trust evaluation on threads of its own: a request then neither
/// waits for the cooperative pool nor misses its deadlines, whatever the pool is busy with.
@Suite struct EventLoopExecutorTests {
    let host = "www.example.test"

    /// CPU-bound work holds every thread of the cooperative pool (one task per thread and one more, none of which
    /// suspends), and a request meets a server that never answers its handshake. Its 1 s handshake limit must close
    /// the connection while the work still holds the pool: the close (which the server's own loop sees) is what stops
    /// the work, before the work's own end 10 s on. Before the request's code ran on its event loop, it waited for the
    /// work to end before it even connected. No bound on how soon: a loaded run (AddressSanitizer, the suite beside it)
    /// took 1.9 s.
    @Test func aHandshakeLimitFiresOnTimeWhileCPUBoundWorkHoldsThePool() async throws {
        let closed = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: NIODeadline.self)
        let server = try await StallingServer.start(closed: closed)
        try await withShutdown({ await server.shutdown() }) {
            let stop = NIOLockedValueBox(false)
            closed.futureResult.whenComplete { _ in stop.withLockedValue { $0 = true } }
            let client = makeClient(anchors: ServerPKI().anchors,
                                    timeouts: Timeouts(connect: .seconds(5), handshake: .seconds(1), request: .seconds(30)))
            let limit = ContinuousClock.now + .seconds(10)
            let start = NIODeadline.now()
            let work = (0...ProcessInfo.processInfo.activeProcessorCount).map { _ in
                Task { compute(until: stop, or: limit) }
            }
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            // Bounded only so that a client that never connected fails here instead of hanging the run.
            let closedAt = try #require(await bounded(.seconds(30)) { try? await closed.futureResult.get() } ?? nil,
                                        "the server never saw the connection close")
            var stoppedByTheClose: [Bool] = []
            for task in work { stoppedByTheClose.append(await task.value.stopped) }
            await client.shutdown()
            #expect(error?.kind == .timedOut)
            #expect(error?.phase == .handshake)
            #expect(stoppedByTheClose.allSatisfy { $0 },
                    "the connection closed \(closedAt - start) after the request began, once the pool's work had ended by itself")
        }
    }

    /// With every pool thread computing, as above, a whole request still completes: its handshake, its evaluation
    /// and its exchange need no thread of the pool. The pool's work ends when the handshake is done (or after 20 s,
    /// far past the 5 s handshake limit a request waiting for the pool would run into).
    @Test func aRequestCompletesWhileCPUBoundWorkHoldsThePool() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("done") }
        await withShutdown({ await server.shutdown() }) {
            let stop = NIOLockedValueBox(false)
            let client = makeClient(anchors: pki.anchors, timeouts: Timeouts(connect: .seconds(5), handshake: .seconds(5), request: .seconds(30))) {
                $0.handshakeObserver = { _ in stop.withLockedValue { $0 = true } }
            }
            let limit = ContinuousClock.now + .seconds(20)
            let work = (0...ProcessInfo.processInfo.activeProcessorCount).map { _ in
                Task { compute(until: stop, or: limit) }
            }
            let result = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            stop.withLockedValue { $0 = true }
            for task in work { _ = await task.value }
            await client.shutdown()
            #expect(result == nil, "\(String(describing: result))")
        }
    }

    /// The request loop's own calls (here the challenge handler of a 401) run on an event loop; the trust evaluator
    /// runs on TransportTrust's EvaluationExecutor, so chain building neither holds a loop's I/O nor queues behind
    /// the cooperative pool's work.
    @Test func theRequestRunsOnALoopAndItsEvaluationOffIt() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in
            TestResponse(status: .unauthorized, headers: [("www-authenticate", "Basic realm=\"loops\"")])
        }
        try await withShutdown({ await server.shutdown() }) {
            let evaluatedOnLoop = NIOLockedValueBox<[Bool]>([])
            let askedOnLoop = NIOLockedValueBox<[Bool]>([])
            let evaluator = CountingEvaluator { _, trust in
                let executor = withUnsafeCurrentTask { $0?.unownedTaskExecutor }
                evaluatedOnLoop.withLockedValue {
                    $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil)
                    $0.append(executor == EvaluationExecutor.shared.asUnownedTaskExecutor())
                }
                return await DefaultTrustEvaluator().evaluate(trust)
            }
            let client = makeClient(anchors: pki.anchors, trustManager: ServerTrustManager(rules: [.init(try HostPattern(host), evaluator)])) {
                $0.challengeHandler = { challenge in
                    // The server-trust challenge is part of the evaluation; the 401's is the request loop's.
                    let onLoop = MultiThreadedEventLoopGroup.currentEventLoop != nil
                    askedOnLoop.withLockedValue { $0.append(challenge.protectionSpace.authenticationMethod == .serverTrust ? !onLoop : onLoop) }
                    return .performDefaultHandling
                }
            }
            let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            await client.shutdown()
            #expect(response.statusCode == 401)
            #expect(evaluatedOnLoop.withLockedValue { $0 } == [false, true], "evaluated off the loop, on the evaluation executor")
            #expect(askedOnLoop.withLockedValue { $0 } == [true, true], "the server-trust challenge off the loop, the 401's on it")
        }
    }

    /// Requests to one origin run, from their start, on the loop of the connection they will use (LoopHint): their
    /// waits for it then end where they already run, with no hop between loops. The request loop's own calls (the
    /// 401's challenge handler) note the loop; with three loops, requests placed round-robin would land on each. The
    /// first request starts before there is a connection, so only those after it are held to one loop.
    @Test func requestsRunOnTheLoopOfTheirOriginsConnection() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in
            TestResponse(status: .unauthorized, headers: [("www-authenticate", "Basic realm=\"loops\"")])
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        try await withShutdown({
            await server.shutdown()
            try? await group.shutdownGracefully()
        }) {
            let loops = NIOLockedValueBox<[ObjectIdentifier?]>([])
            let handshakes = NIOLockedValueBox(0)
            var configuration = HTTPSClientConfiguration(anchors: pki.anchors, addressOverrides: [host: "127.0.0.1"])
            configuration.handshakeObserver = { _ in handshakes.withLockedValue { $0 += 1 } }
            configuration.challengeHandler = { challenge in
                if challenge.protectionSpace.authenticationMethod != .serverTrust {
                    loops.withLockedValue { $0.append(MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0) }) }
                }
                return .performDefaultHandling
            }
            let client = HTTPSClient(configuration: configuration, eventLoopGroup: group)
            for i in 0..<6 {
                let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/\(i)"))
                #expect(response.statusCode == 401)
            }
            await client.shutdown()
            let seen = loops.withLockedValue { $0 }
            #expect(handshakes.withLockedValue { $0 } == 1, "one connection, reused")
            #expect(seen.count == 6 && seen.allSatisfy { $0 != nil })
            #expect(Set(seen.dropFirst()).count == 1, "every request after the first ran on the connection's loop: \(seen)")
        }
    }
}

/// Computes without suspending until `stop` is set or `limit` passes: it holds its pool thread throughout.
/// Computes until `stop` is set or `limit` passes; `stopped` says which came first.
private func compute(until stop: NIOLockedValueBox<Bool>, or limit: ContinuousClock.Instant) -> (value: UInt64, stopped: Bool) {
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15
    while true {
        if stop.withLockedValue({ $0 }) { return (x, true) }
        if ContinuousClock.now >= limit { return (x, false) }
        for _ in 0..<10_000 {
            x ^= x << 13
            x ^= x >> 7
            x ^= x << 17
        }
    }
}

/// Accepts connections and never sends a byte; notes when the first one closes.
private struct StallingServer {
    let channel: any Channel
    let closed: EventLoopPromise<NIODeadline>
    var port: Int { channel.localAddress?.port ?? 0 }

    static func start(closed: EventLoopPromise<NIODeadline>) async throws -> StallingServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(CloseRecorder(closed: closed)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return StallingServer(channel: channel, closed: closed)
    }

    /// Also ends the wait for a close that never came (NIO traps on a promise left uncompleted).
    func shutdown() async {
        try? await channel.close()
        closed.fail(ChannelError.ioOnClosedChannel)
    }

    private final class CloseRecorder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let closed: EventLoopPromise<NIODeadline>

        init(closed: EventLoopPromise<NIODeadline>) { self.closed = closed }

        func channelInactive(context: ChannelHandlerContext) {
            closed.succeed(.now())
            context.fireChannelInactive()
        }
    }
}
