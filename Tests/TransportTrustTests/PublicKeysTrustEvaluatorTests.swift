import TestSupport
import Testing

@testable import TransportTrust

@Suite struct PublicKeysTrustEvaluatorTests {
    let pki = PKI.chain()
    var trust: ServerTrust { PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root]) }
    let engine = PinningFixtures.engine

    @Test func aKeyOfTheBuiltChainPasses() async {
        for cert in [pki.leaf, pki.intermediate, pki.root] {
            #expect(await PublicKeysTrustEvaluator(keys: [PinningFixtures.spki(cert)], engine: engine).evaluate(trust).isTrusted)
        }
        #expect(await PublicKeysTrustEvaluator(certificates: [pki.root.input], engine: engine).evaluate(trust).isTrusted)
    }

    @Test func noMatchingKeyFailsWithTheChainsHashes() async {
        let v = await PublicKeysTrustEvaluator(certificates: [PKI.root("Other").input], engine: engine).evaluate(trust)
        #expect(v.codes == [.pinMismatch])
        #expect(v.failures.first?.message.contains("publicKeyPinningFailed") == true)
        #expect(v.failures.first?.message.contains(PinningFixtures.hash(pki.intermediate)) == true)
    }

    @Test func noKeysIsAnError() async {
        #expect(await PublicKeysTrustEvaluator(keys: [], engine: engine).evaluate(trust).failures.first?.message.contains("noPublicKeysFound") == true)
    }

    @Test func defaultValidationStillRuns() async {
        let untrusted = PKI.trust([pki.leaf, pki.intermediate], anchors: [PKI.root("Other")])
        #expect(await PublicKeysTrustEvaluator(keys: [PinningFixtures.spki(pki.leaf)], engine: engine).evaluate(untrusted).codes.contains(.unknownIssuer))
    }

    /// RSA-1024 keys cannot be parsed by swift-certificates; the key is still compared by its SPKI.
    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func unparseableKeysStillPin() async throws {
        let tool = try OpenSSLTool()
        try tool.newKey("weak", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        try tool.run(["req", "-new", "-x509", "-key", "weak.key", "-subj", "/CN=www.example.com", "-days", "30", "-out", "weak.pem",
                      "-addext", "subjectAltName=DNS:www.example.com"])
        let weak = try tool.load("weak")
        #expect(weak.certificate == nil)
        let t = ServerTrust(certificates: [weak.der], anchors: TrustAnchors(custom: [PKI.root().input]), policy: PKI.ssl("www.example.com"), validationTime: PKI.now)
        let key = try #require(weak.raw?.subjectPublicKeyInfo)
        let off = PublicKeysTrustEvaluator(keys: [key], performDefaultValidation: false, validateHost: false, engine: engine)
        #expect(await off.evaluate(t).isTrusted)
        let other = PublicKeysTrustEvaluator(keys: [PinningFixtures.spki(pki.leaf)], performDefaultValidation: false, validateHost: false, engine: engine)
        #expect(await other.evaluate(t).codes == [.pinMismatch])
    }
}
