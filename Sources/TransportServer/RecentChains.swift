import NIOConcurrencyHelpers

/// The chains recently verified clients sent, by leaf: a resumed TLS session carries only the leaf, and its client
/// is verified again from the chain it sent when the session was made. Bounded; the oldest go first.
final class RecentChains: Sendable {
    private struct State {
        var chains: [[UInt8]: [[UInt8]]] = [:]
        var order: [[UInt8]] = []
    }

    private let capacity: Int
    private let state = NIOLockedValueBox(State())

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func remember(_ chain: [[UInt8]]) {
        guard let leaf = chain.first else { return }
        state.withLockedValue { state in
            if state.chains.updateValue(chain, forKey: leaf) == nil { state.order.append(leaf) }
            if state.order.count > capacity {
                // Drop the oldest quarter at once: O(1) amortised per insert.
                let cut = state.order.count / 4
                for old in state.order.prefix(cut) { state.chains[old] = nil }
                state.order.removeFirst(cut)
            }
        }
    }

    func chain(forLeaf leaf: [UInt8]) -> [[UInt8]]? { state.withLockedValue { $0.chains[leaf] } }

    var count: Int { state.withLockedValue { $0.chains.count } }

    /// Forgets every chain (tests: a resumed session whose chain has gone).
    func removeAll() { state.withLockedValue { $0 = State() } }
}
