import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

/// rfc822Name and URI name constraints, as RFC 5280 §4.2.1.10 defines their matching.
@Suite struct NameConstraintMatchingTests {
    func evaluate(_ chain: [TestCert], anchors: [TestCert]) async -> TrustVerdict {
        await PKI.evaluate(PKI.trust(chain, anchors: anchors, policy: .basicX509))
    }

    @Test(arguments: [
        ("ops@example.com", "example.com", true),
        ("ops@EXAMPLE.com", "example.com", true),
        ("ops@mail.example.com", "example.com", false),
        ("ops@mail.example.com", ".example.com", true),
        ("ops@example.com", ".example.com", false),
        ("ops@example.com", "ops@example.com", true),
        ("ops@Example.COM", "ops@example.com", true),
        ("Ops@example.com", "ops@example.com", false),
        ("ops@example.com", "dev@example.com", false),
        ("\"a@b\"@example.com", "example.com", true),
        ("ops@badexample.com", ".example.com", false),
        // One trailing dot names the same host, in the address or the constraint.
        ("ceo@evil.com.", "evil.com", true),
        ("ceo@evil.com", "evil.com.", true),
        ("ceo@mail.evil.com.", ".evil.com", true),
        ("ceo@evil.com.", "ceo@evil.com", true),
        ("ceo@evil.com.", "other.com", false),
    ])
    func emailMatching(_ address: String, _ constraint: String, _ expected: Bool) {
        #expect(NameConstraintMatching.emailMatches(address, constraint) == expected)
    }

    @Test func anAddressWithoutAMailboxIsUncertain() {
        #expect(NameConstraintMatching.emailMatches("example.com", "example.com") == nil)
        #expect(NameConstraintMatching.emailMatches("ops@", "example.com") == nil)
        // An empty label is not a host DNS would resolve the way the constraint reads it.
        #expect(NameConstraintMatching.emailMatches("ops@example..com", "example.com") == nil)
        #expect(NameConstraintMatching.emailMatches("ops@.example.com", ".example.com") == nil)
        #expect(NameConstraintMatching.emailMatches("ops@example.com..", "example.com") == nil)
        #expect(NameConstraintMatching.matches("https://www..evil.com/", ".evil.com", .uri) == nil)
    }

    @Test(arguments: [
        ("https://host.example.com/path", "host.example.com", true),
        ("https://HOST.example.com:8443/", "host.example.com", true),
        ("https://www.host.example.com/", "host.example.com", false),
        ("https://www.example.com/", ".example.com", true),
        ("https://example.com/", ".example.com", false),
        ("ldap://user@ldap.example.com/cn=x", ".example.com", true),
        ("https://www.evil.com./", ".evil.com", true),
        ("https://evil.com./", "evil.com", true),
        ("https://www.evil.com/", ".evil.com.", true),
    ])
    func uriMatching(_ uri: String, _ constraint: String, _ expected: Bool) {
        #expect(NameConstraintMatching.matches(uri, constraint, .uri) == expected)
    }

    @Test func aURIWithoutAHostNameHasNoHost() {
        #expect(NameConstraintMatching.host(ofURI: "urn:example:thing") == nil)
        #expect(NameConstraintMatching.host(ofURI: "https://192.0.2.1/") == nil)
        #expect(NameConstraintMatching.host(ofURI: "https://[2001:db8::1]/") == nil)
        #expect(NameConstraintMatching.host(ofURI: "mailto:ops@example.com") == nil)
    }

    // MARK: On a chain

