import Foundation

/// Remembers the fingerprints of certificates already seen, so that a pin check on a chain seen before costs a
/// dictionary lookup per certificate instead of a DER parse and two hashes.
///
/// Bounded: when full, it is emptied and starts again, which keeps the cost of a hostile stream of new
/// certificates at one parse each.
public final class SPKIHashCache: @unchecked Sendable {
    /// The cache pinning evaluators share unless given another.
    public static let shared = SPKIHashCache()

    public let capacity: Int
    private let lock = NSLock()
    private var entries: [DERKey: CertificateFingerprint] = [:]
    private var hitCount = 0
    private var missCount = 0

    public init(capacity: Int = 1024) { self.capacity = max(0, capacity) }

    /// The fingerprint of `der`, computed once.
    public func fingerprint(_ der: [UInt8]) -> CertificateFingerprint {
        if let hit = lock.withLock({ () -> CertificateFingerprint? in
            let e = entries[DERKey(der)]
            if e != nil { hitCount += 1 } else { missCount += 1 }
            return e
        }) { return hit }
        let computed = CertificateFingerprint(der: der)
        guard capacity > 0 else { return computed }
        lock.withLock {
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[DERKey(der)] = computed
        }
        return computed
    }

    /// The fingerprints of a chain, in order.
    public func fingerprints(_ chain: [InputCertificate]) -> [CertificateFingerprint] { chain.map { fingerprint($0.der) } }

    /// Lookups answered from the cache, and lookups that had to compute, since creation.
    public var statistics: (hits: Int, misses: Int) { lock.withLock { (hitCount, missCount) } }

    public var count: Int { lock.withLock { entries.count } }
}
