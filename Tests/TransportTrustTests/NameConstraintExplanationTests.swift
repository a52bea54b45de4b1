import SwiftASN1
import TestSupport
import Testing
import X509

@testable import TransportTrust

/// The name a refusal names: matching under RFC 5280 §4.2.1.10, and how subtrees are written.
@Suite struct NameConstraintExplanationTests {
    static func ip(_ bytes: [UInt8]) -> GeneralName { .ipAddress(ASN1OctetString(contentBytes: bytes[...])) }

    @Test func dnsSubtreesCoverTheNameAndItsSubdomains() {
        let covers = NameConstraintExplanation.covers
        #expect(covers(.dnsName("example.com"), .dnsName("example.com")) == true)
        #expect(covers(.dnsName("example.com"), .dnsName("WWW.Example.COM")) == true)
        #expect(covers(.dnsName("example.com"), .dnsName("*.example.com")) == true)
        #expect(covers(.dnsName("example.com"), .dnsName("badexample.com")) == false, "a suffix is not a subdomain")
        #expect(covers(.dnsName(".example.com"), .dnsName("example.com")) == false, "a leading period means subdomains only")
        #expect(covers(.dnsName(".example.com"), .dnsName("www.example.com")) == true)
        #expect(covers(.dnsName(""), .dnsName("anything.test")) == true)
        #expect(covers(.dnsName("example.com"), .dnsName(".example.com")) == false, "an empty label is no host name")
        #expect(covers(.dnsName("example.com"), Self.ip([192, 0, 2, 1])) == nil, "different kinds")
    }

    @Test func ipSubtreesCoverByMask() {
        let covers = NameConstraintExplanation.covers
        let v4 = Self.ip([10, 0, 0, 0, 255, 0, 0, 0])
        #expect(covers(v4, Self.ip([10, 9, 8, 7])) == true)
        #expect(covers(v4, Self.ip([11, 0, 0, 1])) == false)
        #expect(covers(v4, Self.ip([UInt8](repeating: 0, count: 15) + [1])) == false, "a v4 range never covers a v6 address")
        #expect(covers(v4, Self.ip(Array("127.0.0.1".utf8))) == false, "an address of the wrong length is covered by nothing")
        let v6 = Self.ip([0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 12) + [0xff, 0xff, 0xff, 0xff] + [UInt8](repeating: 0, count: 12))
        #expect(covers(v6, Self.ip([0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 7, count: 12))) == true)
        #expect(covers(v6, Self.ip([0x20, 0x01, 0x0d, 0xb9] + [UInt8](repeating: 0, count: 12))) == false)
    }

    @Test func subtreesAndAddressesAreWrittenAsPeopleWriteThem() {
        let text = NameConstraintExplanation.text
        #expect(text(.dnsName("example.com")) == "example.com")
        #expect(text(.dnsName("")) == "every DNS name")
        #expect(text(Self.ip([192, 0, 2, 1])) == "192.0.2.1")
        #expect(text(Self.ip([192, 0, 2, 0, 255, 255, 255, 0])) == "192.0.2.0/24")
        #expect(text(Self.ip([0, 0, 0, 0, 0, 0, 0, 0])) == "0.0.0.0/0")
        #expect(text(Self.ip([10, 0, 0, 0, 255, 0, 255, 0])) == "10.0.0.0 mask 255.0.255.0", "a mask with a gap has no prefix length")
        #expect(text(Self.ip([0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 12) + [0xff, 0xff, 0xff, 0xff] + [UInt8](repeating: 0, count: 12)))
                == "2001:db8::/32")
        #expect(text(Self.ip(Array("127.0.0.1".utf8))) == "a 9-byte iPAddress (3132372e302e302e31)")
        #expect(text(.rfc822Name("a@example.com")) == nil)
    }

    /// A self-issued intermediate's names are exempt (RFC 5280 §6.1.3); the leaf's are the ones named.
    @Test func namesTheFirstNameOutsideTheCarriersSubtrees() throws {
        let root = PKI.root()
        let ca = root.intermediate("Example CA", nameConstraints: NameConstraints(permittedDNSDomains: ["example.com"],
                                                                                   excludedDNSDomains: ["secret.example.com"]))
        let memo = ExtensionMemo()
        func explain(_ leaf: TestCert) throws -> String? {
            let chain = try #require(UnverifiedCertificateChain.assembled([leaf.certificate, ca.certificate, root.certificate]))
            return NameConstraintExplanation.offendingName(in: chain, carrier: 1, extensions: memo)
        }
        let outside = ca.leaf(dns: ["www.example.com", "www.example.org"])
        #expect(try explain(outside) == "\(outside.label) names www.example.org, outside the DNS names \(ca.label) permits (example.com)")
        let excluded = ca.leaf(dns: ["db.secret.example.com"])
        #expect(try explain(excluded) == "\(excluded.label) names db.secret.example.com, which \(ca.label) excludes (secret.example.com)")
        #expect(try explain(ca.leaf(dns: ["www.example.com"])) == nil, "nothing to name: the caller keeps swift-certificates' text")
        #expect(try explain(ca.leaf(dns: [], ips: [[192, 0, 2, 1]])) == nil, "no IP subtree, so an address is not constrained")

        // The same CA re-keyed, issued by itself, with a name outside its own subtrees: exempt, so not named.
        let rekeyed = ca.intermediate("Example CA", extra: [
            try Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.org")]), critical: false),
        ])
        #expect(rekeyed.certificate.subject == ca.certificate.subject)
        let leaf = rekeyed.leaf(dns: ["www.example.com"])
        let chain = try #require(UnverifiedCertificateChain.assembled([leaf.certificate, rekeyed.certificate, ca.certificate, root.certificate]))
        #expect(NameConstraintExplanation.offendingName(in: chain, carrier: 2, extensions: memo) == nil)
        let wrongLeaf = rekeyed.leaf(dns: ["www.example.net"])
        let wrong = try #require(UnverifiedCertificateChain.assembled([wrongLeaf.certificate, rekeyed.certificate, ca.certificate, root.certificate]))
        #expect(NameConstraintExplanation.offendingName(in: wrong, carrier: 2, extensions: memo)
                == "\(wrongLeaf.label) names www.example.net, outside the DNS names \(ca.label) permits (example.com)")
    }
}
