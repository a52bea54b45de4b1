import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

/// Apple's limits on roots of its store, through the engine. Nobody can sign under Apple's roots, so most cases put
/// the same limits on generated certificates; one uses a real Apple Platform root.
@Suite struct AppleRootConstraintsRuleTests {
    let pki = PKI.chain()

    /// The generated root as a root of a store with `constraints`.
    func anchors(_ constraints: RootConstraints) -> TrustAnchors {
        TrustAnchors(custom: [], anchorsOnly: false, systemRoots: SystemRoots(certificates: [pki.root.input], skipped: [], sources: ["test"], settings: []),
                     store: .apple, constraints: constraints)
    }

    func verdict(_ constraints: RootConstraints, policy: TrustPolicy = PKI.ssl("www.example.com"), leaf: TestCert? = nil) async -> TrustVerdict {
        await PKI.evaluate(ServerTrust(certificates: [(leaf ?? pki.leaf).der, pki.intermediate.der], anchors: anchors(constraints), policy: policy,
                                       validationTime: PKI.now))
    }

    @Test func withoutConstraintsTheChainIsTrusted() async {
        let verdict = await verdict(RootConstraints())
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.anchor == .system)
    }

    @Test func aRootNotAllowedForTLSServersAnchorsNoSSLPath() async {
        let constraints = RootConstraints(storeVersion: 2025072000, tlsServerDisallowed: [pki.root.certificate])
        let refused = await verdict(constraints)
        #expect(refused.codes == [.untrustedRoot], "\(refused.failures)")
        #expect(refused.failures.first?.certificate == 2)
        #expect(refused.failures.first?.message.contains("is in Apple's trust store 2025072000 for Apple's own uses only, not for TLS servers") == true,
                "\(refused.failures)")
        // The basic policy is one of the uses those roots allow.
        #expect(await verdict(constraints, policy: .basicX509).isTrusted)
    }

    @Test func aBlockedCertificateAnywhereInThePathIsRefusedByName() async {
        let constraints = RootConstraints(storeVersion: 2025072000, blocked: [pki.intermediate.certificate])
        for policy in [PKI.ssl("www.example.com"), .basicX509] {
            let refused = await verdict(constraints, policy: policy)
            #expect(refused.codes == [.policy], "\(refused.failures)")
            #expect(refused.failures.first?.certificate == 1)
            #expect(refused.failures.first?.message.contains("'CN=Test Intermediate CA,O=Transport Trust Tests' is blocked by Apple") == true,
                    "\(refused.failures)")
        }
    }

    /// trustd matches blocked keys: a reissued or cross-signed certificate that carries a blocked certificate's key is
    /// refused too, below the anchor (review-parity F8).
    @Test func aCertificateWithABlockedKeyIsRefused() async {
        let reissued = pki.root.intermediate("Test Intermediate CA", key: pki.intermediate.key, notValidAfter: PKI.notAfter.addingTimeInterval(-86_400))
        #expect(reissued.der != pki.intermediate.der)
        let constraints = RootConstraints(storeVersion: 2025072000, blocked: [reissued.certificate])
        let refused = await verdict(constraints)
        #expect(refused.codes == [.policy], "\(refused.failures)")
        #expect(refused.failures.first?.certificate == 1)
        #expect(refused.failures.first?.message.contains("carries the key of") == true, "\(refused.failures)")
        // The anchor is not looked up by key, as in trustd.
        let anchorKey = RootConstraints(storeVersion: 2025072000, blocked: [pki.root.intermediate("Other", key: pki.root.key).certificate])
        #expect(await verdict(anchorKey).isTrusted)
    }

    /// Leaves issued (by notBefore) on or after the distrust date are refused; earlier ones keep working.
    @Test func aDistrustedRootRefusesLeavesIssuedFromItsDate() async {
        let from = PKI.now.addingTimeInterval(-86_400)
        let constraints = RootConstraints(storeVersion: 2025072000, distrusted: [(pki.root.certificate, from)])
        let before = pki.intermediate.leaf(notValidBefore: from.addingTimeInterval(-1))
        #expect(await verdict(constraints, leaf: before).isTrusted)
        let at = pki.intermediate.leaf(notValidBefore: from)
        let refused = await verdict(constraints, leaf: at)
        #expect(refused.codes == [.untrustedRoot], "\(refused.failures)")
        #expect(refused.failures.first?.certificate == 2)
        #expect(refused.failures.first?.message.contains("which Apple no longer trusts for TLS server certificates issued from \(RFC3339.format(from)) on (support.apple.com/121668)") == true,
                "\(refused.failures)")
    }

    /// A cross-signed copy of a distrusted root (same subject and key, another issuer) is the same CA.
    @Test func aCrossSignedCopyOfADistrustedRootCounts() async {
        let other = PKI.root("Other Root")
        let crossSigned = PKI.issue(subject: pki.root.subject, key: pki.root.key, issuer: other, extensions: [
            try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
            try! Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
        ])
        let constraints = RootConstraints(storeVersion: 2025072000, distrusted: [(pki.root.certificate, PKI.notBefore)])
        let anchors = TrustAnchors(custom: [], anchorsOnly: false, systemRoots: SystemRoots(certificates: [other.input], skipped: [], sources: ["test"], settings: []),
                                   store: .apple, constraints: constraints)
        let verdict = await PKI.evaluate(ServerTrust(certificates: [pki.leaf.der, pki.intermediate.der, crossSigned.der], anchors: anchors,
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(verdict.codes == [.untrustedRoot], "\(verdict.failures)")
        #expect(verdict.failures.first?.certificate == 2)
    }

    /// A real Apple Platform root (tls_server_allowed=no in Apple's store) presented as its own chain.
    @Test func aRealAppleOnlyRootIsRefusedForTLS() async throws {
        let store = AppleTrustStore.shared
        let name = "Apple Platform Bootstrap ECC Root CA - G1"
        let root = try #require(store.roots.certificates.first { $0.certificate?.subject.description.contains(name) == true })
        let verdict = await PKI.evaluate(ServerTrust(chain: [root], anchors: .apple, policy: .ssl(host: nil), validationTime: PKI.now))
        let failure = try #require(verdict.failure(.untrustedRoot), "\(verdict.failures)")
        #expect(failure.message.contains("(\(name)) is in Apple's trust store 2025072000 for Apple's own uses only"), "\(failure.message)")
    }
}
