import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

@Suite struct ChainDepthRuleTests {
    @Test func countsIntermediatesBetweenLeafAndAnchor() async {
        let root = PKI.root()
        let a = root.intermediate("CA A")
        let b = a.intermediate("CA B")
        let leaf = b.leaf()
        #expect(await RuleProbe.failures(ChainDepthRule(maximumIntermediates: 2), leaf: leaf, intermediates: [a, b], anchors: [root]) == [])
        let failures = await RuleProbe.failures(ChainDepthRule(maximumIntermediates: 1), leaf: leaf, intermediates: [a, b], anchors: [root])
        #expect(failures?.map(\.code) == [.chainTooLong])
        #expect(failures?.first?.certificate == 3)
        #expect(failures?.first?.message.contains("2 intermediate CAs, more than the allowed 1") == true)
        let one = await RuleProbe.failures(ChainDepthRule(maximumIntermediates: 0), leaf: a.leaf(), intermediates: [a], anchors: [root])
        #expect(one?.first?.message.contains("1 intermediate CA, more than the allowed 0") == true, "\(one ?? [])")
        let none = await RuleProbe.failures(ChainDepthRule(maximumIntermediates: 0), leaf: root.leaf(), anchors: [root])
        #expect(none == [])
    }

    @Test func selfIssuedIntermediatesDoNotCount() async {
        let root = PKI.root()
        let oldKey = TestKey.p256()
        let ca = root.intermediate("Rolling CA", key: oldKey)
        // Key rollover: the CA's new key certified by its old key, under the same name.
        let rolled = ca.intermediate("Rolling CA")
        let leaf = rolled.leaf()
        #expect(await RuleProbe.failures(ChainDepthRule(maximumIntermediates: 1), leaf: leaf, intermediates: [ca, rolled], anchors: [root]) == [])
        var policy = PKI.ssl("www.example.com")
        policy.maximumIntermediates = 1
        let verdict = await PKI.evaluate(PKI.trust([leaf, rolled, ca], anchors: [root], policy: policy))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.chainDER == [leaf.der, rolled.der, ca.der, root.der])
    }

    @Test func zeroAllowsOnlyALeafUnderTheAnchor() async {
        let (root, intermediate, leaf) = PKI.chain()
        var policy = PKI.ssl("www.example.com")
        policy.maximumIntermediates = 0
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: policy))
        #expect(verdict.codes == [.chainTooLong])
        #expect(await PKI.evaluate(PKI.trust([root.leaf()], anchors: [root], policy: policy)).isTrusted)
        policy.maximumIntermediates = nil
        #expect(await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: policy)).isTrusted)
    }
}
