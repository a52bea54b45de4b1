import NIOCore
import Testing

@testable import TransportClient

/// The pool's rules, one test each, on fake connections and an explicit clock: no socket, no timer.
@Suite struct ConnectionPoolStateTests {
    final class FakeConnection: PoolableConnection {
        let key: PoolKey
        var isActive = true
        var isStream = false
        init(_ key: PoolKey) { self.key = key }
    }

    final class FakeSession: PoolableSession {
        let key: PoolKey
        var isUsable = true
        init(_ key: PoolKey) { self.key = key }
    }

    typealias State = ConnectionPoolState<FakeConnection, FakeSession, Int>

    static func key(_ host: String) -> PoolKey { PoolKey(scheme: "https", host: host, port: 443, settings: "") }
    let a = Self.key("a.example.test")
    let b = Self.key("b.example.test")
    let c = Self.key("c.example.test")
    let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    func at(_ seconds: Int64) -> NIODeadline { t0 + .seconds(seconds) }

    func makeState(perKey: Int = 4, idle: Int = 64, timeout: TimeAmount = .seconds(90)) -> State {
        State(maximumPerKey: perKey, maximumIdle: idle, idleTimeout: timeout)
    }

    func reuse(_ state: inout State, _ key: PoolKey, at now: NIODeadline) -> (connection: FakeConnection?, session: FakeSession?, effects: State.Effects) {
        let (reusable, effects) = state.reusable(key, now: now)
        switch reusable {
        case .connection(let connection): return (connection, nil, effects)
        case .session(let session): return (nil, session, effects)
        case nil: return (nil, nil, effects)
        }
    }

    // MARK: Idle HTTP/1.1 connections

    @Test func aKeptConnectionIsHandedOutOnceTheMostRecentFirst() {
        var state = makeState()
        let (older, newer) = (FakeConnection(a), FakeConnection(a))
        #expect(state.put(older, now: at(0)).isEmpty)
        #expect(state.put(newer, now: at(1)).isEmpty)
        #expect(reuse(&state, a, at: at(2)).connection === newer)
        #expect(reuse(&state, a, at: at(2)).connection === older)
        #expect(reuse(&state, a, at: at(2)).connection == nil, "each was handed out once")
    }

    @Test func aConnectionIsReusedOnlyForItsOwnKey() {
        var state = makeState()
        _ = state.put(FakeConnection(a), now: at(0))
        #expect(reuse(&state, b, at: at(0)).connection == nil)
    }

    @Test func aConnectionThatClosedWhileIdleIsNotHandedOut() {
        var state = makeState()
        let connection = FakeConnection(a)
        _ = state.put(connection, now: at(0))
        connection.isActive = false
        #expect(state.idleCount == 0)
        #expect(reuse(&state, a, at: at(1)).connection == nil)
    }

    @Test func noMoreThanMaximumPerKeyAreKeptTheSurplusIsClosed() {
        var state = makeState(perKey: 2)
        let connections = [FakeConnection(a), FakeConnection(a), FakeConnection(a)]
        _ = state.put(connections[0], now: at(0))
        _ = state.put(connections[1], now: at(0))
        let effects = state.put(connections[2], now: at(0))
        #expect(effects.close.map { ObjectIdentifier($0) } == [ObjectIdentifier(connections[2])])
        #expect(state.idleCount == 2)
    }

    @Test(arguments: [(0, 64), (4, 0)]) func aPoolThatKeepsNothingClosesWhatItIsGiven(perKey: Int, idle: Int) {
        var state = makeState(perKey: perKey, idle: idle)
        let connection = FakeConnection(a)
        #expect(state.put(connection, now: at(0)).close.first === connection)
        #expect(state.idleCount == 0)
    }

    @Test func aClosedConnectionHandedBackIsClosedNotKept() {
        var state = makeState()
        let connection = FakeConnection(a)
        connection.isActive = false
        #expect(state.put(connection, now: at(0)).close.first === connection)
        #expect(state.idleCount == 0)
    }

