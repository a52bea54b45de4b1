import Foundation
import NIOConcurrencyHelpers

/// Remembers the fingerprints of certificates already seen, so that a pin check on a chain seen before costs a
/// dictionary lookup per certificate instead of a DER parse and two hashes.
///
/// Bounded: when full, it is emptied and starts again, which keeps the cost of a hostile stream of new
/// certificates at one parse each.
package final class SPKIHashCache: Sendable {
    /// The cache pinning evaluators share unless given another.
    public static let shared = SPKIHashCache()

    public let capacity: Int
    private struct State {
        var entries: [DERKey: CertificateFingerprint] = [:]
        var hits = 0
        var misses = 0
    }

    private let state = NIOLockedValueBox(State())

    public init(capacity: Int = 1024) { self.capacity = max(0, capacity) }

    /// The fingerprint of `der`, computed once.
    public func fingerprint(_ der: [UInt8]) -> CertificateFingerprint {
        if let hit = state.withLockedValue({ state -> CertificateFingerprint? in
            let e = state.entries[DERKey(der)]
            if e != nil { state.hits += 1 } else { state.misses += 1 }
            return e
        }) { return hit }
        let computed = CertificateFingerprint(der: der)
        guard capacity > 0 else { return computed }
        state.withLockedValue { state in
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[DERKey(der)] = computed
        }
        return computed
    }

    /// The fingerprints of a chain, in order.
    public func fingerprints(_ chain: [InputCertificate]) -> [CertificateFingerprint] { chain.map { fingerprint($0.der) } }

    /// Lookups answered from the cache, and lookups that had to compute, since creation.
    public var statistics: (hits: Int, misses: Int) { state.withLockedValue { ($0.hits, $0.misses) } }

    public var count: Int { state.withLockedValue { $0.entries.count } }
}
