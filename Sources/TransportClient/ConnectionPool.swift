import NIOCore

/// Idle connections by (scheme, host, port, TLS settings). A connection is evaluated once, when it is opened;
/// reusing it carries that decision, and any new connection is evaluated afresh.
actor ConnectionPool {
    private var idle: [PoolKey: [Connection]] = [:]
    /// HTTP/2 connections, shared by every request to their key as streams.
    private var sessions: [PoolKey: HTTP2Session] = [:]
    /// Keys a connection is being opened for, with the requests waiting to learn whether it is an HTTP/2 one they can
    /// share: without this, requests that start together each open a connection.
    private var opening: [PoolKey: [Int: Waiter]] = [:]
    private var nextWaiter = 0

    private struct Waiter {
        var continuation: CheckedContinuation<HTTP2Session?, Never>
        var timer: Task<Void, Never>
    }
    private let maximumPerKey: Int
    private var closed = false

    init(maximumPerKey: Int) { self.maximumPerKey = maximumPerKey }

    /// What a request to `key` can use without connecting: the shared HTTP/2 connection, or an idle one.
    enum Reusable {
        case session(HTTP2Session)
        case connection(Connection)
    }

    /// The HTTP/2 connection for `key` that may take another stream, else an idle connection, in one call: a
    /// keep-alive request pays one hop to the pool, not two.
    func reusable(_ key: PoolKey) -> Reusable? {
        if let session = session(key) { return .session(session) }
        return take(key).map(Reusable.connection)
    }

    /// An idle, still-open connection for `key`, if any.
    private func take(_ key: PoolKey) -> Connection? {
        while var list = idle[key], let connection = list.popLast() {
            idle[key] = list
            if connection.isActive { return connection }
        }
        return nil
    }

    /// The HTTP/2 connection for `key` that may take another stream, if any.
    func session(_ key: PoolKey) -> HTTP2Session? {
        guard let session = sessions[key] else { return nil }
        if session.isUsable { return session }
        sessions[key] = nil
        session.retire()
        return nil
    }

    /// Shares an HTTP/2 connection. When one is already shared for the key (two requests raced to connect), that one
    /// stays, and the newer is closed when its only stream ends (``put(_:)``).
    func add(_ session: HTTP2Session) {
        guard !closed else { return session.close() }
        if let current = sessions[session.key], current.isUsable, current !== session { return session.markSurplus() }
        sessions[session.key] = session
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
    /// caller may wait.
    func waitForOpening(_ key: PoolKey, deadline: NIODeadline) async -> HTTP2Session? {
        guard opening[key] != nil else { return session(key) }
        let id = nextWaiter
        nextWaiter += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard !Task.isCancelled else { return continuation.resume(returning: nil) }
                let wait = max(0, (deadline - .now()).nanoseconds)
                let timer = Task { [weak self] in
                    try? await Task.sleep(nanoseconds: UInt64(wait))
                    await self?.giveUp(key, id)
                }
                opening[key, default: [:]][id] = Waiter(continuation: continuation, timer: timer)
            }
        } onCancel: {
            Task { [weak self] in await self?.giveUp(key, id) }
        }
    }

    /// Ends one request's wait, when it is still waiting.
    private func giveUp(_ key: PoolKey, _ id: Int) {
        guard let waiter = opening[key]?.removeValue(forKey: id) else { return }
        waiter.timer.cancel()
        waiter.continuation.resume(returning: nil)
    }

    /// Ends an opening begun with ``beginOpening(_:)``, sharing `session` when it is HTTP/2.
    func finishOpening(_ key: PoolKey, session: HTTP2Session?) {
        if let session { add(session) }
        let shared = session.flatMap { self.session($0.key) }
        for waiter in (opening.removeValue(forKey: key) ?? [:]).values {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: shared)
        }
    }

    /// Keeps `connection` for reuse, or closes it when the pool is full or shut down.
    func put(_ connection: Connection) {
        // An HTTP/2 stream is one exchange; its connection stays shared in `sessions`.
        // A surplus or going-away connection closes itself when its last stream ends.
        if connection.session != nil { return connection.close() }
        guard !closed, maximumPerKey > 0, connection.isActive else { return connection.close() }
        var list = idle[connection.key, default: []].filter(\.isActive)
        // One connection twice in the list would be handed to two requests at once.
        guard !list.contains(where: { $0 === connection }) else { return }
        guard list.count < maximumPerKey else { return connection.close() }
        list.append(connection)
        idle[connection.key] = list
    }

    var idleCount: Int { idle.values.reduce(0) { $0 + $1.filter(\.isActive).count } + sessions.values.filter(\.isUsable).count }

    func shutdown() {
        closed = true
        for connection in idle.values.joined() { connection.close() }
        idle = [:]
        for session in sessions.values { session.close() }
        sessions = [:]
    }
}