    @Test func anHTTP2StreamHandedBackIsClosedNotKept() {
        var state = makeState()
        let stream = FakeConnection(a)
        stream.isStream = true
        #expect(state.put(stream, now: at(0)).close.first === stream)
        #expect(reuse(&state, a, at: at(0)).connection == nil)
    }

    @Test func aConnectionHandedBackTwiceIsKeptOnce() {
        var state = makeState()
        let connection = FakeConnection(a)
        _ = state.put(connection, now: at(0))
        #expect(state.put(connection, now: at(1)).isEmpty)
        #expect(reuse(&state, a, at: at(2)).connection === connection)
        #expect(reuse(&state, a, at: at(2)).connection == nil, "not handed to two requests")
    }

    // MARK: Idle timeout

    @Test func aConnectionIdlePastTheTimeoutIsClosedAtTheNextUse() {
        var state = makeState(timeout: .seconds(90))
        let connection = FakeConnection(a)
        _ = state.put(connection, now: at(0))
        let (reused, _, effects) = reuse(&state, a, at: at(90))
        #expect(reused == nil)
        #expect(effects.close.first === connection)
    }

    @Test func aConnectionIdleWithinTheTimeoutIsReused() {
        var state = makeState(timeout: .seconds(90))
        let connection = FakeConnection(a)
        _ = state.put(connection, now: at(0))
        #expect(reuse(&state, a, at: at(89)).connection === connection)
    }

    @Test func aSessionUnusedPastTheTimeoutIsRetired() {
        var state = makeState(timeout: .seconds(90))
        let session = FakeSession(a)
        _ = state.add(session, now: at(0))
        let (_, reused, effects) = reuse(&state, a, at: at(90))
        #expect(reused == nil)
        #expect(effects.retire.first === session)
    }

    // MARK: The bound in all, least recently used first

    @Test func pastMaximumIdleTheLeastRecentlyUsedConnectionIsClosed() {
        var state = makeState(idle: 2)
        let (ca, cb, cc) = (FakeConnection(a), FakeConnection(b), FakeConnection(c))
        _ = state.put(ca, now: at(0))
        _ = state.put(cb, now: at(1))
        let effects = state.put(cc, now: at(2))
        #expect(effects.close.map { ObjectIdentifier($0) } == [ObjectIdentifier(ca)])
        #expect(state.idleCount == 2)
    }

    @Test func pastMaximumIdleAnOlderSessionIsRetiredBeforeANewerConnection() {
        var state = makeState(idle: 2)
        let session = FakeSession(a)
        _ = state.add(session, now: at(0))
        _ = state.put(FakeConnection(b), now: at(1))
        let effects = state.put(FakeConnection(c), now: at(2))
        #expect(effects.retire.first === session)
        #expect(effects.close.isEmpty)
    }

    @Test func aSessionHandedOutCountsAsRecentlyUsed() {
        var state = makeState(idle: 2)
        let (session, older) = (FakeSession(a), FakeConnection(b))
        _ = state.add(session, now: at(0))
        _ = state.put(older, now: at(1))
        #expect(state.session(a, now: at(2)).0 === session)
        let effects = state.put(FakeConnection(c), now: at(3))
        #expect(effects.close.first === older, "the session was used after the connection was kept")
        #expect(effects.retire.isEmpty)
    }

    // MARK: Shared HTTP/2 connections

    @Test func aUsableSessionIsPreferredToAnIdleConnection() {
        var state = makeState()
        let session = FakeSession(a)
        _ = state.put(FakeConnection(a), now: at(0))
        _ = state.add(session, now: at(0))
        #expect(reuse(&state, a, at: at(1)).session === session)
        #expect(reuse(&state, a, at: at(1)).session === session, "a session is shared, not taken")
    }

    @Test func aSessionThatMayTakeNoStreamLeavesThePoolRetired() {
        var state = makeState()
        let session = FakeSession(a)
        _ = state.add(session, now: at(0))
        session.isUsable = false
        let (found, effects) = state.session(a, now: at(1))
        #expect(found == nil)
        #expect(effects.retire.first === session)
        #expect(state.session(a, now: at(1)).0 == nil)
    }

