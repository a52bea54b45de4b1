import NIOConcurrencyHelpers
import X509

/// Intermediates seen before under one anchor set, as trustd keeps them: a client that talks to many hosts sees a
/// handful of intermediates under many leaves. A new leaf under a known intermediate then costs one parse and one
/// signature check.
///
/// Only facts that depend on the bytes alone are kept: the parse of an intermediate's DER and of its extensions,
/// that a given issuer's signature over a given certificate verifies, and that the certificates above a leaf met
/// swift-certificates' RFC 5280 policy (`RFC5280Rule.PassedAbove`; the rule still checks the leaf). Every rule, the
/// time, CT and revocation still run on every evaluation. Entries are keyed by the anchor set too, so that trust
/// settings that differ share nothing.
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

    struct Intermediate: Sendable {
        let input: InputCertificate
        let extensions: ParsedExtensions?
    }

    private struct State {
        var parsed = BoundedLRU<Parsed, Intermediate>()
        var links = BoundedLRU<Link, Void>()
        var linksReused = 0
    }

    private let capacity: Int
    private let state = NIOLockedValueBox(State())

    /// Paths above a leaf that met swift-certificates' RFC 5280 policy (``RFC5280Rule``), a fact of their bytes alone;
    /// nil when the cache is off.
    let passedAbove: RFC5280Rule.PassedAbove?

    /// - Parameter capacity: the most intermediates remembered, and the most verified links; 0 remembers nothing.
    init(capacity: Int) {
        self.capacity = max(0, capacity)
        // Searched in order on every evaluation: a client meets a few issuing CAs.
        passedAbove = capacity > 0 ? RFC5280Rule.PassedAbove(capacity: min(capacity, 32)) : nil
    }

    private var isEnabled: Bool { capacity > 0 }

    /// `der` parsed, with its extensions, from memory when it was parsed under the same anchors before. With the
    /// cache off, only the certificate is parsed: the evaluation's memo parses extensions as the rules ask.
    func intermediate(der: [UInt8], anchors: [UInt8]) throws(CertificateInputError) -> Intermediate {
        guard isEnabled else { return Intermediate(input: try InputCertificate(der: der), extensions: nil) }
        let key = Parsed(der: DERKey(der), anchors: anchors)
        if let known = state.withLockedValue({ $0.parsed.value(for: key) }) { return known }
        let input = try InputCertificate(der: der)
        let known = Intermediate(input: input, extensions: input.certificate.map(ParsedExtensions.init))
        state.withLockedValue { $0.parsed.insert(known, for: key, capacity: capacity) }
        return known
    }

    /// Whether `issuer`'s signature over `child` verifies, remembered when it does. A leaf's link is never
    /// remembered: each leaf is new, and its signature is checked on every evaluation.
    /// `chain[i]` signing `chain[i - 1]`, read by index: a certificate copied out of the chain is a retain per field.
    func verifies(_ chain: UnverifiedCertificateChain, link i: Int, anchors: [UInt8]) -> Bool {
        guard isEnabled else { return chain[i].publicKey.isValidSignature(chain[i - 1].signature, for: chain[i - 1]) }
        let link = Link(child: CertificateKey(chain, i - 1), issuer: CertificateKey(chain, i), anchors: anchors)
        let known = state.withLockedValue { state in
            guard state.links.value(for: link) != nil else { return false }
            state.linksReused += 1
            return true
        }
        if known { return true }
        guard chain[i].publicKey.isValidSignature(chain[i - 1].signature, for: chain[i - 1]) else { return false }
        state.withLockedValue { $0.links.insert((), for: link, capacity: capacity) }
        return true
    }

    /// Intermediates remembered now.
    var count: Int { state.withLockedValue { $0.parsed.count } }

    /// Signature checks answered from memory; for tests and benchmarks.
    var linksReused: Int { state.withLockedValue { $0.linksReused } }
}
