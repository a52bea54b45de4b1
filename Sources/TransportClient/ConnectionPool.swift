/// Idle connections by (scheme, host, port, TLS settings). A connection is evaluated once, when it is opened;
/// reusing it carries that decision, and any new connection is evaluated afresh.
actor ConnectionPool {
    private var idle: [PoolKey: [Connection]] = [:]
    private let maximumPerKey: Int
    private var closed = false

    init(maximumPerKey: Int) { self.maximumPerKey = maximumPerKey }

    /// An idle, still-open connection for `key`, if any.
    func take(_ key: PoolKey) -> Connection? {
        while var list = idle[key], let connection = list.popLast() {
            idle[key] = list
            if connection.isActive { return connection }
        }
        return nil
    }

    /// Keeps `connection` for reuse, or closes it when the pool is full or shut down.
    func put(_ connection: Connection) {
        guard !closed, maximumPerKey > 0, connection.isActive else { return connection.close() }
        var list = idle[connection.key, default: []].filter(\.isActive)
        // One connection twice in the list would be handed to two requests at once.
        guard !list.contains(where: { $0 === connection }) else { return }
        guard list.count < maximumPerKey else { return connection.close() }
        list.append(connection)
        idle[connection.key] = list
    }

    var idleCount: Int { idle.values.reduce(0) { $0 + $1.filter(\.isActive).count } }

    func shutdown() {
        closed = true
        for connection in idle.values.joined() { connection.close() }
        idle = [:]
    }
}
