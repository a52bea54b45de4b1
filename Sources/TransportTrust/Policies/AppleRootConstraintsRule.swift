import Foundation
import X509

/// The limits Apple's trust store puts on some of its roots, when the anchors are Apple's
/// (``TrustAnchors/Store/apple``); with the system store the rule checks nothing.
///
/// - Under the SSL policy, the 9 "Apple Platform … Root CA - G1" roots that may anchor only Apple's own policies
///   (security_certificates `constraints.json`, trust store 2025072000) do not anchor the path: `untrustedRoot`.
/// - Under the SSL policy, a leaf issued after a CA's distrust date (support.apple.com/121668: Entrust and
///   AC Camerfirma roots, from 2024-11-16) is refused when that CA, or a cross-signed copy of it, is in the path:
///   `untrustedRoot`. trustd decides by the leaf's issuance time, the earliest timestamp of its SCTs from currently
///   approved logs; this rule uses the leaf's notBefore, which a CA could backdate.
/// - A certificate on Apple's last published blocked list (iOS 17) anywhere in the path, or one below the anchor
///   that carries a blocked certificate's key (trustd matches blocked keys): `policy`.
package struct AppleRootConstraintsRule: ChainRule {
    /// True under the SSL policy: TLS-only limits apply.
    package var sslServer: Bool

    package init(sslServer: Bool) { self.sslServer = sslServer }

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        let constraints = context.rootConstraints
        guard !constraints.isEmpty else { return }
        for (i, cert) in chain.enumerated() {
            if let blocked = constraints.blocked[CertificateKey(cert)] {
                failures.append(TrustFailure(.policy, certificate: i,
                    "\(cert.label) is blocked by Apple (\(blocked.name), SHA-256 \(blocked.sha256), on the blocked list of Apple's iOS 17 "
                    + "trust store); no chain through it is trusted. The server must use a certificate from another CA"))
            } else if i < chain.count - 1, let blocked = constraints.blockedKey(of: cert) {
                failures.append(TrustFailure(.policy, certificate: i,
                    "\(cert.label) carries the key of \(blocked.name), which Apple blocks (the blocked list of Apple's iOS 17 trust store); "
                    + "trustd refuses any certificate of the path with that key. The server must use a certificate from another CA"))
            }
        }
        guard sslServer else { return }
        let anchor = chain[chain.count - 1]
        if let root = constraints.tlsServerDisallowed[CertificateKey(anchor)] {
            failures.append(TrustFailure(.untrustedRoot, certificate: chain.count - 1,
                "\(anchor.label) (\(root.name)) is in Apple's trust store \(constraints.storeVersion) for Apple's own uses only, "
                + "not for TLS servers (Apple's constraints.json lists no SSL server policy for it); the server needs a certificate from a publicly trusted CA"))
        }
        let leaf = chain[0]
        for (i, cert) in chain.enumerated().dropFirst() {
            guard let distrust = constraints.distrust(of: cert), leaf.notValidBefore >= distrust.from else { continue }
            failures.append(TrustFailure(.untrustedRoot, certificate: i,
                "\(leaf.label) was issued on \(RFC3339.format(leaf.notValidBefore)) (its notBefore) under \(cert.label) (\(distrust.name)), "
                + "which Apple no longer trusts for TLS server certificates issued from \(RFC3339.format(distrust.from)) on "
                + "(support.apple.com/121668); certificates issued before keep working until they expire. Reissue it from another CA"))
            break
        }
    }
}
