import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

@Suite struct DistrustRuleTests {
    let pki = PKI.chain()

    func policy(_ lists: DistrustList...) -> TrustPolicy {
        var policy = PKI.ssl("www.example.com")
        policy.distrusted = lists
        return policy
    }

    @Test func aListedIntermediateRefusesThePath() async throws {
        let list = try DistrustList(source: "bad-ca.pem", certificates: [pki.intermediate.input])
        let v = await PKI.evaluate(PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: policy(list)))
        #expect(v.codes == [.distrusted])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message == "\(pki.intermediate.label) is distrusted: the certificate is listed in bad-ca.pem")
    }

    /// A key, not a certificate: the anchor's key refuses every path to it, and the leaf's refuses it re-issued.
    @Test func aListedKeyRefusesEveryCertificateOfIt() async throws {
        let list = try DistrustList(source: "keys.txt", contents: Array("sha256/\(try #require(pki.root.input.spkiSHA256Base64))\n".utf8))
        let v = await PKI.evaluate(PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: policy(list)))
        #expect(v.codes == [.distrusted])
        #expect(v.failures[0].certificate == 2)
        #expect(v.failures[0].message.contains("its key (sha256/\(pki.root.input.spkiSHA256Base64 ?? "")) is listed in keys.txt"), "\(v.failures[0].message)")
        let leafKey = try DistrustList(source: "leaf.txt", contents: Array("sha256/\(try #require(pki.leaf.input.spkiSHA256Base64))".utf8))
        let reissued = pki.intermediate.leaf(key: pki.leaf.key)
        #expect(await PKI.evaluate(PKI.trust([reissued, pki.intermediate], anchors: [pki.root], policy: policy(leafKey))).codes == [.distrusted])
    }

    /// Another path that avoids the listed certificate is still trusted, as SecTrust's blocked list works.
    @Test func aPathAroundTheListedCertificateIsTrusted() async throws {
        let otherRoot = PKI.root("Other Root")
        let cross = PKI.issue(subject: pki.intermediate.subject, key: pki.intermediate.key, issuer: otherRoot, extensions: [
            try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
            try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
        ])
        let list = try DistrustList(source: "bad-ca.pem", certificates: [pki.intermediate.input])
        let v = await PKI.evaluate(PKI.trust([pki.leaf, pki.intermediate, cross], anchors: [pki.root, otherRoot], policy: policy(list)))
        #expect(v.isTrusted, "\(v.failures)")
        #expect(v.chainDER == [pki.leaf.der, cross.der, otherRoot.der])
    }

    @Test func aLeafAnchorThatIsListedIsRefused() async throws {
        let list = try DistrustList(source: "leaf.pem", certificates: [pki.leaf.input])
        let v = await PKI.evaluate(PKI.trust([pki.leaf], anchors: [pki.leaf], policy: policy(list)))
        #expect(v.codes == [.distrusted])
    }

    /// A path remembered as trusted is not trusted from memory under a policy that distrusts it.
    @Test func theValidatedPathCacheHonoursTheList() async throws {
        let engine = TrustEngine()
        let trust = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root])
        #expect(await engine.evaluate(trust).isTrusted)
        var distrusting = trust
        distrusting.policy.distrusted = [try DistrustList(source: "bad-ca.pem", certificates: [pki.intermediate.input])]
        #expect(await engine.evaluate(distrusting).codes == [.distrusted])
        #expect(await engine.evaluate(trust).isTrusted)
    }
}
