import NIOCore

/// What the pool keeps of an HTTP/1.1 connection, or of an HTTP/2 stream handed back to it.
protocol PoolableConnection: AnyObject {
    var key: PoolKey { get }
    var isActive: Bool { get }
    /// A stream of a shared HTTP/2 connection: one exchange, never kept idle.
    var isStream: Bool { get }
}

/// What the pool shares of an HTTP/2 connection.
protocol PoolableSession: AnyObject {
    var key: PoolKey { get }
    var isUsable: Bool { get }
}

/// The pool's decisions as a plain value: what is kept, handed out, closed or retired, and who hears about an opening.
/// It does nothing itself. Each change returns ``Effects`` that its owner (``ConnectionPool``) carries out, so that
/// every rule can be tested with fake connections and explicit clock values.
struct ConnectionPoolState<Connection: PoolableConnection, Session: PoolableSession, Waiter> {
    struct Kept {
        var connection: Connection
        var since: NIODeadline
    }

    /// What the owner is to do after a change, in any order.
    struct Effects {
        var close: [Connection] = []
        var closeSessions: [Session] = []
        /// Out of the pool; each closes once its open streams end.
        var retire: [Session] = []
        /// Waiters whose opening ended, each answered with ``answer``.
        var answered: [Waiter] = []
        var answer: Session?

        var isEmpty: Bool { close.isEmpty && closeSessions.isEmpty && retire.isEmpty && answered.isEmpty }
    }

    /// What a request can use without connecting.
    enum Reusable {
        case session(Session)
        case connection(Connection)
    }

    private var idle: [PoolKey: [Kept]] = [:]
    /// HTTP/2 connections, shared by every request to their key as streams.
    private var sessions: [PoolKey: Session] = [:]
    /// When each shared HTTP/2 connection was last handed out or shared.
    private var sessionUsed: [PoolKey: NIODeadline] = [:]
    /// Keys a connection is being opened for, with the requests waiting to learn whether it is an HTTP/2 one they can
    /// share: without this, requests that start together each open a connection.
    private var opening: [PoolKey: [Waiter]] = [:]
    private(set) var closed = false

    let maximumPerKey: Int
    let maximumIdle: Int
    let idleTimeout: TimeAmount

    init(maximumPerKey: Int, maximumIdle: Int, idleTimeout: TimeAmount) {
        self.maximumPerKey = maximumPerKey
        self.maximumIdle = maximumIdle
        self.idleTimeout = idleTimeout
    }

    /// Idle connections and shared sessions still open.
    var idleCount: Int { idle.values.reduce(0) { $0 + $1.filter(\.connection.isActive).count } + sessions.values.filter(\.isUsable).count }

    /// The shared HTTP/2 connection for `key` that may take another stream, else an idle connection.
    mutating func reusable(_ key: PoolKey, now: NIODeadline) -> (Reusable?, Effects) {
        var effects = expire(now: now)
        if let session = session(key, now: now, effects: &effects) { return (.session(session), effects) }
        return (take(key).map(Reusable.connection), effects)
    }

    /// The shared HTTP/2 connection for `key` that may take another stream; one that may not leaves the pool.
    mutating func session(_ key: PoolKey, now: NIODeadline) -> (Session?, Effects) {
        var effects = Effects()
        return (session(key, now: now, effects: &effects), effects)
    }

    private mutating func session(_ key: PoolKey, now: NIODeadline, effects: inout Effects) -> Session? {
        guard let session = sessions[key] else { return nil }
        if session.isUsable {
            sessionUsed[key] = now
            return session
        }
        drop(key, effects: &effects)
        return nil
    }

    /// An idle, still-open connection for `key`, the most recently kept first. Closed ones are forgotten. The list
    /// is moved out, changed and put back, kept when empty, so that a keep-alive request's take and put reuse its
    /// storage: a copy, or a mutation through the dictionary's subscript (whose accessor allocates), cost allocations
    /// on every request. The next expiry scan drops a list left empty.
    private mutating func take(_ key: PoolKey) -> Connection? {
        guard var list = idle.removeValue(forKey: key) else { return nil }
        defer { idle[key] = list }
        while let kept = list.popLast() {
            if kept.connection.isActive { return kept.connection }
        }
        return nil
    }

    private mutating func drop(_ key: PoolKey, effects: inout Effects) {
        sessionUsed[key] = nil
        if let session = sessions.removeValue(forKey: key) { effects.retire.append(session) }
    }

    /// Closes what has been idle past `idleTimeout`, and forgets what has closed meanwhile.
    private mutating func expire(now: NIODeadline) -> Effects {
        var effects = Effects()
        let oldest = now - idleTimeout
        // Only lists with something to drop are rebuilt: this runs on every request, and usually nothing has.
        for (key, list) in idle where list.isEmpty || list.contains(where: { $0.since <= oldest || !$0.connection.isActive }) {
            let keep = list.filter { $0.since > oldest && $0.connection.isActive }
            effects.close += list.filter { $0.since <= oldest }.map(\.connection)
            idle[key] = keep.isEmpty ? nil : keep
        }
        for (key, used) in sessionUsed where used <= oldest || sessions[key]?.isUsable != true { drop(key, effects: &effects) }
        return effects
    }

