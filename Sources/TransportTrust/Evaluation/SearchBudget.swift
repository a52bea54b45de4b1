import Foundation
import NIOConcurrencyHelpers
import X509

/// Bounds the work of path building.
///
/// swift-certificates' path builder explores every acyclic path, which grows factorially with cross-signed
/// intermediates. The intermediates it sees come through this store, which stops answering once it has
/// handed out `limit` candidate issuers; each candidate costs one signature verification. It finds issuers by name as
/// RFC 5280 §7.1 compares names (``NamedCertificates``).
struct BudgetedIntermediates: CustomCertificateStore {
    var certificates: NamedCertificates
    let counter: Counter

    init(_ certificates: [Certificate], limit: Int) {
        self.certificates = NamedCertificates(certificates)
        self.counter = Counter(limit: limit)
    }

    subscript(subject: DistinguishedName) -> [Certificate]? {
        get async {
            let found = certificates[subject]
            guard !found.isEmpty else { return nil }
            return counter.spend(found.count) ? found : nil
        }
    }

    func contains(_ certificate: Certificate) async -> Bool { certificates.contains(certificate) }

    mutating func append(contentsOf certificates: some Sequence<Certificate>) { self.certificates.append(contentsOf: certificates) }

    static func == (l: Self, r: Self) -> Bool { l.counter === r.counter }
    func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(counter)) }

    final class Counter: Sendable {
        private let state = NIOLockedValueBox((spent: 0, exhausted: false))
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

        var wasExhausted: Bool { state.withLockedValue { $0.exhausted } }
    }
}
