import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

@Suite struct ValidityRuleTests {
    @Test func notAfterIsInclusiveToTheSecond() async {
        let root = PKI.root()
        let end = PKI.now.addingTimeInterval(3600)
        let leaf = root.leaf(notValidAfter: end)
        let atEnd = await RuleProbe.failures(ValidityRule(), leaf: leaf, anchors: [root], at: end.addingTimeInterval(0.9))
        #expect(atEnd == [])
        let after = await RuleProbe.failures(ValidityRule(), leaf: leaf, anchors: [root], at: end.addingTimeInterval(1))
        #expect(after?.map(\.code) == [.expired])
        #expect(after?.first?.certificate == 0)
        #expect(after?.first?.message.contains(leaf.label) == true)
        #expect(after?.first?.message.contains("renewed certificate") == true)
    }

    @Test func notBeforeIsInclusive() async {
        let root = PKI.root()
        let start = PKI.now.addingTimeInterval(3600)
        let leaf = root.leaf(notValidBefore: start)
        #expect(await RuleProbe.failures(ValidityRule(), leaf: leaf, anchors: [root], at: start) == [])
        let before = await RuleProbe.failures(ValidityRule(), leaf: leaf, anchors: [root], at: start.addingTimeInterval(-1))
        #expect(before?.map(\.code) == [.notYetValid])
        #expect(before?.first?.message.contains("not valid until") == true)
    }

    @Test func checksEveryCertificateIncludingTheAnchor() async {
        let root = PKI.root(notValidAfter: PKI.now.addingTimeInterval(-10))
        let intermediate = root.intermediate("Intermediate", notValidBefore: PKI.now.addingTimeInterval(10))
        let leaf = intermediate.leaf()
        let failures = await RuleProbe.failures(ValidityRule(), leaf: leaf, intermediates: [intermediate], anchors: [root])
        #expect(failures?.map(\.code) == [.notYetValid, .expired])
        #expect(failures?.map(\.certificate) == [1, 2])
    }

    @Test func refusesAValidityPeriodThatEndsBeforeItStarts() async {
        let root = PKI.root()
        let leaf = root.leaf(notValidBefore: PKI.now.addingTimeInterval(3600), notValidAfter: PKI.now.addingTimeInterval(-3600))
        let failures = await RuleProbe.failures(ValidityRule(), leaf: leaf, anchors: [root])
        #expect(failures?.map(\.code) == [.malformedCertificate])
        #expect(failures?.first?.message.contains("can never be valid") == true)
    }

    @Test func theEngineUsesTheGivenValidationTime() async {
        let (root, intermediate, leaf) = PKI.chain()
        let before = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], at: PKI.notBefore.addingTimeInterval(-1)))
        #expect(Set(before.codes) == [.notYetValid])
        #expect(before.failures.map(\.certificate) == [0, 1, 2])
        let after = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], at: PKI.notAfter.addingTimeInterval(1)))
        #expect(after.codes == [.expired, .expired, .expired])
        #expect(await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], at: PKI.notAfter)).isTrusted)
    }

    @Test func theEngineDefaultsToNow() async {
        let (root, intermediate, leaf) = PKI.chain()
        var trust = PKI.trust([leaf, intermediate], anchors: [root])
        trust.validationTime = nil
        #expect(await PKI.evaluate(trust).isTrusted)
        let expired = root.intermediate("Expired CA", notValidBefore: Date().addingTimeInterval(-7200), notValidAfter: Date().addingTimeInterval(-3600))
        var old = PKI.trust([expired.leaf(), expired], anchors: [root])
        old.validationTime = nil
        #expect(await PKI.evaluate(old).codes == [.expired])
    }
}
