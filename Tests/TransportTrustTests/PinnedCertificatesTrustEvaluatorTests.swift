import TestSupport
import Testing

@testable import TransportTrust

@Suite struct PinnedCertificatesTrustEvaluatorTests {
    let pki = PKI.chain()
    var trust: ServerTrust { PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root]) }
    let engine = PinningFixtures.engine

    @Test func aPinnedCertificateOnTheBuiltChainPasses() async {
        for pinned in [pki.leaf, pki.intermediate, pki.root] {
            let v = await PinnedCertificatesTrustEvaluator(certificates: [pinned.input], engine: engine).evaluate(trust)
            #expect(v.isTrusted, "\(pinned.label): \(v.failures)")
        }
    }

    @Test func noPinnedCertificateOnTheChainFails() async {
        let v = await PinnedCertificatesTrustEvaluator(certificates: [PKI.root("Other").input], engine: engine).evaluate(trust)
        #expect(v.codes == [.pinMismatch])
        #expect(v.failures.first?.message.contains("certificatePinningFailed") == true)
    }

    @Test func noCertificatesIsAnError() async {
        let v = await PinnedCertificatesTrustEvaluator(certificates: [], engine: engine).evaluate(trust)
        #expect(v.codes == [.policy])
        #expect(v.failures.first?.message.contains("noCertificatesFound") == true)
    }

    @Test func selfSignedNeedsAcceptSelfSignedCertificates() async {
        let leaf = PinningFixtures.selfSignedLeaf()
        let t = PKI.trust([leaf], anchors: [PKI.root("Other")])
        #expect(await !PinnedCertificatesTrustEvaluator(certificates: [leaf.input], engine: engine).evaluate(t).isTrusted)
        #expect(await PinnedCertificatesTrustEvaluator(certificates: [leaf.input], acceptSelfSignedCertificates: true, engine: engine).evaluate(t).isTrusted)
    }

    @Test func theAnchorsItSetsStayForTheEvaluatorsAfterItInAComposite() async {
        // Alamofire's evaluators share one SecTrust: a pinned self-signed certificate is an anchor for the next one too.
        let leaf = PinningFixtures.selfSignedLeaf()
        let t = PKI.trust([leaf], anchors: [PKI.root("Other")])
        let pinned = PinnedCertificatesTrustEvaluator(certificates: [leaf.input], acceptSelfSignedCertificates: true, engine: engine)
        let v = await CompositeTrustEvaluator([pinned, DefaultTrustEvaluator(engine: engine)]).evaluate(t)
        #expect(v.isTrusted, "\(v.failures)")
        // Before it, they do not apply.
        #expect(await !CompositeTrustEvaluator([DefaultTrustEvaluator(engine: engine), pinned]).evaluate(t).isTrusted)
    }

    @Test func validateHostChecksTheName() async {
        let wrong = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: PKI.ssl("other.example.com"))
        let strict = PinnedCertificatesTrustEvaluator(certificates: [pki.root.input], engine: engine)
        #expect(await strict.evaluate(wrong).codes.contains(.hostnameMismatch))
        let lax = PinnedCertificatesTrustEvaluator(certificates: [pki.root.input], validateHost: false, engine: engine)
        #expect(await lax.evaluate(wrong).isTrusted)
    }

    @Test func withoutValidationPinsStillMatchTheBuiltChainOnly() async {
        let untrusted = PKI.trust([pki.leaf, pki.intermediate], anchors: [PKI.root("Other")])
        let off = PinnedCertificatesTrustEvaluator(certificates: [pki.intermediate.input], performDefaultValidation: false, validateHost: false, engine: engine)
        let v = await off.evaluate(untrusted)
        #expect(v.isTrusted)
        #expect(v.notes.contains { $0.contains("validation is off") })
        #expect(await PinnedCertificatesTrustEvaluator(certificates: [pki.intermediate.input], engine: engine).evaluate(untrusted).codes.contains(.unknownIssuer))
    }
}