    @Test func aPermittedEmailDomainAdmitsAddressesBelowIt() async {
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(permittedSubtrees: [.rfc822Name(".example.com")]))
        #expect(await evaluate([ca.leaf(sans: [.rfc822Name("ops@mail.example.com")]), ca], anchors: [root]).isTrusted)
        let outside = ca.leaf(sans: [.rfc822Name("ops@example.com")])
        let v = await evaluate([outside, ca], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message == "the rfc822Name SAN 'ops@example.com' of \(outside.label) is outside the email addresses (rfc822Name) \(ca.label) permits (.example.com)")
    }

    @Test func anExcludedMailboxRefusesOnlyThatMailbox() async {
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(excludedSubtrees: [.rfc822Name("ceo@example.com")]))
        #expect(await evaluate([ca.leaf(sans: [.rfc822Name("ops@example.com")]), ca], anchors: [root]).isTrusted)
        let v = await evaluate([ca.leaf(sans: [.rfc822Name("ceo@EXAMPLE.com")]), ca], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].message.contains("is within ceo@example.com, which \(ca.label) excludes"), "\(v.failures[0].message)")
    }

    /// `evil.com.` is the host evil.com: a trailing dot does not get a mailbox or a URI past an exclusion.
    @Test func aTrailingDotDoesNotGetPastAnExcludedHost() async {
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(excludedSubtrees: [.rfc822Name("evil.com"), .uniformResourceIdentifier(".evil.com")]))
        for san in [GeneralName.rfc822Name("ceo@evil.com."), .uniformResourceIdentifier("https://www.evil.com./")] {
            let v = await evaluate([ca.leaf(sans: [san]), ca], anchors: [root])
            #expect(v.codes == [.nameConstraints], "\(san): \(v.failures)")
            #expect(v.failures.first?.message.contains("which \(ca.label) excludes") == true, "\(v.failures)")
        }
        #expect(await evaluate([ca.leaf(sans: [.rfc822Name("ceo@good.com."), .uniformResourceIdentifier("https://www.good.com./")]), ca], anchors: [root]).isTrusted)
    }

    @Test func aURIConstraintIsAHostOrADomain() async {
        let root = PKI.root()
        let host = root.intermediate("Host CA", nameConstraints: NameConstraints(permittedSubtrees: [.uniformResourceIdentifier("host.example.com")]))
        #expect(await evaluate([host.leaf(sans: [.uniformResourceIdentifier("https://host.example.com/a")]), host], anchors: [root]).isTrusted)
        // swift-certificates would admit this as a DNS name below host.example.com; RFC 5280 makes it one host.
        let below = await evaluate([host.leaf(sans: [.uniformResourceIdentifier("https://www.host.example.com/")]), host], anchors: [root])
        #expect(below.codes == [.nameConstraints], "\(below.failures)")
        let domain = root.intermediate("Domain CA", nameConstraints: NameConstraints(excludedSubtrees: [.uniformResourceIdentifier(".example.com")]))
        #expect(await evaluate([domain.leaf(sans: [.uniformResourceIdentifier("https://example.com/")]), domain], anchors: [root]).isTrusted)
        #expect(await evaluate([domain.leaf(sans: [.uniformResourceIdentifier("https://www.example.com/")]), domain], anchors: [root]).codes == [.nameConstraints])
    }

    @Test func aURIWithoutAHostIsRefusedUnderAnyURIConstraint() async {
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(excludedSubtrees: [.uniformResourceIdentifier(".example.net")]))
        let leaf = ca.leaf(sans: [.uniformResourceIdentifier("urn:example:thing")])
        let v = await evaluate([leaf, ca], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].message.contains("has no host name"), "\(v.failures[0].message)")
    }

    /// Other constraint types still apply beside ours: the DNS subtree is swift-certificates', the email one ours.
    @Test func dnsAndEmailSubtreesApplyTogether() async {
        let root = PKI.root()
        let ca = root.intermediate("CA", nameConstraints: NameConstraints(permittedSubtrees: [.dnsName("example.com"), .rfc822Name("example.com")]))
        #expect(await evaluate([ca.leaf(sans: [.dnsName("www.example.com"), .rfc822Name("ops@example.com")]), ca], anchors: [root]).isTrusted)
        #expect(await evaluate([ca.leaf(sans: [.dnsName("www.example.net"), .rfc822Name("ops@example.com")]), ca], anchors: [root]).codes == [.nameConstraints])
        #expect(await evaluate([ca.leaf(sans: [.dnsName("www.example.com"), .rfc822Name("ops@example.net")]), ca], anchors: [root]).codes == [.nameConstraints])
    }
}
