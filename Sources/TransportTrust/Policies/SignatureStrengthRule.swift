import X509

/// Signatures must use SHA-256 or stronger, on every certificate but the trust anchor's own self-signature.
///
/// swift-certificates accepts SHA-1; Apple's SSL policy has refused it since iOS 13, and so does ATS.
package struct SignatureStrengthRule: ChainRule {
    package init() {}

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        // A lone certificate that is itself the anchor has no signature that matters.
        // By index: dropLast on the enumerated sequence copied every certificate into an array first.
        for i in chain.indices.dropLast() {
            let alg = chain[i].signatureAlgorithm
            if !Self.isStrong(alg) {
                failures.append(TrustFailure(.weakSignature, certificate: i,
                    "\(chain[i].label) is signed with \(alg), which is not SHA-256 or stronger; the CA must reissue it"))
            }
        }
    }

    /// Compared one by one: hashing the algorithm for a set lookup cost more than the seven comparisons.
    static func isStrong(_ algorithm: Certificate.SignatureAlgorithm) -> Bool { strong.contains(algorithm) }

    static let strong: [Certificate.SignatureAlgorithm] = [
        .sha256WithRSAEncryption, .sha384WithRSAEncryption, .sha512WithRSAEncryption,
        .ecdsaWithSHA256, .ecdsaWithSHA384, .ecdsaWithSHA512, .ed25519,
    ]
}
