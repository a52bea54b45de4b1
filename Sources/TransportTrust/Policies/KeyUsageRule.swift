import SwiftASN1
import X509

/// keyUsage on issuers: a certificate that signs another and carries keyUsage must assert keyCertSign
/// (RFC 5280 §4.2.1.3). The leaf's own usage is left to the TLS stack, which checks it against the handshake.
package struct KeyUsageRule: ChainRule {
    /// Whether the anchor's own keyUsage counts; SecTrust takes an anchor as a name and a key (RFC 5280 §6.1.1 (d)),
    /// the Web PKI profile does not.
    package var checksAnchor: Bool

    package init(checksAnchor: Bool = false) { self.checksAnchor = checksAnchor }

    package var handledCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.keyUsage] }

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        for i in chain.indices.dropFirst() where checksAnchor || i < chain.count - 1 {
            guard let usage = context.extensions(chain, i).keyUsage.value else { continue }
            if !usage.keyCertSign {
                failures.append(TrustFailure(.keyUsage, certificate: i,
                    "\(chain[i].label) signs certificates but its keyUsage lacks keyCertSign"))
            }
        }
    }
}
