import SwiftASN1
import X509

/// keyUsage: an issuing certificate that carries the extension must assert keyCertSign (RFC 5280 §4.2.1.3);
/// a TLS server leaf that carries it must allow a TLS signature or key exchange.
public struct KeyUsageRule: ChainRule {
    public var serverLeaf: Bool

    public init(serverLeaf: Bool) { self.serverLeaf = serverLeaf }

    public var handledCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.keyUsage] }

    public func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        for (i, cert) in chain.enumerated() {
            let usage: KeyUsage?
            do { usage = try cert.extensions.keyUsage } catch {
                failures.append(TrustFailure(.malformedCertificate, certificate: i, "\(cert.label) has an unreadable keyUsage extension"))
                continue
            }
            guard let usage else { continue }
            if i > 0 {
                if !usage.keyCertSign {
                    failures.append(TrustFailure(.keyUsage, certificate: i,
                        "\(cert.label) signs certificates but its keyUsage lacks keyCertSign"))
                }
            } else if serverLeaf && chain.count > 1 && !(usage.digitalSignature || usage.keyEncipherment || usage.keyAgreement) {
                failures.append(TrustFailure(.keyUsage, certificate: 0,
                    "\(cert.label) has a keyUsage that allows neither digitalSignature nor keyEncipherment, so it cannot serve TLS"))
            }
        }
    }
}
