import TestSupport
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

@Suite struct ParsedExtensionsTests {
    let root = PKI.root()

    @Test func tellsAbsentFromReadFromUnreadable() {
        let broken = Certificate.Extension(oid: .X509ExtensionID.keyUsage, critical: true, value: [0x04, 0x01, 0x00])
        let parsed = ParsedExtensions(root.leaf(dns: ["a.example"], keyUsage: nil, extra: [broken]).certificate)
        #expect(parsed.keyUsage.isUnreadable)
        #expect(parsed.keyUsage.value == nil)
        #expect(parsed.subjectAlternativeNames.value.map(Array.init) == [.dnsName("a.example")])
        if case .absent = parsed.nameConstraints {} else { Issue.record("a leaf without nameConstraints read as \(parsed.nameConstraints)") }
        #expect(parsed.unreadable == "keyUsage")
        #expect(!parsed.isCA)
    }

    @Test func anEmptyAccessListIsUnreadable() throws {
        // RFC 5280 §4.2.2.1 asks for at least one access description; swift-certificates reads none as empty.
        let empty = try Certificate.Extension(AuthorityInformationAccess([]), critical: false)
        #expect(ParsedExtensions(root.leaf(extra: [empty]).certificate).unreadable == "authorityInformationAccess")
        #expect(ParsedExtensions(root.leaf().certificate).unreadable == nil)
    }

    @Test func aCAIsReadFromBasicConstraints() {
        let ca = root.intermediate("Memo CA")
        #expect(ParsedExtensions(ca.certificate).isCA)
        #expect(ParsedExtensions(root.certificate).isCA)
    }

    @Test func theMemoParsesEachCertificateOnce() {
        let memo = ExtensionMemo()
        let leaf = root.leaf(dns: ["one.example"]).certificate
        let other = root.leaf(dns: ["two.example"]).certificate
        #expect(memo(leaf) === memo(leaf))
        #expect(memo(leaf) !== memo(other))
        #expect(memo(other).subjectAlternativeNames.value.map(Array.init) == [.dnsName("two.example")])
    }

    @Test func copiesOfAContextShareOneMemo() {
        let context = RuleContext(validationTime: .now, anchorIsSystem: true)
        var copy = context
        copy.anchorIsSystem = false
        #expect(context.extensions === copy.extensions)
    }
}
