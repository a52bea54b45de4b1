import X509

/// A bound on how many logical intermediates may stand between the leaf and the anchor.
///
/// Self-issued intermediates (key rollover) do not count, as in RFC 5280's path length.
package struct ChainDepthRule: ChainRule {
    package var maximumIntermediates: Int

    package init(maximumIntermediates: Int) { self.maximumIntermediates = maximumIntermediates }

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        guard chain.count > 2 else { return }
        let logical = chain[1..<(chain.count - 1)].count { !$0.isSelfIssued }
        if logical > maximumIntermediates {
            failures.append(TrustFailure(.chainTooLong, certificate: chain.count - 1,
                "the chain has \(logical) intermediate \(logical == 1 ? "CA" : "CAs"), more than the allowed \(maximumIntermediates)"))
        }
    }
}
