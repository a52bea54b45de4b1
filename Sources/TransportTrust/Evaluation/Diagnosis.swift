import SwiftASN1
import X509

/// Explains a failure that swift-certificates leaves unexplained.
///
/// When no candidate path reaches an anchor, its verifier returns an empty failure list. The reason is
/// worked out here by following issuer names from the leaf as far as they go, and naming what is missing.
enum Diagnosis {
    /// The failure for a certificate swift-certificates could not parse, naming the certificate.
    /// AlgorithmIdentifier parameters as a sentence shows them: `NULL`, or their first DER bytes.
    static func describeParameters(_ der: [UInt8]) -> String {
        if der == [0x05, 0x00] { return "NULL" }
        let shown = der.prefix(16).map { String(format: "%02x", $0) }.joined(separator: " ")
        return "DER \(shown)\(der.count > 16 ? " …" : "")"
    }

    /// - Parameter policy: decides whether an RSA key under 2048 bits is weak under it, or only cannot be checked here.
    static func unusable(_ input: InputCertificate, index: Int, policy: TrustPolicy) -> TrustFailure {
        guard let raw = input.raw else {
            return TrustFailure(.malformedCertificate, certificate: index, "certificate \(index) cannot be parsed: \(input.parseFailure ?? "unknown error")")
        }
        let who = raw.subject.label
        if SignatureNames.name(of: raw.signatureAlgorithmOID) == "rsassaPss" {
            return TrustFailure(.unsupportedAlgorithm, certificate: index,
                "\(who) is signed with RSA-PSS, which this verifier does not support; use an RSA PKCS#1 v1.5 or ECDSA certificate", isVerifierLimitation: true)
        }
        switch raw.keyAlgorithm {
        case .rsa(0), .rsaPSS(0):
            return TrustFailure(.malformedCertificate, certificate: index,
                "\(who) has an RSA public key that cannot be read (no valid modulus); the certificate must be reissued")
        case .rsa(let bits) where bits < 2048:
            return AppleKeySizeRule.unparsableRSAKey(who, bits: bits, at: index, policy: policy)
        case .ecdsa(let curve, let bits) where bits > 0 && bits < 256:
            return TrustFailure(.weakKey, certificate: index,
                "\(who) has an EC \(curve) key; at least 256 bits (P-256) are required")
        case .rsaPSS:
            return TrustFailure(.unsupportedAlgorithm, certificate: index,
                "\(who) has an RSA-PSS key, which this verifier does not support; use an RSA or ECDSA key", isVerifierLimitation: true)
        case .ecdsa(let curve, let bits) where bits == 0:
            return TrustFailure(.unsupportedAlgorithm, certificate: index, "\(who) uses the unsupported EC curve \(curve)")
        case .ed448, .other:
            return TrustFailure(.unsupportedAlgorithm, certificate: index, "\(who) has an unsupported key type (\(raw.keyAlgorithm))")
        case .rsa, .ecdsa, .ed25519:
            break
        }
        // The key is usable, so what swift-certificates refused is the signature algorithm or the encoding.
        let signature = SignatureNames.name(of: raw.signatureAlgorithmOID)
        if !SignatureNames.parseable.contains(raw.signatureAlgorithmOID) {
            if SignatureNames.sha1.contains(raw.signatureAlgorithmOID) {
                return TrustFailure(.weakSignature, certificate: index,
                    "\(who) is signed with \(signature), which is not SHA-256 or stronger; the CA must reissue it")
            }
            return TrustFailure(.unsupportedAlgorithm, certificate: index,
                "\(who) is signed with \(signature), which this verifier does not support; the CA must reissue it with ECDSA, RSA or Ed25519 and SHA-256 or stronger", isVerifierLimitation: true)
        }
        if let parameters = raw.signatureAlgorithmParameters, !SignatureNames.rsaPKCS1.contains(raw.signatureAlgorithmOID) || parameters != [0x05, 0x00] {
            let rule = SignatureNames.rsaPKCS1.contains(raw.signatureAlgorithmOID)
                ? "RFC 4055 allows only NULL, or none, for RSA" : "RFC 5758 and RFC 8410 allow none for ECDSA and Ed25519"
            return TrustFailure(.malformedCertificate, certificate: index,
                "\(who) is signed with \(signature) but its signature algorithm carries parameters (\(Self.describeParameters(parameters))), and \(rule); the CA must reissue it without them")
        }
        // The two encoding faults the suites meet most, in the order swift-certificates reads the fields.
        if let top = raw.serialNumber.first, top & 0x80 != 0 {
            return TrustFailure(.malformedCertificate, certificate: index,
                "\(who) cannot be parsed: its serial number is negative, and RFC 5280 §4.1.2.2 requires a positive integer; the CA must reissue it")
        }
        if let repeated = raw.repeatedExtension {
            return TrustFailure(.malformedCertificate, certificate: index,
                "\(who) cannot be parsed: it carries the extension \(ExtensionNames.describe(repeated)) twice, and RFC 5280 §4.2 allows each extension once; the CA must reissue it")
        }
        return TrustFailure(.malformedCertificate, certificate: index,
            "\(who) cannot be parsed: \(input.parseFailure ?? "unknown error")")
    }

