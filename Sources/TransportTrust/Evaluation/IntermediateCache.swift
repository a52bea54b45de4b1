import NIOConcurrencyHelpers
import X509

/// Intermediates seen before under one anchor set, as trustd keeps them: a client that talks to many hosts sees a
/// handful of intermediates under many leaves. A new leaf under a known intermediate then costs one parse and one
/// signature check.
///
/// Only facts that depend on the bytes alone are kept: the parse of an intermediate's DER, and that a given issuer's
/// signature over a given certificate verifies. Every rule, the time, CT and revocation still run on every
/// evaluation. Entries are keyed by the anchor set too, so that trust settings that differ share nothing.
final class IntermediateCache: Sendable {
    struct Parsed: Hashable {
        let der: DERKey
        let anchors: [UInt8]
    }

    /// A verified link: `issuer`'s key verifies `child`'s signature.
    struct Link: Hashable {
        let child: CertificateKey
        let issuer: CertificateKey
        let anchors: [UInt8]
    }

    private struct State {
        var parsed = BoundedLRU<Parsed, InputCertificate>()
        var links = BoundedLRU<Link, Void>()
        var linksReused = 0
    }

    private let capacity: Int
    private let state = NIOLockedValueBox(State())

    /// - Parameter capacity: the most intermediates remembered, and the most verified links; 0 remembers nothing.
    init(capacity: Int) { self.capacity = max(0, capacity) }

    var isEnabled: Bool { capacity > 0 }

    /// `der` parsed, from memory when it was parsed under the same anchors before.
    func input(der: [UInt8], anchors: [UInt8]) throws(CertificateInputError) -> InputCertificate {
        guard isEnabled else { return try InputCertificate(der: der) }
        let key = Parsed(der: DERKey(der), anchors: anchors)
        if let known = state.withLockedValue({ $0.parsed.value(for: key) }) { return known }
        let input = try InputCertificate(der: der)
        state.withLockedValue { $0.parsed.insert(input, for: key, capacity: capacity) }
        return input
    }

    /// Whether `issuer`'s signature over `child` verifies, remembered when it does. A leaf's link is never
    /// remembered: each leaf is new, and its signature is checked on every evaluation.
    func verifies(_ child: Certificate, by issuer: Certificate, anchors: [UInt8]) -> Bool {
        guard isEnabled else { return issuer.publicKey.isValidSignature(child.signature, for: child) }
        let link = Link(child: CertificateKey(child), issuer: CertificateKey(issuer), anchors: anchors)
        let known = state.withLockedValue { state in
            guard state.links.value(for: link) != nil else { return false }
            state.linksReused += 1
            return true
        }
        if known { return true }
        guard issuer.publicKey.isValidSignature(child.signature, for: child) else { return false }
        state.withLockedValue { $0.links.insert((), for: link, capacity: capacity) }
        return true
    }

    /// Intermediates remembered now.
    var count: Int { state.withLockedValue { $0.parsed.count } }

    /// Signature checks answered from memory; for tests and benchmarks.
    var linksReused: Int { state.withLockedValue { $0.linksReused } }
}

/// A dictionary that forgets its least recently used entries beyond a capacity.
struct BoundedLRU<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, tick: UInt64)] = [:]
    private var tick: UInt64 = 0

    var count: Int { entries.count }

    mutating func value(for key: Key) -> Value? {
        guard let found = entries[key] else { return nil }
        tick &+= 1
        entries[key] = (found.value, tick)
        return found.value
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
