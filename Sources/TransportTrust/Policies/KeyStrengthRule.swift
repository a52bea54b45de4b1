import Crypto
import _CryptoExtras
import X509

/// ATS certificate strength: RSA keys of at least 2048 bits, EC keys of at least 256 bits, on every certificate.
package struct KeyStrengthRule: ChainRule {
    package var minimumRSABits: Int

    /// EC keys need no bound here: swift-certificates parses only P-256 and larger, and smaller curves are
    /// reported as weak keys when the certificate fails to parse.
    package init(minimumRSABits: Int = 2048) {
        self.minimumRSABits = minimumRSABits
    }

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        for (i, cert) in chain.enumerated() {
            let key = cert.publicKey
            if let rsa = _RSA.Signing.PublicKey(key) {
                if rsa.keySizeInBits < minimumRSABits {
                    failures.append(TrustFailure(.weakKey, certificate: i,
                        "\(cert.label) has an RSA \(rsa.keySizeInBits)-bit key; at least \(minimumRSABits) bits are required"))
                }
            } else if P256.Signing.PublicKey(key) != nil || P384.Signing.PublicKey(key) != nil || P521.Signing.PublicKey(key) != nil {
                continue  // all ≥ 256
            } else if Curve25519.Signing.PublicKey(key) != nil {
                continue
            } else {
                failures.append(TrustFailure(.unsupportedAlgorithm, certificate: i, "\(cert.label) has a key type ATS does not accept"))
            }
        }
    }
}
