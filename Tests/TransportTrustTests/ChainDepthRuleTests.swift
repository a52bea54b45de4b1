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

    /// More certificates than any server sends (past `SoleNamePath.searchLimit`), linked past the limit, as a hostile
    /// peer may send them: refused on the one path the names make, with its length, and no signature checked (the path
    /// builder verified one per link). Where the names branch past the limit, refused for the length alone. A short
    /// path among as many certificates is still found and trusted.
    @Test func aHugeLinkedChainIsRefusedForItsLengthFromItsNames() async {
        let root = PKI.root()
        var chain = [root.intermediate("Link CA 0")]
        for i in 1...SoleNamePath.searchLimit { chain.append(chain[i - 1].intermediate("Link CA \(i)")) }
        let leaf = chain[chain.count - 1].leaf()
        let policy = PKI.ssl("www.example.com")
        let verdict = await PKI.evaluate(PKI.trust([leaf] + chain.reversed(), anchors: [root], policy: policy))
        #expect(verdict.codes == [.chainTooLong], "\(verdict.failures)")
        #expect(verdict.failures.first?.message.contains("\(chain.count) intermediate CAs, more than the allowed 8") == true, "\(verdict.failures)")
        #expect(verdict.notes == [SoleNamePath.unverifiedNote])
        let wholePath = verdict.chainDER == ([leaf] + chain.reversed() + [root]).map(\.der)
        #expect(wholePath, "the verdict's chain is not the whole path, leaf to root: \(verdict.chain.count) certificates")

        // A second "Link CA 30" under "Link CA 29": two ways on by name.
        let fork = chain[29].intermediate("Link CA 30")
        let forked = await PKI.evaluate(PKI.trust([leaf] + chain.reversed() + [fork], anchors: [root], policy: policy))
        #expect(forked.codes == [.chainTooLong], "\(forked.failures)")
        #expect(forked.notes == [SoleNamePath.tooLongNote])
        #expect(forked.failures.first?.message.contains("no path of at most 8 intermediate CAs") == true, "\(forked.failures)")

        let issuing = root.intermediate("Issuing CA")
        let short = await PKI.evaluate(PKI.trust([issuing.leaf(), issuing] + chain, anchors: [root], policy: policy))
        #expect(short.isTrusted, "\(short.failures)")
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
