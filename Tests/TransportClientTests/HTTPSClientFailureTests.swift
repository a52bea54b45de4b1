import ATSTestServers
import TestSupport
import TestServersSupport
import Foundation
import NIOConcurrencyHelpers
import NIOHTTP1
import NIOSSL
import Testing
import TransportTrust

@testable import TransportClient

/// Hostile and broken servers: each ends with a clear error, from its own deadline or its own misbehaviour.
///
/// The error's kind and phase say which ended it; no test reads the clock. That a deadline fires on time under
/// load is EventLoopExecutorTests' one timed test.
@Suite struct HTTPSClientFailureTests {
    let host = "www.example.test"
    let short = Timeouts(connect: .seconds(5), handshake: .seconds(3), request: .seconds(30))

    @Test func stallingServerTimesOutInTheHandshake() async throws {
        let server = try await TestServer.raw(.stall)
        await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: ServerPKI().anchors, timeouts: short)
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .timedOut)
            #expect(error?.phase == .handshake)
            #expect(error?.message.contains("handshake") == true)
        }
    }

    /// A handshake whose evaluation does not end in time fails on its limit, and the reason given is the limit, not
    /// what the cut-short evaluation returned. (Whether the evaluation ran at all depends on when it got a thread: the
    /// limit may cancel it before it starts. That it stops once cancelled is the next test's.)
    @Test(.timeLimit(.minutes(1))) func aHandshakeThatTimesOutReportsItsLimit() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors, trustManager: ServerTrustManager(rules: [.init(try HostPattern(host), Self.endless())]),
                                    timeouts: Timeouts(connect: .seconds(30), handshake: .seconds(1), request: .seconds(30)))
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .timedOut, "\(String(describing: error))")
            #expect(error?.phase == .handshake)
            #expect(error?.message.contains("cut short") == false)
            await client.shutdown()
        }
    }

    /// A task cancelled while its connection's handshake runs (here, while its evaluation runs) ends at once instead
    /// of at the handshake's limit (90 s, past the test's own), and the evaluation is stopped.
    @Test(.timeLimit(.minutes(1))) func aRequestCancelledDuringTheHandshakeEndsAtOnce() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let (events, event) = AsyncStream<String>.makeStream()
            let client = makeClient(anchors: pki.anchors, trustManager: ServerTrustManager(rules: [.init(try HostPattern(host), Self.endless(event))]),
                                    timeouts: Timeouts(connect: .seconds(30), handshake: .seconds(90), request: .seconds(90)))
            let task = Task { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            var seen = events.makeAsyncIterator()
            #expect(await seen.next() == "started")
            task.cancel()
            let error = await transportError { try await task.value }
            #expect(error?.kind == .cancelled, "\(String(describing: error))")
            #expect(error?.phase == .handshake)
            #expect(error?.message.contains("cancelled") == true)
            #expect(await seen.next() == "cancelled")
            #expect(server.requests.isEmpty)
            await client.shutdown()
        }
    }

    /// A task cancelled before its request needs a new connection opens none.
    @Test func aCancelledTaskOpensNoConnection() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors)
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            }
            let error = await transportError { try await task.value }
            #expect(error?.kind == .cancelled, "\(String(describing: error))")
            #expect(error?.phase == .connect)
            #expect(server.connectionCount == 0)
            await client.shutdown()
        }
    }

    /// A task cancelled before its request is sent sends nothing, and the kept-alive connection it was handed stays
    /// kept: the next request goes out on it (HTTP/1.1), or on the same shared connection (HTTP/2).
    @Test(arguments: [false, true])
    func aTaskCancelledBeforeItsRequestKeepsItsConnection(http2: Bool) async throws {
        let pki = ServerPKI()
        let server = http2
            ? try await TestServer.http2(chain: pki.served, key: pki.leaf.key)
            : try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) { () async throws in
            let client = makeClient(anchors: pki.anchors)
            let url = "https://\(host):\(server.port)"
            #expect(try await client.execute(HTTPRequest(url: url + "/first")).statusCode == 200)
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.execute(HTTPRequest(url: url + "/cancelled"))
            }
            let error = await transportError { try await task.value }
            #expect(error?.kind == .cancelled, "\(String(describing: error))")
            #expect(error?.phase == .request, "\(String(describing: error))")
            #expect(!server.requests.contains { $0.head.uri == "/cancelled" }, "sent")
            #expect(try await client.execute(HTTPRequest(url: url + "/next")).statusCode == 200)
            #expect(server.connectionCount == 1, "the kept connection was not reused")
            await client.shutdown()
        }
    }

    #if os(Linux)
    /// A task cancelled while its TCP connection opens ends at once, not at the connect limit (90 s, past the test's
    /// own). The listener here never accepts and its queue is full, so the kernel drops the client's SYN and the
    /// connect waits, all on 127.0.0.1.
    @Test(.timeLimit(.minutes(1))) func aRequestCancelledWhileItConnectsEndsAtOnce() async throws {
        let listener = try FullListener()
        defer { listener.close() }
        // The kernel's table is the event source here: the fillers settle, then the client's socket shows up. Read
        // until then, giving way to other tasks; the test's time limit cancels the reads if the event never comes.
        while !listener.isFull {
            if Task.isCancelled { Issue.record("never full: \(listener.states()) port \(listener.port)"); return }
            await Task.yield()
        }
        let client = makeClient(anchors: ServerPKI().anchors, timeouts: Timeouts(connect: .seconds(90), handshake: .seconds(90), request: .seconds(90)))
        let task = Task { try await client.execute(HTTPRequest(url: "https://\(host):\(listener.port)/")) }
        while !listener.hasOtherConnection {
            if Task.isCancelled { Issue.record("no client: \(listener.states()) port \(listener.port)"); return }
            await Task.yield()
        }
        task.cancel()
        let error = await transportError { try await task.value }
        #expect(error?.kind == .cancelled, "\(String(describing: error))")
        #expect(error?.phase == .connect)
        #expect(error?.message.contains("TCP connection") == true, "\(String(describing: error))")
        await client.shutdown()
    }
    #endif

    /// An evaluation nobody waits for any more stops: a hostile chain costs no CPU past the handshake limit. The
    /// evaluator stands in for a long search and ends only when its task is cancelled, which is what the handshake
    /// limit's timer does (`HandshakeVerifier.cancel()`, on the event loop).
    @Test(.timeLimit(.minutes(1))) func aRunningEvaluationStopsWhenCancelled() async throws {
        let pki = ServerPKI()
        let (events, event) = AsyncStream<String>.makeStream()
        let client = makeClient(anchors: pki.anchors, trustManager: ServerTrustManager(rules: [.init(try HostPattern(host), Self.endless(event))]))
        let target = try client.target(for: "https://\(host)/", phase: .connect)
        let verifier = HandshakeVerifier(plan: target.plan, challengeHandler: nil, observation: HandshakeObservation())
        verifier.start { event.yield("answered \(await verifier.verify(presented: [pki.leaf.der]))") }
        var seen = events.makeAsyncIterator()
        #expect(await seen.next() == "started")
        verifier.cancel()
        #expect(await seen.next() == "cancelled")
        // Fail closed, and without an outcome: the connection reports its limit, not a verdict cut short.
        #expect(await seen.next() == "answered false")
        #expect(verifier.outcome == nil)
        await client.shutdown()
    }

    /// An evaluator that runs until its task is cancelled (a stream nobody finishes), saying when it starts and ends.
    private static func endless(_ event: AsyncStream<String>.Continuation? = nil) -> CountingEvaluator {
        CountingEvaluator { _, _ in
            event?.yield("started")
            let (never, open) = AsyncStream<Never>.makeStream()
            for await _ in never {}
            withExtendedLifetime(open) {}
            if Task.isCancelled { event?.yield("cancelled") }
            return .refused(TrustFailure(.internalError, certificate: nil, "cut short"))
        }
    }

    /// The handshake limit cancels the evaluation from the event loop. The request's own task cannot do it in time
    /// when evaluations hold every thread of the cooperative pool: it resumes only once they end. Found under
    /// ThreadSanitizer, where 17 evaluations of a 150-certificate chain held a 5 s limit to 34 s or more. Each
    /// evaluator here computes without suspending, as an evaluation of a long chain does, until its task is
    /// cancelled or a minute has passed; there is one per pool thread, and as many more waiting.
    @Test(.timeLimit(.minutes(3))) func aHandshakeLimitCancelsEvaluationsThatHoldEveryPoolThread() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let endings = NIOLockedValueBox<[String]>([])
            let busy = CountingEvaluator { _, _ in
                let clock = ContinuousClock()
                let cap = clock.now + .seconds(60)
                while !Task.isCancelled && clock.now < cap {}
                let ending = Task.isCancelled ? "cancelled" : "ran a minute"
                endings.withLockedValue { $0.append(ending) }
                return .refused(TrustFailure(.internalError, certificate: nil, ending))
            }
            let client = makeClient(anchors: pki.anchors, trustManager: ServerTrustManager(rules: [.init(try HostPattern(host), busy)]),
                                    timeouts: Timeouts(connect: .seconds(30), handshake: .seconds(1), request: .seconds(120)))
            let requests = 2 * ProcessInfo.processInfo.activeProcessorCount
            let url = "https://\(host):\(server.port)/"
            let errors = await withTaskGroup(of: TransportError?.self) { group in
                for _ in 0..<requests { group.addTask { await transportError { try await client.execute(HTTPRequest(url: url)) } } }
                return await group.reduce(into: [TransportError?]()) { $0.append($1) }
            }
            await client.shutdown()
            #expect(errors.count == requests)
            for error in errors {
                #expect(error?.kind == .timedOut, "\(String(describing: error))")
                #expect(error?.phase == .handshake)
            }
            // Without the cancellation on the loop, the busy evaluators end only at their minute.
            #expect(endings.withLockedValue { $0 }.allSatisfy { $0 == "cancelled" })
        }
    }

    /// An evaluation cancelled before it got a thread never starts: a queue of hostile chains costs nothing once
    /// their connections are given up.
    @Test func anEvaluationCancelledBeforeItStartsNeverRuns() async throws {
        let pki = ServerPKI()
        let counting = CountingEvaluator { _, _ in .refused(TrustFailure(.internalError, certificate: nil, "ran")) }
        let client = makeClient(anchors: pki.anchors, trustManager: ServerTrustManager(rules: [.init(try HostPattern(host), counting)]))
        let target = try client.target(for: "https://\(host)/", phase: .connect)
        let verifier = HandshakeVerifier(plan: target.plan, challengeHandler: nil, observation: HandshakeObservation())
        verifier.cancel()
        let (answers, answered) = AsyncStream<Bool>.makeStream()
        verifier.start { answered.yield(await verifier.verify(presented: [pki.leaf.der])) }
        var first = answers.makeAsyncIterator()
        #expect(await first.next() == false)
        #expect(counting.calls == 0)
        #expect(verifier.outcome == nil)
        await client.shutdown()
    }

    @Test func resettingServerIsAClosedConnection() async throws {
        let server = try await TestServer.raw(.reset)
        await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: ServerPKI().anchors, timeouts: short)
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .connectionClosed)
            #expect(error?.phase == .handshake)
        }
    }

    @Test func garbageServerIsNotTLS() async throws {
        let server = try await TestServer.raw(.garbage)
        await withShutdown({ await server.shutdown() }) {
            // The answer is immediate, but the whole suite on two cores can starve the handshake for seconds: a short
            // handshake limit turned this into a timeout once (2026-11-25). The assertions below still need the TLS refusal.
            let client = makeClient(anchors: ServerPKI().anchors, timeouts: Timeouts(connect: .seconds(5), handshake: .seconds(20), request: .seconds(30)))
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .malformedResponse)
            #expect(error?.message.contains("did not answer with TLS") == true)
            #expect(error?.message.contains("HTTP/1.1 200") == true)
        }
    }

    /// A hostile server behind TLS the client trusts, so that its misbehaviour reaches the client's HTTP layer.
    private func behindTLS(_ behaviour: Misbehaviour) async throws -> (LocalServer, HTTPSClient) {
        let pki = ServerPKI()
        let server = try await TestServer.raw(behaviour, tls: try TestServer.tlsConfiguration(chain: pki.served, key: pki.leaf.key))
        return (server, makeClient(anchors: pki.anchors))
    }

    /// Slowloris from the server: header bytes keep coming, one every 50 ms, so no idle limit would fire; the
    /// request's own deadline must end it.
    @Test func headersThatTrickleForeverEndAtTheRequestLimit() async throws {
        let (server, client) = try await behindTLS(.slowHeaders)
        await withShutdown({ await server.shutdown() }) {
            let request = HTTPRequest(url: "https://\(host):\(server.port)/", timeout: .seconds(8))
            let error = await transportError { try await client.execute(request) }
            #expect(error?.kind == .timedOut, "\(String(describing: error))")
            #expect(error?.message.contains("time limit") == true, "\(String(describing: error))")
        }
    }

    /// A header block past NIO's limits (1 MiB in 1,000-byte fields), from a server that then holds the connection
    /// open: the client stops reading at the limit and says why, instead of buffering or waiting.
    @Test func anOversizedHeaderBlockIsRefusedAtTheLimit() async throws {
        let (server, client) = try await behindTLS(.oversizedHeaders)
        await withShutdown({ await server.shutdown() }) {
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .malformedResponse, "\(String(describing: error))")
            #expect(error?.message.contains("headers are over the limits") == true, "\(String(describing: error))")
        }
    }

    @Test func serverThatNeverAnswersHitsTheRequestTimeout() async throws {
        let pki = ServerPKI()
        // The server answers /warm and stalls on anything else. The stalled request goes out on the kept-alive
        // connection with a 3 s limit of its own, so no handshake sits in its time: under the loaded suite a
        // handshake has waited longer than 12 s. The warm request keeps the client's generous limit.
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { TestResponse(reply: $0.head.uri == "/warm") }
        try await withShutdown({ await server.shutdown() }) { () async throws in
            let client = makeClient(anchors: pki.anchors)
            #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/warm")).statusCode == 200)
            let stalled = HTTPRequest(url: "https://\(host):\(server.port)/", timeout: .seconds(3))
            let error = await transportError { try await client.execute(stalled) }
            #expect(server.connectionCount == 1)
            #expect(error?.kind == .timedOut)
            #expect(error?.phase == .response)
            #expect(error?.verdict?.isTrusted == true)
        }
    }

    @Test func aStreamedBodyThatStallsEndsWithATransportErrorAndTheConnectionIsNotKept() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
            request.head.uri == "/warm" ? TestResponse() : TestResponse(body: Array(repeating: 0x61, count: 100), stallAfter: 10)
        }
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors)
            // As above: the stalled request goes out on the warm connection, so its short limit holds no handshake.
            #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/warm")).statusCode == 200)
            let response = try await client.stream(HTTPRequest(url: "https://\(host):\(server.port)/", timeout: .seconds(3)))
            var received = 0
            do {
                for try await chunk in response.body { received += chunk.count }
                Issue.record("the body ended without an error")
            } catch {
                let failure = error as? TransportError
                #expect(failure?.kind == .timedOut, "\(error)")
                #expect(failure?.phase == .response)
            }
            #expect(received == 10)
            #expect(await client.idleConnectionCount == 0)
        }
    }

    /// A request's own limit replaces the client's, shorter or longer.
    @Test func aRequestsOwnTimeoutReplacesTheClients() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { TestResponse(reply: $0.head.uri == "/warm") }
        try await withShutdown({ await server.shutdown() }) { () async throws in
            let client = makeClient(anchors: pki.anchors, timeouts: Timeouts(connect: .seconds(30), handshake: .seconds(30), request: .milliseconds(1)))
            // 1 ms is too short for any request: only the request's own limit lets this one load.
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/warm")) }
            #expect(error?.kind == .timedOut)
            #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/warm", timeout: .seconds(120))).statusCode == 200)
        }
    }

    @Test func aPOSTIsNotSentAgainWhenAReusedConnectionClosesButAGETIs() async throws {
        let pki = ServerPKI()
        // Each request after the first finds the connection pooled; the server reads it and closes without answering.
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
            request.head.uri == "/warm" ? .text("warm") : TestResponse(hangUp: true)
        }
        await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors) { $0.httpVersions = .http1Only }
            await withShutdown({ await client.shutdown() }) {
                let url = "https://\(host):\(server.port)"
                _ = try? await client.execute(HTTPRequest(url: url + "/warm"))
                let posted = await transportError { try await client.execute(HTTPRequest(url: url + "/pay", method: .POST, body: Array("transfer=100".utf8))) }
                #expect(posted?.kind == .connectionClosed)
                #expect(server.requests.filter { $0.head.method == .POST }.count == 1, "the server may have run it: not sent again")

                _ = try? await client.execute(HTTPRequest(url: url + "/warm"))
                let got = await transportError { try await client.execute(HTTPRequest(url: url + "/read")) }
                #expect(got?.kind == .connectionClosed)
                #expect(server.requests.filter { $0.head.uri == "/read" }.count == 2, "a GET is safe to send again on a new connection")
            }
        }
    }

    @Test func connectionRefusedIsAConnectError() async throws {
        // Bind a port, then close it, so nothing listens there.
        let server = try await TestServer.raw(.stall)
        let port = server.port
        await server.shutdown()
        let error = await transportError { try await makeClient(anchors: ServerPKI().anchors, timeouts: short).execute(HTTPRequest(url: "https://\(host):\(port)/")) }
        #expect(error?.kind == .connectionFailed)
        #expect(error?.phase == .connect)
        #expect(error?.message == "127.0.0.1:\(port) refused the connection: nothing listens on port \(port) there; check the port, and that the server is running")
        #expect(error?.underlying?.isEmpty == false, "NIO's own text is kept for debugging")
    }

    @Test func aURLWithWhitespaceOrAControlCharacterIsRefusedBeforeAnythingIsSent() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors)
            for (url, words) in [("https://\(host):\(server.port)/a\r\nX-Injected: 1", "a line break (U+000D)"),
                                 ("https://\(host):\(server.port)/a b", "a space (U+0020)"),
                                 ("https://\(host):\(server.port)/\u{7}", "an invisible control character (U+0007)")] {
                let error = await transportError { try await client.execute(HTTPRequest(url: url)) }
                #expect(error?.kind == .invalidRequest, "\(url.debugDescription)")
                #expect(error?.message.contains(words) == true, "\(error?.message ?? "loaded")")
            }
            #expect(server.connectionCount == 0)
        }
    }

    @Test func anInvalidMethodOrHeaderIsTheRequestsFaultAndNothingIsSent() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors)
            let url = "https://\(host):\(server.port)/"
            for (request, words) in [(HTTPRequest(url: url, method: .RAW(value: "GE T")), "the method \"GE T\""),
                                     (HTTPRequest(url: url, headers: ["bad name": "x"]), "the header name \"bad name\""),
                                     (HTTPRequest(url: url, headers: ["x-note": "a\r\nx-injected: 1"]), "U+000D (a line break)")] {
                let error = await transportError { try await client.execute(request) }
                #expect(error?.kind == .invalidRequest)
                #expect(error?.phase == .request)
                #expect(error?.message.contains(words) == true, "\(error?.message ?? "loaded")")
            }
            #expect(server.connectionCount == 0)
        }
    }

    @Test func anAddressOverrideIsConnectedToAndNeverLookedUp() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("here") }
        try await withShutdown({ await server.shutdown() }) { () async throws in
            let url = "https://\(host):\(server.port)/"
            // `localhost` would resolve to this server; an override that is a name is refused instead.
            let named = await transportError { try await makeClient(anchors: pki.anchors) { $0.addressOverrides = [host: "localhost"] }.execute(HTTPRequest(url: url)) }
            #expect(named?.kind == .invalidRequest)
            #expect(named?.phase == .connect)
            #expect(named?.message.contains("'localhost', which is not an IPv4 or IPv6 address") == true, "\(named?.message ?? "loaded")")
            #expect(server.connectionCount == 0)

            // A host:port entry is for that port, and wins over the host's own entry.
            let portOnly = makeClient(anchors: pki.anchors) { $0.addressOverrides = [host: "localhost", "\(host):\(server.port)": "127.0.0.1"] }
            #expect(try await portOnly.execute(HTTPRequest(url: url)).text == "here")
            #expect(AddressOverrides.address(in: ["a.test:443": "192.0.2.1", "a.test": "192.0.2.2"], host: "a.test", port: 443) == "192.0.2.1")
            #expect(AddressOverrides.address(in: ["a.test:443": "192.0.2.1", "a.test": "192.0.2.2"], host: "a.test", port: 8443) == "192.0.2.2")
            #expect(AddressOverrides.address(in: ["[::1]:443": "192.0.2.1"], host: "::1", port: 443) == "192.0.2.1")
            #expect(AddressOverrides.address(in: ["a.test:443": "192.0.2.1"], host: "b.test", port: 443) == nil)
            #expect(AddressOverrides.socketAddress("[::1]", port: 443) != nil && AddressOverrides.socketAddress("::1", port: 443) != nil)
        }
    }

    @Test func responseLargerThanTheLimitIsRefused() async throws {
        let pki = ServerPKI()
        let big = [UInt8](repeating: 0x61, count: 200_000)
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in TestResponse(body: big) }
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors) { $0.maximumResponseBytes = 50_000 }
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .responseTooLarge)
            #expect(error?.message.contains("50000") == true)

            // Streaming hands over the whole body.
            let streamed = try await client.stream(HTTPRequest(url: "https://\(host):\(server.port)/"))
            var total = 0
            for try await chunk in streamed.body { total += chunk.count }
            #expect(total == big.count)
            #expect(streamed.status == .ok)
        }
    }

    /// A streamed body is not buffered ahead of its reader: past a bound the client stops reading, and TCP (or the
    /// HTTP/2 stream's flow control) holds the server back until the reader catches up. Before, a reader that paused
    /// got the whole body buffered for it, however large.
    @Test(.timeLimit(.minutes(2)), arguments: [false, true])
    func aSlowReaderHoldsTheServerBackInsteadOfBufferingTheBody(http2: Bool) async throws {
        let pki = ServerPKI()
        // Past the bound, and small: every test shares two event loops, and a debug build's TLS is slow.
        let size = 1 << 20
        let big = [UInt8](repeating: 0x61, count: size)
        let server = http2
            ? try await TestServer.http2(chain: pki.served, key: pki.leaf.key) { _ in TestResponse(body: big) }
            : try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in TestResponse(body: big) }
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors)
            let response = try await client.stream(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.connection.httpVersion == (http2 ? "HTTP/2" : "HTTP/1.1"))
            let buffer = try #require(response.buffer)
            // Nothing read yet: reading pauses with a bounded amount buffered (the bound, plus what one read brought).
            let slack = 512 << 10
            var pauses = buffer.pauses().makeAsyncIterator()
            let atPause = try #require(await pauses.next())
            #expect(atPause > BodyBuffer.high && atPause <= BodyBuffer.high + slack, "\(atPause) bytes buffered at the pause")
            var total = 0
            for try await chunk in response.body {
                total += chunk.count
                #expect(buffer.buffered <= BodyBuffer.high + slack)
            }
            #expect(total == size)
            await client.shutdown()
        }
    }

    /// A task cancelled while it waits for its response ends at once, as a cancelled URLSession task does, instead
    /// of at the request's time limit (90 s here, past the test's own limit): while the server has not answered, or
    /// while the client reads a redirect's body that stalls (`redirect`), which the caller never sees. The GET is not
    /// sent again, though it went out on a reused connection, where a closed connection is retried. On HTTP/1.1 the
    /// connection is closed (its response may still come); on HTTP/2 only the stream is reset, and the connection
    /// carries the next request.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true], [(false, false), (true, false), (false, true), (true, true)])
    func aRequestWhoseTaskIsCancelledWhileItWaitsEndsAtOnce(http2: Bool, way: (streaming: Bool, redirect: Bool)) async throws {
        let pki = ServerPKI()
        let (seen, arrived) = AsyncStream<Void>.makeStream()
        let responder: Responder = { request in
            guard request.head.uri == "/stall" else { return TestResponse() }
            arrived.yield()
            guard way.redirect else { return TestResponse(reply: false) }
            return TestResponse(status: .found, headers: [("location", "/warm")], body: Array(repeating: 0x61, count: 100), stallAfter: 10)
        }
        let server = http2
            ? try await TestServer.http2(chain: pki.served, key: pki.leaf.key, responder: responder)
            : try await TestServer.https(chain: pki.served, key: pki.leaf.key, responder: responder)
        try await withShutdown({ await server.shutdown() }) { () async throws in
            let client = makeClient(anchors: pki.anchors)
            let url = "https://\(host):\(server.port)"
            #expect(try await client.execute(HTTPRequest(url: url + "/warm")).statusCode == 200)
            let stalled = HTTPRequest(url: url + "/stall", timeout: .seconds(90))
            let task = Task {
                way.streaming ? Int(try await client.stream(stalled).status.code) : try await client.execute(stalled).statusCode
            }
            var arrivals = seen.makeAsyncIterator()
            await arrivals.next()
            task.cancel()
            let error = await transportError { try await task.value }
            #expect(error?.kind == .cancelled, "\(String(describing: error))")
            #expect(error?.message.contains("cancelled") == true, "\(String(describing: error))")
            #expect(server.requests.filter { $0.head.uri == "/stall" }.count == 1, "sent again")
            #expect(server.requests.count == 2, "the redirect was not to be followed")
            #expect(try await client.execute(HTTPRequest(url: url + "/warm")).statusCode == 200)
            #expect(server.connectionCount == (http2 ? 1 : 2))
            await client.shutdown()
        }
    }

    @Test func hugeCertificateChainEndsWithAClearError() async throws {
        let pki = ServerPKI()
        // About 5 MB: the intermediate repeated. BoringSSL caps the Certificate message far below that.
        let copies = 5_000_000 / max(pki.intermediate.der.count, 1)
        let chain = [pki.leaf] + Array(repeating: pki.intermediate, count: copies)
        let server = try await TestServer.https(chain: chain, key: pki.leaf.key)
        await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors, timeouts: Timeouts(connect: .seconds(30), handshake: .seconds(20), request: .seconds(25)))
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error != nil)
            #expect(error?.phase == .handshake)
            #expect(error?.isSecurityRefusal == false)
        }
    }
}
