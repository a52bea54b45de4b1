import NIOCore
import TestSupport
import Testing

@testable import TransportClient

/// Requests waiting for the connection another request is opening: they wait within their own limits.
@Suite struct ConnectionPoolTests {
    let key = PoolKey(scheme: "https", host: "www.example.test", port: 443, settings: "", proxy: "")

    /// The opener may take its proxy, handshake and a challenge prompt; a waiter gives up at its own deadline and
    /// opens its own connection.
    @Test func aWaiterGivesUpAtItsOwnDeadline() async {
        let pool = ConnectionPool(maximumPerKey: 4)
        #expect(await pool.beginOpening(key))
        #expect(await pool.beginOpening(key) == false, "a second request waits for the first's connection")
        let key = self.key
        let waited = await bounded(.seconds(10)) { await pool.waitForOpening(key, deadline: .now() + .milliseconds(100)) == nil }
        #expect(waited == true, "the wait ended at the waiter's deadline, not the opener's")
        await pool.finishOpening(key, session: nil)
    }

    @Test func aCancelledWaiterStopsWaiting() async {
        let pool = ConnectionPool(maximumPerKey: 4)
        #expect(await pool.beginOpening(key))
        let key = self.key
        let waiter = Task { await pool.waitForOpening(key, deadline: .now() + .seconds(3600)) }
        waiter.cancel()
        let ended = await bounded(.seconds(10)) { await waiter.value == nil }
        #expect(ended == true, "cancelling the request's task ends its wait")
        await pool.finishOpening(key, session: nil)
    }

    @Test func waitersLearnTheOpenersOutcome() async {
        let pool = ConnectionPool(maximumPerKey: 4)
        #expect(await pool.beginOpening(key))
        let key = self.key
        let waiter = Task { await pool.waitForOpening(key, deadline: .now() + .seconds(3600)) }
        // Not HTTP/2: every waiter hears nil at once and opens its own.
        await pool.finishOpening(key, session: nil)
        let ended = await bounded(.seconds(10)) { await waiter.value == nil }
        #expect(ended == true)
    }
}
