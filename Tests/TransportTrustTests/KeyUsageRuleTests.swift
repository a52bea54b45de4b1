import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

@Suite struct KeyUsageRuleTests {
    @Test func anIssuerWithKeyUsageMustAssertKeyCertSign() async {
        let root = PKI.root()
        let noCertSign = root.intermediate("Signing-only CA", keyUsage: KeyUsage(digitalSignature: true, cRLSign: true))
        let leaf = noCertSign.leaf()
        let failures = await RuleProbe.failures(KeyUsageRule(), leaf: leaf, intermediates: [noCertSign], anchors: [root])
        #expect(failures?.map(\.code) == [.keyUsage])
        #expect(failures?.first?.certificate == 1)
        #expect(failures?.first?.message.contains(noCertSign.label) == true)
        #expect(failures?.first?.message.contains("keyCertSign") == true)

        let verdict = await PKI.evaluate(PKI.trust([leaf, noCertSign], anchors: [root]))
        #expect(!verdict.isTrusted)
        #expect(Set(verdict.codes) == [.keyUsage])
        #expect(verdict.failures.allSatisfy { $0.certificate == 1 })
    }

    @Test func anIssuerWithoutKeyUsageIsUnconstrained() async {
        let root = PKI.root()
        let noKU = root.intermediate("No KU CA", keyUsage: nil)
        let leaf = noKU.leaf()
        #expect(await RuleProbe.failures(KeyUsageRule(), leaf: leaf, intermediates: [noKU], anchors: [root]) == [])
        #expect(await PKI.evaluate(PKI.trust([leaf, noKU], anchors: [root])).isTrusted)
    }

    @Test func theLeafsOwnKeyUsageIsLeftToTheTLSStack() async {
        let (root, intermediate, _) = PKI.chain()
        let leaf = intermediate.leaf(keyUsage: KeyUsage(keyEncipherment: true))
        #expect(await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root])).isTrusted)
    }
}