    /// When a chain that is not trusted starts with a CA certificate and a certificate sent after it looks like the
    /// server's own (not a CA, issued by a certificate sent), the order is wrong: that, and not the first certificate's
    /// missing serverAuth or subjectAltName, is what to fix. `openssl s_client -showcerts` and some servers' files
    /// list the chain issuer first.
    static func leafNotFirst(_ presented: [InputCertificate]) -> TrustFailure? {
        func isCA(_ cert: Certificate) -> Bool {
            if case .isCertificateAuthority? = try? cert.extensions.basicConstraints { return true }
            return false
        }
        guard presented.count > 1, let first = presented[0].certificate, isCA(first) else { return nil }
        let subjects = Set(presented.compactMap { $0.certificate?.subject })
        for (index, input) in presented.enumerated().dropFirst() {
            guard let cert = input.certificate, !isCA(cert), subjects.contains(cert.issuer) else { continue }
            return TrustFailure(.basicConstraints, certificate: 0,
                "the chain starts with the CA certificate \(first.label), but the server's own certificate must come first; \(cert.label) (certificate \(index) as sent) looks like it. Send \(cert.label) first, then the intermediates that issued it")
        }
        return nil
    }

    static func unhandledCritical(_ cert: Certificate, handled: [ASN1ObjectIdentifier]) -> String? {
        unhandledCritical(cert.extensions, handled: handled)
    }

    static func unhandledCritical(_ extensions: Certificate.Extensions, handled: [ASN1ObjectIdentifier]) -> String? {
        for ext in extensions where ext.critical && !handled.contains(ext.oid) {
            return ext.oid.description
        }
        return nil
    }

    /// Follows issuer names from the leaf through the sent intermediates and explains where the chain stops.
    static func noPath(
        leaf: InputCertificate,
        intermediates: [Certificate],
        unusable: [InputCertificate],
        anchors: TrustAnchors,
        handled: [ASN1ObjectIdentifier],
        lookup: (Certificate) -> InputCertificate?,
        policy: TrustPolicy
    ) -> ([InputCertificate], [TrustFailure]) {
        guard var tip = leaf.certificate else { return ([leaf], [Self.unusable(leaf, index: 0, policy: policy)]) }
        var chain = [leaf]
        var used: Set<CertificateKey> = [CertificateKey(tip)]
        let where_ = anchors.anchorsOnly ? "the given anchors" : (anchors.custom.isEmpty ? "the system roots" : "the given anchors or the system roots")

        for _ in 0..<32 {
            let index = chain.count - 1
            let sentByName = intermediates.filter { ComparableName.matches($0.subject, tip.issuer) && !used.contains(CertificateKey($0)) }
            if let next = sentByName.first(where: { $0.publicKey.isValidSignature(tip.signature, for: tip) }) {
                chain.append(lookup(next) ?? leaf)
                if let bad = unhandledCritical(next, handled: handled) {
                    return (chain, [TrustFailure(.unhandledCriticalExtension, certificate: chain.count - 1,
                        "\(next.label) has a critical extension this verifier does not process (\(bad)), so no path can use it")])
                }
                used.insert(CertificateKey(next))
                tip = next
                continue
            }
            let anchorsByName = anchors.named(tip.issuer)
            if let anchor = anchorsByName.first(where: { $0.certificate.map { a in a.publicKey.isValidSignature(tip.signature, for: tip) } ?? false }),
                let anchorCert = anchor.certificate
            {
                chain.append(anchor)
                if let bad = unhandledCritical(anchorCert, handled: handled) {
                    return (chain, [TrustFailure(.unhandledCriticalExtension, certificate: chain.count - 1,
                        "the anchor \(anchorCert.label) has a critical extension this verifier does not process (\(bad))")])
                }
                return (chain, [TrustFailure(.internalError, certificate: index,
                    "a path to the anchor \(anchorCert.label) exists but the path builder did not complete it")])
            }
            // A sent certificate or an anchor of the right name that swift-certificates cannot use (a P-192 or
            // RSA-1024 key, an unsupported algorithm): that, not a missing issuer, is why the path stops.
            if let weak = unusable.first(where: { $0.raw?.subject == tip.issuer }) ?? anchorsByName.first(where: { $0.certificate == nil }) {
                chain.append(weak)
                return (chain, [Self.unusable(weak, index: chain.count - 1, policy: policy)])
            }
            return (chain, [deadEnd(tip, chain: chain, sentByName: !sentByName.isEmpty, anchorsByName: !anchorsByName.isEmpty, where: where_)])
        }
        return (chain, [TrustFailure(.chainTooLong, certificate: chain.count - 1, "the chain is longer than 32 certificates")])
    }

