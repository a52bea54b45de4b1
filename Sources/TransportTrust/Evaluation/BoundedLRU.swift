/// A dictionary that forgets its least recently used entries beyond a capacity.
struct BoundedLRU<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, tick: UInt64)] = [:]
    private var tick: UInt64 = 0

    var count: Int { entries.count }

    mutating func value(for key: Key) -> Value? {
        // One hash: a read and a write by key hashed the key twice, on every warm evaluation's lookups.
        guard let i = entries.index(forKey: key) else { return nil }
        tick &+= 1
        entries.values[i].tick = tick
        return entries.values[i].value
    }

    /// The value for `key`, without counting as a use.
    func peek(_ key: Key) -> Value? { entries[key]?.value }

    /// Replaces the value for `key` in place, keeping its place in the order of use; nothing when it is not there.
    mutating func replace(_ key: Key, with value: Value) {
        guard let found = entries[key] else { return }
        entries[key] = (value, found.tick)
    }

    mutating func insert(_ value: Value, for key: Key, capacity: Int) {
        guard capacity > 0 else { return }
        tick &+= 1
        entries[key] = (value, tick)
        if entries.count > capacity {
            // Evict the oldest quarter at once, so eviction costs O(1) amortised per insert.
            let cut = entries.values.map(\.tick).sorted()[entries.count / 4]
            entries = entries.filter { $0.value.tick > cut }
        }
    }
}

extension BoundedLRU: Sendable where Key: Sendable, Value: Sendable {}
