import NIOConcurrencyHelpers
import NIOCore

/// Idle connections by (scheme, host, port, TLS settings). A connection is evaluated once, when it is opened;
/// reusing it carries that decision, and any new connection is evaluated afresh.
///
/// What is kept is bounded whatever the servers do: a few connections per key, `maximumIdle` in all (the least
/// recently used goes first), and none reused after `idleTimeout` idle (such are closed at the pool's next use). A
/// server that redirects through many hosts or ports would otherwise leave the client holding sockets without end.
actor ConnectionPool {
    private struct Kept {
        var connection: Connection
        var since: NIODeadline
    }
    private var idle: [PoolKey: [Kept]] = [:]
    /// HTTP/2 connections, shared by every request to their key as streams.
    private var sessions: [PoolKey: HTTP2Session] = [:]
    /// When each shared HTTP/2 connection was last handed out or shared.
    private var sessionUsed: [PoolKey: NIODeadline] = [:]
    /// Keys a connection is being opened for, with the requests waiting to learn whether it is an HTTP/2 one they can
    /// share: without this, requests that start together each open a connection.
    private var opening: [PoolKey: [Int: Waiter]] = [:]
    private var nextWaiter = 0

    private struct Waiter {
        var answer: OpeningAnswer
        var timer: Scheduled<Void>
    }
    private let maximumPerKey: Int
    let maximumIdle: Int
    let idleTimeout: TimeAmount
    private var closed = false

    init(maximumPerKey: Int, maximumIdle: Int = 64, idleTimeout: TimeAmount = .seconds(90)) {
        self.maximumPerKey = maximumPerKey
        self.maximumIdle = maximumIdle
        self.idleTimeout = idleTimeout
    }

    /// What a request to `key` can use without connecting: the shared HTTP/2 connection, or an idle one.
    enum Reusable {
        case session(HTTP2Session)
        case connection(Connection)
    }

    /// The HTTP/2 connection for `key` that may take another stream, else an idle connection, in one call: a
    /// keep-alive request pays one hop to the pool, not two.
    func reusable(_ key: PoolKey) -> Reusable? {
        expire(now: .now())
        if let session = session(key) { return .session(session) }
        return take(key).map(Reusable.connection)
    }

    /// An idle, still-open connection for `key`, if any.
    private func take(_ key: PoolKey) -> Connection? {
        while var list = idle[key], let kept = list.popLast() {
            idle[key] = list.isEmpty ? nil : list
            if kept.connection.isActive { return kept.connection }
        }
        return nil
    }

    /// The HTTP/2 connection for `key` that may take another stream, if any.
    func session(_ key: PoolKey) -> HTTP2Session? {
        guard let session = sessions[key] else { return nil }
        if session.isUsable {
            sessionUsed[key] = .now()
            return session
        }
        drop(key)
        return nil
    }

    /// Takes the shared HTTP/2 connection for `key` out of the pool; it closes once its streams end.
    private func drop(_ key: PoolKey) {
        sessionUsed[key] = nil
        sessions.removeValue(forKey: key)?.retire()
    }

    /// Closes what has been idle past `idleTimeout`, and forgets what has closed meanwhile.
    private func expire(now: NIODeadline) {
        let oldest = now - idleTimeout
        for (key, list) in idle {
            let (keep, stale) = (list.filter { $0.since > oldest && $0.connection.isActive }, list.filter { $0.since <= oldest })
            for kept in stale { kept.connection.close() }
            idle[key] = keep.isEmpty ? nil : keep
        }
        for (key, used) in sessionUsed where used <= oldest || sessions[key]?.isUsable != true { drop(key) }
    }

    /// Closes the least recently used until no more than `maximumIdle` are kept.
    private func trim() {
        var count = idle.values.reduce(0) { $0 + $1.count } + sessions.count
        while count > maximumIdle {
            let connection = idle.flatMap { key, list in list.indices.map { (key, $0, list[$0].since) } }.min { $0.2 < $1.2 }
            let session = sessionUsed.min { $0.value < $1.value }
            if let (key, index, since) = connection, session.map({ since <= $0.value }) ?? true {
                idle[key]?.remove(at: index).connection.close()
                if idle[key]?.isEmpty == true { idle[key] = nil }
            } else if let (key, _) = session {
                drop(key)
            } else {
                break
            }
            count -= 1
        }
    }

    /// Shares an HTTP/2 connection. When one is already shared for the key (two requests raced to connect), that one
    /// stays, and the newer is retired: it closes when its only stream ends.
    func add(_ session: HTTP2Session) {
        guard !closed else { return session.close() }
        if let current = sessions[session.key], current.isUsable, current !== session { return session.retire() }
        sessions[session.key] = session
        sessionUsed[session.key] = .now()
        trim()
    }

    /// Whether the caller is to open the connection for `key` (true), or another request is opening one or has
    /// shared one already (false: ``waitForOpening(_:deadline:)`` then answers with it).
    /// A true answer must be followed by ``finishOpening(_:session:)``.
    func beginOpening(_ key: PoolKey) -> Bool {
        // A session shared since the caller last looked (its opener finished in between) is taken, not doubled.
        guard opening[key] == nil, session(key) == nil else { return false }
        opening[key] = [:]
        return true
    }

    /// Waits for the connection another request is opening for `key`: its HTTP/2 session, or nil when it is not
    /// one (HTTP/1.1, or it failed), and the caller opens its own. The wait ends at the caller's `deadline` or when
    /// its task is cancelled (nil too): the opener's proxy, handshake or challenge may take far longer than the
    /// caller may wait. The deadline is a timer on `loop`, which answers the waiter itself: it needs no thread of the
    /// cooperative pool, which may be busy for seconds under load.
    func waitForOpening(_ key: PoolKey, deadline: NIODeadline, on loop: any EventLoop) async -> HTTP2Session? {
        guard opening[key] != nil else { return session(key) }
        let id = nextWaiter
        nextWaiter += 1
        let answer = OpeningAnswer()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let timer = loop.scheduleTask(deadline: deadline) { answer.give(nil) }
                opening[key, default: [:]][id] = Waiter(answer: answer, timer: timer)
                answer.wait(continuation)
            }
        } onCancel: {
            answer.give(nil)
        }
    }

    /// Ends an opening begun with ``beginOpening(_:)``, sharing `session` when it is HTTP/2.
    func finishOpening(_ key: PoolKey, session: HTTP2Session?) {
        if let session { add(session) }
        let shared = session.flatMap { self.session($0.key) }
        for waiter in (opening.removeValue(forKey: key) ?? [:]).values {
            waiter.timer.cancel()
            waiter.answer.give(shared)
        }
    }

    /// Keeps `connection` for reuse, or closes it when the pool is full or shut down.
    func put(_ connection: Connection) {
        // An HTTP/2 stream is one exchange; its connection stays shared in `sessions`.
        // A surplus or going-away connection closes itself when its last stream ends.
        if connection.session != nil { return connection.close() }
        guard !closed, maximumPerKey > 0, maximumIdle > 0, connection.isActive else { return connection.close() }
        var list = idle[connection.key, default: []].filter(\.connection.isActive)
        // One connection twice in the list would be handed to two requests at once.
        guard !list.contains(where: { $0.connection === connection }) else { return }
        guard list.count < maximumPerKey else { return connection.close() }
        list.append(Kept(connection: connection, since: .now()))
        idle[connection.key] = list
        expire(now: .now())
        trim()
    }

    var idleCount: Int { idle.values.reduce(0) { $0 + $1.filter(\.connection.isActive).count } + sessions.values.filter(\.isUsable).count }

    func shutdown() {
        closed = true
        for kept in idle.values.joined() { kept.connection.close() }
        idle = [:]
        for session in sessions.values { session.close() }
        sessions = [:]
        sessionUsed = [:]
    }
}

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