    @Test func racingSessionsKeepTheFirstAndRetireTheNewer() {
        var state = makeState()
        let (first, second) = (FakeSession(a), FakeSession(a))
        _ = state.add(first, now: at(0))
        #expect(state.add(second, now: at(1)).retire.first === second)
        #expect(state.session(a, now: at(2)).0 === first)
    }

    @Test func aSessionReplacesOneThatMayTakeNoStream() {
        var state = makeState()
        let (first, second) = (FakeSession(a), FakeSession(a))
        _ = state.add(first, now: at(0))
        first.isUsable = false
        #expect(state.add(second, now: at(1)).retire.isEmpty)
        #expect(state.session(a, now: at(2)).0 === second)
    }

    @Test func aSessionAddedTwiceIsNotRetired() {
        var state = makeState()
        let session = FakeSession(a)
        _ = state.add(session, now: at(0))
        #expect(state.add(session, now: at(1)).isEmpty)
    }

    // MARK: Openings

    @Test func oneRequestOpensTheOthersWait() {
        var state = makeState()
        #expect(state.beginOpening(a, now: at(0)).0)
        #expect(state.beginOpening(a, now: at(0)).0 == false)
        #expect(state.beginOpening(b, now: at(0)).0, "another key opens on its own")
    }

    @Test func noOpeningIsBegunWhenASessionIsShared() {
        var state = makeState()
        _ = state.add(FakeSession(a), now: at(0))
        #expect(state.beginOpening(a, now: at(1)).0 == false)
    }

    @Test func aWaiterIsKeptOnlyWhileAnOpeningIsUnderWay() {
        var state = makeState()
        #expect(state.wait(1, for: a) == false)
        _ = state.beginOpening(a, now: at(0))
        #expect(state.wait(1, for: a) == true)
        _ = state.finishOpening(a, session: nil, now: at(1))
        #expect(state.isOpening(a) == false)
        #expect(state.wait(2, for: a) == false)
    }

    @Test func waitersHearTheSharedSession() {
        var state = makeState()
        let session = FakeSession(a)
        _ = state.beginOpening(a, now: at(0))
        _ = state.wait(1, for: a)
        _ = state.wait(2, for: a)
        let effects = state.finishOpening(a, session: session, now: at(1))
        #expect(effects.answered.sorted() == [1, 2])
        #expect(effects.answer === session)
        #expect(state.session(a, now: at(2)).0 === session, "the opener's session is shared")
    }

    @Test func waitersHearNilWhenTheConnectionIsNotHTTP2() {
        var state = makeState()
        _ = state.beginOpening(a, now: at(0))
        _ = state.wait(1, for: a)
        let effects = state.finishOpening(a, session: nil, now: at(1))
        #expect(effects.answered == [1])
        #expect(effects.answer == nil)
    }

    @Test func waitersOfAnOpenerThatLostTheRaceHearTheWinner() {
        var state = makeState()
        let (winner, loser) = (FakeSession(a), FakeSession(a))
        _ = state.beginOpening(a, now: at(0))
        _ = state.wait(1, for: a)
        // A request that did not wait shared its own meanwhile.
        _ = state.add(winner, now: at(0))
        let effects = state.finishOpening(a, session: loser, now: at(1))
        #expect(effects.retire.first === loser)
        #expect(effects.answer === winner)
    }

    // MARK: Shutdown

    @Test func shutdownClosesEverythingKept() {
        var state = makeState()
        let (connection, session) = (FakeConnection(a), FakeSession(b))
        _ = state.put(connection, now: at(0))
        _ = state.add(session, now: at(0))
        let effects = state.shutdown()
        #expect(effects.close.first === connection)
        #expect(effects.closeSessions.first === session)
        #expect(state.idleCount == 0)
    }

    @Test func afterShutdownWhatIsHandedBackIsClosed() {
        var state = makeState()
        _ = state.shutdown()
        let (connection, session) = (FakeConnection(a), FakeSession(a))
        #expect(state.put(connection, now: at(0)).close.first === connection)
        #expect(state.add(session, now: at(0)).closeSessions.first === session)
        #expect(state.session(a, now: at(0)).0 == nil)
    }
}
