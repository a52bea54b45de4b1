import TestSupport
import Testing
import X509

@testable import TransportTrust

@Suite struct RevocationTrustEvaluatorTests {
    let pki = PKI.chain()

    @Test func optionsChooseSoftOrHard() {
        #expect(RevocationTrustEvaluator().mode == .soft)
        #expect(RevocationTrustEvaluator(options: [.ocsp, .requirePositiveResponse]).mode == .hard)
    }

    @Test func noMethodIsRefusedRatherThanSkipped() async {
        let v = await RevocationTrustEvaluator(options: .requirePositiveResponse, engine: PinningFixtures.engine)
            .evaluate(PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root]))
        #expect(v.codes == [.policy])
    }

    @Test func crlAloneChecksTheCRLsAndOCSPAloneDoesNot() async throws {
        var builder = CRLBuilder(issuer: pki.intermediate)
        builder.entries = [.revoking(pki.leaf)]
        let crl = try CertificateRevocationList(bytes: try builder.signed(by: pki.intermediate.key))
        let trust = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root])
        let byCRL = await RevocationTrustEvaluator(options: .crl, crls: [crl], engine: PinningFixtures.engine).evaluate(trust)
        #expect(byCRL.codes == [.revoked], "\(byCRL.failures)")
        #expect(await RevocationTrustEvaluator(options: .ocsp, crls: [crl], engine: PinningFixtures.engine).evaluate(trust).isTrusted)
        // Hard-fail: a CRL handed in means every certificate needs one; the root's is missing.
        let clean = try CertificateRevocationList(bytes: try CRLBuilder(issuer: pki.intermediate).signed(by: pki.intermediate.key))
        let hard = await RevocationTrustEvaluator(options: [.crl, .requirePositiveResponse], crls: [clean], engine: PinningFixtures.engine).evaluate(trust)
        #expect(hard.codes == [.revocationUnknown])
    }

    @Test func softFailPassesWithoutAResponse() async {
        let v = await RevocationTrustEvaluator(engine: PinningFixtures.engine).evaluate(PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root]))
        #expect(v.isTrusted, "\(v.failures)")
    }

    @Test func defaultValidationRunsFirst() async {
        let v = await RevocationTrustEvaluator(engine: PinningFixtures.engine).evaluate(PKI.trust([pki.leaf, pki.intermediate], anchors: [PKI.root("Other")]))
        #expect(v.codes.contains(.unknownIssuer))
        let wrongHost = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: PKI.ssl("other.example.com"))
        #expect(await !RevocationTrustEvaluator(engine: PinningFixtures.engine).evaluate(wrongHost).isTrusted)
        #expect(await RevocationTrustEvaluator(validateHost: false, engine: PinningFixtures.engine).evaluate(wrongHost).isTrusted)
    }

    /// Answers every request with a response made for the leaf, and counts them.
    actor Responder: OCSPResponseSource {
        let answer: [UInt8]
        private(set) var asked = 0
        init(_ answer: [UInt8]) { self.answer = answer }
        func response(for request: [UInt8], responderURI: String) async -> [UInt8]? {
            asked += 1
            return answer
        }
    }

    @Test func theSourceTheTrustCarriesIsAsked() async throws {
        let aia = try Certificate.Extension(AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier("http://ocsp.invalid/"))]), critical: false)
        let leaf = pki.intermediate.leaf(extra: [aia])
        let revoked = Responder(try OCSPResponseBuilder.response(for: leaf, issuer: pki.intermediate, status: .revoked(at: PKI.now.addingTimeInterval(-60))))
        var trust = PKI.trust([leaf, pki.intermediate], anchors: [pki.root])
        // The client's way: a source on the trust, revocation itself off.
        trust.policy.revocation = RevocationOptions(mode: .off, source: revoked)
        let v = await RevocationTrustEvaluator(engine: PinningFixtures.engine).evaluate(trust)
        #expect(v.codes == [.revoked], "\(v.failures)")
        #expect(await revoked.asked == 1)
        let offline = await RevocationTrustEvaluator(options: [.ocsp, .networkAccessDisabled], engine: PinningFixtures.engine).evaluate(trust)
        #expect(offline.isTrusted)
        #expect(await revoked.asked == 1, "networkAccessDisabled asks nobody")
    }
}
