import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

@Suite struct ExtendedKeyUsageRuleTests {
    let root = PKI.root()

    func evaluate(_ leaf: TestCert, _ intermediate: TestCert, policy: TrustPolicy = PKI.ssl("www.example.com")) async -> TrustVerdict {
        await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: policy))
    }

    @Test func sslLeafMustListServerAuth() async {
        let ca = root.intermediate("CA")
        #expect(await evaluate(ca.leaf(extendedKeyUsage: [.serverAuth]), ca).isTrusted)
        #expect(await evaluate(ca.leaf(extendedKeyUsage: [.clientAuth, .serverAuth]), ca).isTrusted)

        let clientOnly = ca.leaf(extendedKeyUsage: [.clientAuth])
        let v = await evaluate(clientOnly, ca)
        #expect(v.codes == [.extendedKeyUsage])
        #expect(v.failures[0].certificate == 0)
        #expect(v.failures[0].message.contains("not valid for serverAuth"), "\(v.failures[0].message)")
        #expect(v.failures[0].message.contains("clientAuth"))
    }

    @Test func sslLeafWithoutEKUIsRefused() async {
        let ca = root.intermediate("CA")
        let v = await evaluate(ca.leaf(extendedKeyUsage: nil), ca)
        #expect(v.codes == [.extendedKeyUsage])
        #expect(v.failures[0].message.contains("has no extendedKeyUsage extension"))
    }

    @Test func anyExtendedKeyUsageAloneIsNotEnoughForTheLeaf() async {
        let ca = root.intermediate("CA")
        let v = await evaluate(ca.leaf(extendedKeyUsage: [.any]), ca)
        #expect(v.codes == [.extendedKeyUsage])
        #expect(v.failures[0].message.contains("anyExtendedKeyUsage"))
    }

    @Test func anIntermediateEKUConstrainsWhatItIssues() async {
        let clientCA = root.intermediate("Client CA", extendedKeyUsage: [.clientAuth])
        let v = await evaluate(clientCA.leaf(), clientCA)
        #expect(v.codes == [.extendedKeyUsage])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message.contains(clientCA.label))
        #expect(v.failures[0].message.contains("may only issue for clientAuth"), "\(v.failures[0].message)")

        let serverCA = root.intermediate("Server CA", extendedKeyUsage: [.serverAuth, .clientAuth])
        #expect(await evaluate(serverCA.leaf(), serverCA).isTrusted)
        let anyCA = root.intermediate("Any CA", extendedKeyUsage: [.any])
        #expect(await evaluate(anyCA.leaf(), anyCA).isTrusted)
    }

    @Test func aCriticalEKUOnATLSLeafIsRefused() async {
        let ca = root.intermediate("CA")
        let critical = try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: true)
        let leaf = ca.leaf(extendedKeyUsage: nil, extra: [critical])
        let v = await evaluate(leaf, ca)
        #expect(v.codes == [.extendedKeyUsage])
        #expect(v.failures[0].message.contains("critical"))
    }

    @Test func basicPolicyRequiresNoPurposeUnlessAsked() async {
        let ca = root.intermediate("CA")
        let clientLeaf = ca.leaf(extendedKeyUsage: [.clientAuth])
        #expect(await evaluate(clientLeaf, ca, policy: .basicX509).isTrusted)
        #expect(await evaluate(ca.leaf(extendedKeyUsage: nil), ca, policy: .basicX509).isTrusted)

        var wantsClient = TrustPolicy.basicX509
        wantsClient.requiredExtendedKeyUsages = [.clientAuth]
        #expect(await evaluate(clientLeaf, ca, policy: wantsClient).isTrusted)
        let serverLeaf = ca.leaf(extendedKeyUsage: [.serverAuth])
        let v = await evaluate(serverLeaf, ca, policy: wantsClient)
        #expect(v.codes == [.extendedKeyUsage])
        #expect(v.failures[0].message.contains("not valid for clientAuth"))
        // Under basic, a leaf without any EKU is unconstrained.
        #expect(await evaluate(ca.leaf(extendedKeyUsage: nil), ca, policy: wantsClient).isTrusted)
    }

    /// Any purpose follows serverAuth's rules: the leaf's EKU lists it, a CA's lists it or anyExtendedKeyUsage.
    @Test func anyKeyPurposeFollowsTheRulesOfServerAuth() async {
        var signing = TrustPolicy.basicX509
        signing.requiredExtendedKeyUsages = [.codeSigning]
        let ca = root.intermediate("CA")
        #expect(await evaluate(ca.leaf(extendedKeyUsage: [.codeSigning]), ca, policy: signing).isTrusted)
        // Critical is a TLS matter (CA/B Forum): a code-signing leaf may mark it so, as RFC 5280 allows.
        let critical = try! Certificate.Extension(try! ExtendedKeyUsage([.codeSigning]), critical: true)
        #expect(await evaluate(ca.leaf(extendedKeyUsage: nil, extra: [critical]), ca, policy: signing).isTrusted)
        let v = await evaluate(ca.leaf(extendedKeyUsage: [.serverAuth]), ca, policy: signing)
        #expect(v.codes == [.extendedKeyUsage])
        #expect(v.failures[0].message.contains("not valid for codeSigning"))
        let serverCA = root.intermediate("Server CA", extendedKeyUsage: [.serverAuth])
        let issued = await evaluate(serverCA.leaf(extendedKeyUsage: [.codeSigning]), serverCA, policy: signing)
        #expect(issued.codes == [.extendedKeyUsage])
        #expect(issued.failures[0].certificate == 1)
        let anyCA = root.intermediate("Any CA", extendedKeyUsage: [.any])
        #expect(await evaluate(anyCA.leaf(extendedKeyUsage: [.codeSigning]), anyCA, policy: signing).isTrusted)
    }

    @Test func aPurposeGivenAsAnOIDIsNamedByIt() async {
        let purpose = ExtendedKeyUsage.Usage(oid: [1, 3, 6, 1, 4, 1, 55738, 1])
        var custom = TrustPolicy.basicX509
        custom.requiredExtendedKeyUsages = [purpose]
        let ca = root.intermediate("CA")
        #expect(await evaluate(ca.leaf(extendedKeyUsage: [purpose]), ca, policy: custom).isTrusted)
        let v = await evaluate(ca.leaf(extendedKeyUsage: [.clientAuth]), ca, policy: custom)
        #expect(v.codes == [.extendedKeyUsage])
        #expect(v.failures[0].message.contains("not valid for 1.3.6.1.4.1.55738.1"), "\(v.failures[0].message)")
    }

    @Test func theRuleOnItsOwnChecksTheAnchorsEKUToo() async {
        let clientRoot = PKI.root("Client Root", extra: [try! Certificate.Extension(try! ExtendedKeyUsage([.clientAuth]), critical: false)])
        let leaf = clientRoot.leaf()
        let failures = await RuleProbe.failures(ExtendedKeyUsageRule(), leaf: leaf, anchors: [clientRoot])
        #expect(failures?.map(\.code) == [.extendedKeyUsage])
        #expect(failures?.first?.certificate == 1)
    }
}