    /// Closes the least recently used, connection or session, until no more than `maximumIdle` are kept.
    private mutating func trim(effects: inout Effects) {
        var count = idle.values.reduce(0) { $0 + $1.count } + sessions.count
        while count > maximumIdle {
            let connection = idle.flatMap { key, list in list.indices.map { (key, $0, list[$0].since) } }.min { $0.2 < $1.2 }
            let session = sessionUsed.min { $0.value < $1.value }
            if let (key, index, since) = connection, session.map({ since <= $0.value }) ?? true {
                if let removed = idle[key]?.remove(at: index) { effects.close.append(removed.connection) }
                if idle[key]?.isEmpty == true { idle[key] = nil }
            } else if let (key, _) = session {
                drop(key, effects: &effects)
            } else {
                break
            }
            count -= 1
        }
    }

    /// Shares an HTTP/2 connection. When a usable one is already shared for its key (two requests raced to connect),
    /// that one stays and the newer is retired: it closes when its only stream ends.
    mutating func add(_ session: Session, now: NIODeadline) -> Effects {
        var effects = Effects()
        guard !closed else {
            effects.closeSessions.append(session)
            return effects
        }
        if let current = sessions[session.key], current.isUsable, current !== session {
            effects.retire.append(session)
            return effects
        }
        sessions[session.key] = session
        sessionUsed[session.key] = now
        trim(effects: &effects)
        return effects
    }

    /// Whether the caller is to open the connection for `key` (true), or another request is opening one or has
    /// shared one already (false). A true answer must be followed by ``finishOpening(_:session:now:)``.
    mutating func beginOpening(_ key: PoolKey, now: NIODeadline) -> (Bool, Effects) {
        var effects = Effects()
        // A session shared since the caller last looked (its opener finished in between) is taken, not doubled.
        guard opening[key] == nil, session(key, now: now, effects: &effects) == nil else { return (false, effects) }
        opening[key] = []
        return (true, effects)
    }

    /// Whether a connection is being opened for `key`, so that a request may wait for it.
    func isOpening(_ key: PoolKey) -> Bool { opening[key] != nil }

    /// Adds a waiter for the opening of `key`; false, and nothing kept, when none is under way.
    mutating func wait(_ waiter: Waiter, for key: PoolKey) -> Bool {
        guard opening[key] != nil else { return false }
        opening[key, default: []].append(waiter)
        return true
    }

    /// Ends the opening of `key`, sharing `session` when it is HTTP/2; every waiter hears what is shared now.
    mutating func finishOpening(_ key: PoolKey, session: Session?, now: NIODeadline) -> Effects {
        var effects = session.map { add($0, now: now) } ?? Effects()
        effects.answer = session.flatMap { self.session($0.key, now: now, effects: &effects) }
        effects.answered = opening.removeValue(forKey: key) ?? []
        return effects
    }

    /// Keeps `connection` for reuse, or closes it when the pool is full or shut down.
    mutating func put(_ connection: Connection, now: NIODeadline) -> Effects {
        var effects = Effects()
        // An HTTP/2 stream is one exchange; its connection stays shared in `sessions`.
        guard !connection.isStream, !closed, maximumPerKey > 0, maximumIdle > 0, connection.isActive else {
            effects.close.append(connection)
            return effects
        }
        let key = connection.key
        // Moved out and back, as in `take`.
        var list = idle.removeValue(forKey: key) ?? []
        list.removeAll { !$0.connection.isActive }
        // One connection twice in the list would be handed to two requests at once.
        let duplicate = list.contains { $0.connection === connection }
        let room = list.count < maximumPerKey
        if !duplicate, room { list.append(Kept(connection: connection, since: now)) }
        idle[key] = list
        if duplicate { return effects }
        guard room else {
            effects.close.append(connection)
            return effects
        }
        effects = expire(now: now)
        trim(effects: &effects)
        return effects
    }

    /// Closes everything kept; from now on, whatever is handed back is closed.
    mutating func shutdown() -> Effects {
        closed = true
        var effects = Effects()
        effects.close = idle.values.joined().map(\.connection)
        effects.closeSessions = Array(sessions.values)
        idle = [:]
        sessions = [:]
        sessionUsed = [:]
        return effects
    }
}

extension ConnectionPoolState: Sendable where Connection: Sendable, Session: Sendable, Waiter: Sendable {}
extension ConnectionPoolState.Kept: Sendable where Connection: Sendable {}
extension ConnectionPoolState.Reusable: Sendable where Connection: Sendable, Session: Sendable {}
extension ConnectionPoolState.Effects: Sendable where Connection: Sendable, Session: Sendable, Waiter: Sendable {}
