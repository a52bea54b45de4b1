import Foundation
import X509

/// A bounded LRU of paths whose signatures have been verified, keyed by the exact DER presented and the
/// anchor set. A hit lets an evaluation skip parsing, path building and every signature verification.
final class ValidatedPathCache: @unchecked Sendable {
    struct Key: Hashable {
        let presented: [[UInt8]]
        let extra: [[UInt8]]
        let anchors: [UInt8]

        // Hash only each certificate's tail: it is signature bytes, so it already identifies the certificate.
        // Equality still compares every byte.
        func hash(into h: inout Hasher) {
            h.combine(presented.count)
            for der in presented + extra {
                der.suffix(32).withUnsafeBytes { h.combine(bytes: $0) }
            }
            anchors.withUnsafeBytes { h.combine(bytes: $0) }
        }
    }

    struct Entry {
        let path: [InputCertificate]
        let chain: UnverifiedCertificateChain
        let anchorIsCustom: Bool
    }

    private let lock = NSLock()
    private let capacity: Int
    private var entries: [Key: (entry: Entry, tick: UInt64)] = [:]
    private var tick: UInt64 = 0

    init(capacity: Int) { self.capacity = max(0, capacity) }

    func lookup(_ key: Key) -> Entry? {
        lock.withLock {
            guard let found = entries[key] else { return nil }
            tick &+= 1
            entries[key] = (found.entry, tick)
            return found.entry
        }
    }

    func insert(_ key: Key, path: [InputCertificate], chain: UnverifiedCertificateChain, anchorIsCustom: Bool) {
        guard capacity > 0 else { return }
        lock.withLock {
            tick &+= 1
            entries[key] = (Entry(path: path, chain: chain, anchorIsCustom: anchorIsCustom), tick)
            if entries.count > capacity {
                // Evict the oldest quarter at once, so eviction costs O(1) amortised per insert.
                let cut = entries.values.map(\.tick).sorted()[entries.count / 4]
                entries = entries.filter { $0.value.tick > cut }
            }
        }
    }

    var count: Int { lock.withLock { entries.count } }
}
