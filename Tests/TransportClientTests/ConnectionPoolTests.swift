import NIOCore
import NIOPosix
import TestSupport
import TestServersSupport
import Testing
import TransportTrust

@testable import TransportClient

/// Requests waiting for the connection another request is opening: they wait within their own limits.
@Suite struct ConnectionPoolTests {
    static let key = PoolKey(scheme: "https", host: "www.example.test", port: 443, settings: "", proxy: "")

    /// A pool in which one request is opening the connection for `key`.
    private func poolBeingOpened() async -> ConnectionPool {
        let pool = ConnectionPool(maximumPerKey: 4)
        #expect(pool.beginOpening(Self.key))
        return pool
    }

    /// Another request waiting for that connection, until `deadline`.
    private func waiter(_ pool: ConnectionPool, deadline: NIODeadline) -> Task<HTTP2Session?, Never> {
        Task { await pool.waitForOpening(Self.key, deadline: deadline, on: MultiThreadedEventLoopGroup.singleton.next()) }
    }

    /// The opener may take its proxy, handshake and a challenge prompt; a waiter gives up at its own deadline and
    /// opens its own connection. Nothing but that deadline can answer it here, since the opener finishes only after the
    /// answer: the test waits for the answer itself, not for a span of time, and a deadline that never fires is a hang
    /// that the time limit reports.
    @Test(.timeLimit(.minutes(1))) func aWaiterGivesUpAtItsOwnDeadline() async {
        let pool = await poolBeingOpened()
        #expect(pool.beginOpening(Self.key) == false, "a second request waits for the first's connection")
        let answer = await pool.waitForOpening(Self.key, deadline: .now() + .milliseconds(100), on: MultiThreadedEventLoopGroup.singleton.next())
        #expect(answer == nil)
        #expect(pool.isOpening(Self.key), "the wait ended at the waiter's deadline, not the opener's")
        pool.finishOpening(Self.key, session: nil)
    }

    @Test(.timeLimit(.minutes(1))) func aCancelledWaiterStopsWaiting() async {
        let pool = await poolBeingOpened()
        let waiter = waiter(pool, deadline: .now() + .seconds(3600))
        waiter.cancel()
        #expect(await waiter.value == nil, "cancelling the request's task ends its wait")
        #expect(pool.isOpening(Self.key), "the wait ended by its cancellation, not the opener's")
        pool.finishOpening(Self.key, session: nil)
    }

    @Test(.timeLimit(.minutes(1))) func waitersLearnTheOpenersOutcome() async {
        let pool = await poolBeingOpened()
        let waiter = waiter(pool, deadline: .now() + .seconds(3600))
        // Not HTTP/2: every waiter hears nil at once and opens its own.
        pool.finishOpening(Self.key, session: nil)
        #expect(await waiter.value == nil)
    }

    // MARK: Bounds on what is kept

    static let hosts = ["a.example.test", "b.example.test", "c.example.test"]

    /// A server that redirects through many hosts cannot leave the client holding a socket for each: past the limit,
    /// the least recently used idle connection is closed.
    @Test func noMoreThanTheLimitIsKeptInAllAndTheLeastRecentlyUsedGoesFirst() async throws {
        let pki = ServerPKI(dns: Self.hosts)
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors, hosts: Self.hosts) { $0.maximumIdleConnections = 2; $0.httpVersions = .http1Only }
            try await withShutdown({ await client.shutdown() }) {
                for host in Self.hosts { _ = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
                #expect(server.connectionCount == 3)
                #expect(client.pool.idleCount == 2)
                // c and b are kept; a, used least recently, was closed.
                _ = try await client.execute(HTTPRequest(url: "https://c.example.test:\(server.port)/"))
                #expect(server.connectionCount == 3, "c's connection was reused")
                _ = try await client.execute(HTTPRequest(url: "https://a.example.test:\(server.port)/"))
                #expect(server.connectionCount == 4, "a's connection had been closed")
            }
        }
    }

    @Test func anIdleConnectionPastTheTimeoutIsNotReused() async throws {
        let pki = ServerPKI(dns: Self.hosts)
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors, hosts: Self.hosts) { $0.idleConnectionTimeout = .zero; $0.httpVersions = .http1Only }
            try await withShutdown({ await client.shutdown() }) {
                _ = try await client.execute(HTTPRequest(url: "https://a.example.test:\(server.port)/"))
                _ = try await client.execute(HTTPRequest(url: "https://a.example.test:\(server.port)/"))
                #expect(server.connectionCount == 2)
                #expect(client.pool.idleCount == 0)
            }
        }
    }
}
