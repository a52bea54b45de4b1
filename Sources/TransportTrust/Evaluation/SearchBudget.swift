import Foundation
import NIOConcurrencyHelpers
import X509

/// Bounds the work of path building.
///
/// swift-certificates' path builder explores every acyclic path, which grows factorially with cross-signed
/// intermediates. The intermediates it sees come through this store, which stops answering once it has
/// handed out `limit` candidate issuers; each candidate costs one signature verification. It finds issuers by name as
/// RFC 5280 §7.1 compares names (``NamedCertificates``). It also stops answering once the evaluating task is cancelled,
/// and yields now and then, so that a long search neither outlives its caller nor holds a cooperative thread throughout.
struct BudgetedIntermediates: CustomCertificateStore {
    var certificates: NamedCertificates
    let counter: Counter

    init(_ certificates: [Certificate], limit: Int) {
        self.certificates = NamedCertificates(certificates)
        self.counter = Counter(limit: limit)
    }

    subscript(subject: DistinguishedName) -> [Certificate]? {
        get async {
            if counter.countLookup() % Self.yieldEvery == 0 { await Task.yield() }
            guard !Task.isCancelled else {
                counter.cancel()
                return nil
            }
            let found = certificates[subject]
            guard !found.isEmpty else { return nil }
            return counter.spend(found.count) ? found : nil
        }
    }

    func contains(_ certificate: Certificate) async -> Bool { certificates.contains(certificate) }

    mutating func append(contentsOf certificates: some Sequence<Certificate>) { self.certificates.append(contentsOf: certificates) }

    /// Lookups between yields: each is followed by signature checks, so a few dozen are milliseconds of work.
    static let yieldEvery = 32

    static func == (l: Self, r: Self) -> Bool { l.counter === r.counter }
    func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(counter)) }

    final class Counter: Sendable {
        private let state = NIOLockedValueBox((spent: 0, exhausted: false, cancelled: false, lookups: 0))
        let limit: Int

        init(limit: Int) { self.limit = limit }

        func spend(_ n: Int) -> Bool {
            state.withLockedValue { state in
                guard state.spent + n <= limit else {
                    state.exhausted = true
                    return false
                }
                state.spent += n
                return true
            }
        }

        /// Counts one lookup and returns how many there have been.
        func countLookup() -> Int {
            state.withLockedValue { state in
                state.lookups += 1
                return state.lookups
            }
        }

        func cancel() { state.withLockedValue { $0.cancelled = true } }

        var wasExhausted: Bool { state.withLockedValue { $0.exhausted } }
        /// The search stopped because its task was cancelled: what it found is incomplete.
        var wasCancelled: Bool { state.withLockedValue { $0.cancelled } }
    }
}
