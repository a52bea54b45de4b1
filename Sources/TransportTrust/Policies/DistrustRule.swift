import X509

/// Refuses every path through a certificate, or a certificate of a key, that a ``DistrustList`` names: the anchor,
/// the intermediates and the leaf alike. One rule per list, so that each refusal names its list.
public struct DistrustRule: ChainRule {
    public var list: DistrustList

    public init(list: DistrustList) { self.list = list }

    public func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        for (i, cert) in chain.enumerated() {
            guard let reason = list.reason(for: cert) else { continue }
            failures.append(TrustFailure(.distrusted, certificate: i, "\(cert.label) is distrusted: \(reason)"))
        }
    }
}
