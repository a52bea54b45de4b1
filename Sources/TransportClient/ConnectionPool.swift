import NIOConcurrencyHelpers
import NIOCore

/// Idle connections by (scheme, host, port, TLS settings). A connection is evaluated once, when it is opened;
/// reusing it carries that decision, and any new connection is evaluated afresh.
///
/// What is kept is bounded whatever the servers do: a few connections per key, `maximumIdle` in all (the least
/// recently used goes first), and none reused after `idleTimeout` idle (such are closed at the pool's next use). A
/// server that redirects through many hosts or ports would otherwise leave the client holding sockets without end.
///
/// Its state is a value under a lock, not an actor's: every request asks the pool for a connection and hands it back,
/// and as an actor each of those calls was a hop to the actor and one back, four task switches per keep-alive
/// request. The effects run outside the lock.
final class ConnectionPool: Sendable {
    /// A request waiting for another's connection: its one answer, and the timer that gives up at its deadline.
    struct Waiter {
        var answer: OpeningAnswer
        var timer: Scheduled<Void>
    }
    /// Every decision is the state's; the pool only carries out its effects.
    private let state: NIOLockedValueBox<ConnectionPoolState<Connection, HTTP2Session, Waiter>>

    let maximumIdle: Int
    let idleTimeout: TimeAmount

    init(maximumPerKey: Int, maximumIdle: Int = 64, idleTimeout: TimeAmount = .seconds(90)) {
        self.maximumIdle = maximumIdle
        self.idleTimeout = idleTimeout
        state = NIOLockedValueBox(ConnectionPoolState(maximumPerKey: maximumPerKey, maximumIdle: maximumIdle, idleTimeout: idleTimeout))
    }

    typealias Reusable = ConnectionPoolState<Connection, HTTP2Session, Waiter>.Reusable

    /// The HTTP/2 connection for `key` that may take another stream, else an idle connection, in one call: a
    /// keep-alive request pays one hop to the pool, not two.
    func reusable(_ key: PoolKey) -> Reusable? {
        let (reusable, effects) = state.withLockedValue { $0.reusable(key, now: .now()) }
        run(effects)
        return reusable
    }

    /// The HTTP/2 connection for `key` that may take another stream, if any.
    func session(_ key: PoolKey) -> HTTP2Session? {
        let (session, effects) = state.withLockedValue { $0.session(key, now: .now()) }
        run(effects)
        return session
    }

    /// Shares an HTTP/2 connection. When one is already shared for the key (two requests raced to connect), that one
    /// stays, and the newer is retired: it closes when its only stream ends.
    func add(_ session: HTTP2Session) {
        run(state.withLockedValue { $0.add(session, now: .now()) })
    }

    /// Whether the caller is to open the connection for `key` (true), or another request is opening one or has
    /// shared one already (false: ``waitForOpening(_:deadline:on:)`` then answers with it).
    /// A true answer must be followed by ``finishOpening(_:session:)``.
    func beginOpening(_ key: PoolKey) -> Bool {
        let (opener, effects) = state.withLockedValue { $0.beginOpening(key, now: .now()) }
        run(effects)
        return opener
    }

    /// Whether a request is opening a connection for `key`.
    func isOpening(_ key: PoolKey) -> Bool { state.withLockedValue { $0.isOpening(key) } }

    /// Waits for the connection another request is opening for `key`: its HTTP/2 session, or nil when it is not
    /// one (HTTP/1.1, or it failed), and the caller opens its own. The wait ends at the caller's `deadline` or when
    /// its task is cancelled (nil too): the opener's proxy, handshake or challenge may take far longer than the
    /// caller may wait. The deadline is a timer on `loop`, which answers the waiter itself: it needs no thread of the
    /// cooperative pool, which may be busy for seconds under load.
    func waitForOpening(_ key: PoolKey, deadline: NIODeadline, on loop: any EventLoop) async -> HTTP2Session? {
        guard isOpening(key) else { return session(key) }
        let answer = OpeningAnswer()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let timer = loop.scheduleTask(deadline: deadline) { answer.give(nil) }
                // The opening may have ended since the look above: the waiter is then answered at once, with what
                // it shared.
                let waiting = state.withLockedValue { $0.wait(Waiter(answer: answer, timer: timer), for: key) }
                if !waiting {
                    timer.cancel()
                    answer.give(session(key))
                }
                answer.wait(continuation)
            }
        } onCancel: {
            answer.give(nil)
        }
    }

    /// Ends an opening begun with ``beginOpening(_:)``, sharing `session` when it is HTTP/2.
    func finishOpening(_ key: PoolKey, session: HTTP2Session?) {
        run(state.withLockedValue { $0.finishOpening(key, session: session, now: .now()) })
    }

    /// Keeps `connection` for reuse, or closes it when the pool is full or shut down.
    func put(_ connection: Connection) {
        // A surplus or going-away HTTP/2 connection closes itself when its last stream ends.
        run(state.withLockedValue { $0.put(connection, now: .now()) })
    }

    var idleCount: Int { state.withLockedValue { $0.idleCount } }

    func shutdown() {
        run(state.withLockedValue { $0.shutdown() })
    }

    private func run(_ effects: ConnectionPoolState<Connection, HTTP2Session, Waiter>.Effects) {
        for connection in effects.close { connection.close() }
        for session in effects.closeSessions { session.close() }
        for session in effects.retire { session.retire() }
        for waiter in effects.answered {
            waiter.timer.cancel()
            waiter.answer.give(effects.answer)
        }
    }
}

extension Connection: PoolableConnection {
    var isStream: Bool { session != nil }
}

extension HTTP2Session: PoolableSession {}

/// The one answer to a request waiting for another's connection: from the opener, the waiter's timer or its
/// cancellation, whichever comes first, on whatever thread it comes. Later answers are dropped.
final class OpeningAnswer: Sendable {
    private enum State {
        case pending
        case waiting(CheckedContinuation<HTTP2Session?, Never>)
        /// Answered before the waiter was ready (cancelled first): it resumes as soon as it waits.
        case given(HTTP2Session?)
        case done
    }
    private let state = NIOLockedValueBox(State.pending)

    func wait(_ continuation: CheckedContinuation<HTTP2Session?, Never>) {
        let early: HTTP2Session?? = state.withLockedValue { state in
            guard case .given(let session) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .done
            return .some(session)
        }
        if let early { continuation.resume(returning: early) }
    }

    func give(_ session: HTTP2Session?) {
        let waiting: CheckedContinuation<HTTP2Session?, Never>? = state.withLockedValue { state in
            switch state {
            case .pending:
                state = .given(session)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .given, .done:
                return nil
            }
        }
        waiting?.resume(returning: session)
    }
}
