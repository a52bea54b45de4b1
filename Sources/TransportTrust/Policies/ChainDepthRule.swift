import X509

/// A bound on how many logical intermediates may stand between the leaf and the anchor.
///
/// Self-issued intermediates (key rollover) do not count, as in RFC 5280's path length.
package struct ChainDepthRule: ChainRule {
    package var maximumIntermediates: Int

    package init(maximumIntermediates: Int) { self.maximumIntermediates = maximumIntermediates }

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        // At most the bound in all, they cannot exceed it, whichever are self-issued: no names to compare.
        guard chain.count > 2, chain.count - 2 > maximumIntermediates else { return }
        // By index: a certificate the slice hands out is a copy, a retain per field.
        let logical = (1..<(chain.count - 1)).count { !ComparableName.matches(chain[$0].issuer, chain[$0].subject) }
        if logical > maximumIntermediates {
            failures.append(TrustFailure(.chainTooLong, certificate: chain.count - 1,
                "the chain has \(logical) intermediate \(logical == 1 ? "CA" : "CAs"), more than the allowed \(maximumIntermediates)"))
        }
    }
}
