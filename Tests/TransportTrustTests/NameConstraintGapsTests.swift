import TestSupport
import Foundation
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

/// Name constraints swift-certificates refuses instead of evaluating (RFC 5280 §4.2.1.10): directoryName subtrees,
/// and subtrees of types it has no matcher for.
@Suite struct NameConstraintGapsTests {
    func evaluate(_ chain: [TestCert], anchors: [TestCert], host: String = "www.example.com") async -> TrustVerdict {
        await PKI.evaluate(PKI.trust(chain, anchors: anchors, policy: PKI.ssl(host)))
    }

    static func dn(_ attributes: [(ASN1ObjectIdentifier, String)]) -> DistinguishedName {
        DistinguishedName(attributes.map { RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: $0.0, utf8String: $0.1)) })
    }

    static let organization = dn([(.RDNAttributeType.organizationName, "Transport Trust Tests")])

    @Test func anExcludedSubtreeCoversEveryNameBelowIt() async {
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(excludedSubtrees: [.directoryName(Self.organization)]))
        let v = await evaluate([ca.leaf("leaf"), ca], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message.contains("the subject of \(ca.leaf("leaf").label) is within 'O=Transport Trust Tests'"), "\(v.failures[0].message)")
        let elsewhere = ca.leaf(subject: PKI.name("leaf", organization: "Elsewhere"))
        #expect(await evaluate([elsewhere, ca], anchors: [root]).isTrusted)
    }

    @Test func excludedValuesMatchWhateverTheirCaseAndSpacing() async {
        let root = PKI.root()
        let loose = Self.dn([(.RDNAttributeType.organizationName, "  transport   TRUST tests ")])
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(excludedSubtrees: [.directoryName(loose)]))
        #expect(await evaluate([ca.leaf(), ca], anchors: [root]).codes == [.nameConstraints])
    }

    @Test func aPermittedSubtreeAdmitsOnlyNamesBelowIt() async {
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(permittedSubtrees: [.directoryName(Self.organization)]))
        #expect(await evaluate([ca.leaf(), ca], anchors: [root]).isTrusted)
        let v = await evaluate([ca.leaf(subject: PKI.name("leaf", organization: "Elsewhere")), ca], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message.contains("outside the directory names \(ca.label) permits"), "\(v.failures[0].message)")
    }

    @Test func directoryNameSANsAreConstrainedToo() async {
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(permittedSubtrees: [.directoryName(Self.organization)]))
        let inside = ca.leaf(sans: [.dnsName("www.example.com"), .directoryName(PKI.name("alias"))])
        #expect(await evaluate([inside, ca], anchors: [root]).isTrusted)
        let outside = ca.leaf(sans: [.dnsName("www.example.com"), .directoryName(PKI.name("alias", organization: "Elsewhere"))])
        let v = await evaluate([outside, ca], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].message.contains("has the directoryName SAN '\(PKI.name("alias", organization: "Elsewhere"))' is outside"), "\(v.failures[0].message)")
    }

    /// The DNS subtree is checked by swift-certificates, on a copy of the chain without the subtree left to us: a
    /// directoryName one, or an rfc822Name one that no certificate below uses.
    @Test(arguments: [
        NameConstraints(permittedSubtrees: [.directoryName(NameConstraintGapsTests.organization), .dnsName("example.com")]),
        NameConstraints(permittedSubtrees: [.dnsName("example.com")], excludedSubtrees: [.rfc822Name("example.com")]),
    ])
    func theDNSSubtreeStillAppliesBesideASubtreeLeftToUs(_ constraints: NameConstraints) async {
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: constraints)
        #expect(await evaluate([ca.leaf(dns: ["www.example.com"]), ca], anchors: [root]).isTrusted)
        let leaf = ca.leaf(dns: ["www.example.net"])
        let v = await evaluate([leaf, ca], anchors: [root], host: "www.example.net")
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message == "\(leaf.label) names www.example.net, outside the DNS names \(ca.label) permits (example.com)")
    }

    @Test func aRootsSubtreeIsInheritedDownTheChain() async {
        let root = PKI.root("Root", nameConstraints: NameConstraints(excludedSubtrees: [.directoryName(PKI.name("banned"))]))
        let ca = root.intermediate("CA")
        #expect(await evaluate([ca.leaf("fine"), ca], anchors: [root]).isTrusted)
        let v = await evaluate([ca.leaf("banned"), ca], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].certificate == 2)
    }

    @Test func valuesThatCannotBeReadCountAsEqualOnlyWhenExcluding() throws {
        let teletex = try RelativeDistinguishedName.Attribute(type: .RDNAttributeType.commonName,
                                                              value: ASN1Any(erasing: ASN1TeletexString(contentBytes: Array("leaf".utf8)[...])))
        let name = DistinguishedName([RelativeDistinguishedName(teletex)])
        let subtree = Self.dn([(.RDNAttributeType.commonName, "leaf")])
        #expect(NameConstraintGaps.isWithin(name, subtree, excluding: true))
        #expect(!NameConstraintGaps.isWithin(name, subtree, excluding: false))
        // A BMPString is read, and compared as RFC 5280 §7.1 asks, both ways.
        let bmp = try RelativeDistinguishedName.Attribute(type: .RDNAttributeType.commonName, value: ASN1Any(erasing: ASN1BMPString("LEAF")))
        let wide = DistinguishedName([RelativeDistinguishedName(bmp)])
        #expect(NameConstraintGaps.isWithin(wide, subtree, excluding: false))
        #expect(!NameConstraintGaps.isWithin(wide, Self.dn([(.RDNAttributeType.commonName, "other")]), excluding: true))
        // An empty subtree is the whole namespace; a longer subtree never contains a shorter name.
        #expect(NameConstraintGaps.isWithin(name, DistinguishedName(), excluding: false))
        #expect(!NameConstraintGaps.isWithin(subtree, PKI.name("leaf"), excluding: true))
    }

    @Test func hugeRelativeNamesAreRefusedWithinABoundedNumberOfComparisons() async {
        // One RDN of 300 attributes against a subtree of one RDN of 300: 180,000 comparisons, over the budget.
        func wide(_ prefix: String) -> DistinguishedName {
            DistinguishedName([RelativeDistinguishedName((0..<300).map {
                RelativeDistinguishedName.Attribute(type: .RDNAttributeType.organizationalUnitName, utf8String: "\(prefix) \($0)")
            })])
        }
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(excludedSubtrees: [.directoryName(wide("banned"))]))
        let leaf = ca.leaf(subject: wide("unit"))
        let v = await evaluate([leaf, ca], anchors: [root])
        #expect(!v.isTrusted)
        #expect(v.failures.first { $0.code == .nameConstraints }?.message.contains("too large to check") == true, "\(v.failures)")
    }

    // MARK: Subtrees of types swift-certificates cannot match

    static let otherName = GeneralName.otherName(.init(typeID: [1, 3, 6, 1, 4, 1, 55738, 666, 1], value: try! ASN1Any(erasing: ASN1Null())))

    @Test func anOtherNameSubtreeWithNoOtherNameBelowItIsANoOp() async {
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(excludedSubtrees: [Self.otherName]))
        #expect(await evaluate([ca.leaf(), ca], anchors: [root]).isTrusted)
        // With an otherName below, the subtree applies, and swift-certificates cannot match it: refused.
        let carrier = ca.leaf(sans: [.dnsName("www.example.com"), Self.otherName])
        let v = await evaluate([carrier, ca], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].certificate == 1)
    }

    @Test func anEmailSubtreeAppliesToASubjectEmailAddressToo() async throws {
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(permittedEmailAddresses: ["example.com"]))
        #expect(await evaluate([ca.leaf(), ca], anchors: [root]).isTrusted)
        let inside = try DistinguishedName {
            CommonName("leaf")
            EmailAddress("ops@example.com")
        }
        #expect(await evaluate([ca.leaf(subject: inside), ca], anchors: [root]).isTrusted)
        let outside = try DistinguishedName {
            CommonName("leaf")
            EmailAddress("ops@example.org")
        }
        let v = await evaluate([ca.leaf(subject: outside), ca], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].message.contains("the subject emailAddress 'ops@example.org'"), "\(v.failures[0].message)")
    }

    // MARK: Self-issued intermediates

    @Test func theNamesOfASelfIssuedIntermediateAreExempt() async throws {
        // RFC 5280 §6.1.3: a CA's certificate to itself (a key rollover) is not checked against the constraints above.
        let root = PKI.root("Root", nameConstraints: NameConstraints(permittedDNSDomains: ["example.com"]))
        let rollover = PKI.issue(subject: root.subject, key: .p256(), issuer: root, extensions: [
            try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
            try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
            try Certificate.Extension(SubjectAlternativeNames([.dnsName("not-example.com")]), critical: false),
        ])
        let v = await evaluate([rollover.leaf(dns: ["www.example.com"]), rollover], anchors: [root])
        #expect(v.isTrusted, "\(v.failures)")
        // The constraints still reach the certificates below it.
        let outside = await evaluate([rollover.leaf(dns: ["www.example.net"]), rollover], anchors: [root], host: "www.example.net")
        #expect(outside.codes == [.nameConstraints])
        // An intermediate that is not self-issued gets no such exemption.
        let other = root.intermediate("Other CA", extra: [try Certificate.Extension(SubjectAlternativeNames([.dnsName("not-example.com")]), critical: false)])
        #expect(await evaluate([other.leaf(dns: ["www.example.com"]), other], anchors: [root]).codes == [.nameConstraints])
    }
}
