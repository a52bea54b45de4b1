import TestSupport
import Testing

@testable import TransportTrust

@Suite struct RevocationTrustEvaluatorTests {
    let pki = PKI.chain()

    @Test func optionsChooseSoftOrHard() {
        #expect(RevocationTrustEvaluator().mode == .soft)
        #expect(RevocationTrustEvaluator(options: [.ocsp, .requirePositiveResponse]).mode == .hard)
    }

    @Test func crlAloneIsRefusedRatherThanSkipped() async {
        let v = await RevocationTrustEvaluator(options: .crl, engine: PinningFixtures.engine).evaluate(PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root]))
        #expect(v.codes == [.policy])
    }

    @Test func softFailPassesWithoutAResponseAndNotesCRL() async {
        let v = await RevocationTrustEvaluator(engine: PinningFixtures.engine).evaluate(PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root]))
        #expect(v.isTrusted, "\(v.failures)")
        #expect(v.notes.contains { $0.contains("CRL") })
    }

    @Test func defaultValidationRunsFirst() async {
        let v = await RevocationTrustEvaluator(engine: PinningFixtures.engine).evaluate(PKI.trust([pki.leaf, pki.intermediate], anchors: [PKI.root("Other")]))
        #expect(v.codes.contains(.unknownIssuer))
        let wrongHost = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: PKI.ssl("other.example.com"))
        #expect(await !RevocationTrustEvaluator(engine: PinningFixtures.engine).evaluate(wrongHost).isTrusted)
        #expect(await RevocationTrustEvaluator(validateHost: false, engine: PinningFixtures.engine).evaluate(wrongHost).isTrusted)
    }
}