    /// Why the chain stops at `tip`, its last certificate, when no certificate sent or trusted signed it: a re-keyed
    /// issuer, a loop, a root not trusted, a self-signed leaf, a name too long to compare, or a missing intermediate.
    /// `sentByName` and `anchorsByName`: whether a sent certificate or an anchor has the issuer's name.
    private static func deadEnd(_ tip: Certificate, chain: [InputCertificate], sentByName: Bool, anchorsByName: Bool,
                                where where_: String) -> TrustFailure {
        let index = chain.count - 1
        if sentByName || anchorsByName {
            let what = sentByName ? "the server sent a certificate" : "a trusted anchor"
            return TrustFailure(.unknownIssuer, certificate: index,
                "\(what) named \(tip.issuer.label), but its key did not sign \(tip.label); the issuing CA's certificate was replaced or re-keyed. Send the intermediate that matches this certificate")
        }
        if !tip.isSelfIssued, chain.contains(where: { $0.certificate?.subject == tip.issuer }) {
            return TrustFailure(.unknownIssuer, certificate: index,
                "\(tip.label) is issued by \(tip.issuer.label), which is already in this chain: the intermediates sent issue each other in a loop, and none of them is issued by \(where_). Send the intermediate that leads to a trusted root")
        }
        if tip.isSelfIssued && tip.publicKey.isValidSignature(tip.signature, for: tip) {
            if chain.count == 1 {
                return TrustFailure(.selfSignedLeaf, certificate: 0,
                    "\(tip.label) is self-signed and is not among \(where_); trust it explicitly as an anchor, pin it, or use a certificate from a trusted CA")
            }
            return TrustFailure(.untrustedRoot, certificate: index,
                "the chain ends at the root \(tip.label), which is not among \(where_); add it to the trusted anchors if it is yours")
        }
        if case let size = tip.issuer.reduce(0, { $0 + $1.count }), size > ComparableName.attributeLimit {
            return TrustFailure(.unknownIssuer, certificate: index,
                "the issuer name of \(tip.label) has \(size) attributes, more than the \(ComparableName.attributeLimit) this verifier compares as RFC 5280 §7.1 asks; compared byte for byte, no certificate sent or among \(where_) has that name")
        }
        if chain.count == 1 {
            return TrustFailure(.unknownIssuer, certificate: 0,
                "the server did not send the intermediate \(tip.issuer.label) that issued \(tip.label), and it is not among \(where_); add the intermediate to the server's chain")
        }
        return TrustFailure(.unknownIssuer, certificate: index,
            "\(tip.issuer.label), the issuer of \(tip.label), was neither sent by the server nor found among \(where_); add it to the server's chain, or trust its root")
    }
}
