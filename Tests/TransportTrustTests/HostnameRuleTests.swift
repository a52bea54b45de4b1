import TestSupport
import Foundation
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

/// The SSL policy's name check, through the engine: SAN only, RFC 6125 wildcards, A-labels, byte-wise IPs.
@Suite struct HostnameRuleTests {
    let pki = PKI.chain()

    func verdict(host: String, leaf: TestCert) async -> TrustVerdict {
        await PKI.evaluate(PKI.trust([leaf, pki.intermediate], anchors: [pki.root], policy: PKI.ssl(host)))
    }

    func leaf(dns: [String] = [], ips: [[UInt8]] = [], cn: String = "leaf") -> TestCert {
        pki.intermediate.leaf(cn, dns: dns, ips: ips)
    }

    @Test func matchesASubjectAltNameDNSName() async {
        let cert = leaf(dns: ["api.example.com", "www.example.com"])
        #expect(await verdict(host: "www.example.com", leaf: cert).isTrusted)
        #expect(await verdict(host: "WWW.EXAMPLE.COM.", leaf: cert).isTrusted)
        let other = await verdict(host: "mail.example.com", leaf: cert)
        #expect(other.codes == [.hostnameMismatch])
        #expect(other.failures[0].certificate == 0)
        #expect(other.failures[0].message.contains("mail.example.com"))
        #expect(other.failures[0].message.contains("DNS:api.example.com, DNS:www.example.com"), "\(other.failures[0].message)")
    }

    /// The names a server's certificate lists are the server's text: they are escaped before they reach a terminal.
    @Test func theNamesListedInARefusalCannotRewriteTheTerminal() async {
        let cert = leaf(dns: ["a\n\u{1B}[2J.example.com"])
        let message = await verdict(host: "www.example.com", leaf: cert).failures.first?.message ?? ""
        #expect(message.contains("DNS:a\\n\\u{1B}[2J.example.com") && !message.contains("\u{1B}"), "\(message)")
    }

    @Test func neverFallsBackToTheCommonName() async {
        let cnOnly = pki.intermediate.leaf("www.example.com", dns: [])
        let v = await verdict(host: "www.example.com", leaf: cnOnly)
        #expect(v.codes == [.hostnameMismatch])
        #expect(v.failures[0].message.contains("has no subjectAltName"), "\(v.failures[0].message)")
        #expect(v.failures[0].message.contains("common name is not used"))

        let cnAndOtherSAN = pki.intermediate.leaf("www.example.com", dns: ["other.example.com"])
        #expect(await verdict(host: "www.example.com", leaf: cnAndOtherSAN).codes == [.hostnameMismatch])
    }

    @Test func ignoresSANEntriesThatAreNotNames() async {
        let emailOnly = pki.intermediate.leaf(sans: [.rfc822Name("www.example.com"), .uniformResourceIdentifier("https://www.example.com/")])
        let v = await verdict(host: "www.example.com", leaf: emailOnly)
        #expect(v.codes == [.hostnameMismatch])
        #expect(v.failures[0].message.contains("no DNS or IP names"), "\(v.failures[0].message)")
    }

    @Test func appliesWildcardRules() async {
        let wildcard = leaf(dns: ["*.example.com"])
        #expect(await verdict(host: "api.example.com", leaf: wildcard).isTrusted)
        #expect(await verdict(host: "example.com", leaf: wildcard).codes == [.hostnameMismatch])
        #expect(await verdict(host: "a.b.example.com", leaf: wildcard).codes == [.hostnameMismatch])
        #expect(await verdict(host: "bücher.example.com", leaf: wildcard).codes == [.hostnameMismatch])

        #expect(await verdict(host: "example.com", leaf: leaf(dns: ["*.com"])).codes == [.hostnameMismatch])
        #expect(await verdict(host: "example.co.uk", leaf: leaf(dns: ["*.co.uk"])).codes == [.hostnameMismatch])
        #expect(await verdict(host: "localhost", leaf: leaf(dns: ["*"])).codes == [.hostnameMismatch])
        #expect(await verdict(host: "foo.example.com", leaf: leaf(dns: ["f*.example.com"])).codes == [.hostnameMismatch])
    }

    @Test func aWildcardOverAPrivateSuffixIsTrustedUnderTheStandardProfileOnly() async {
        let pages = leaf(dns: ["*.github.io"])
        #expect(await verdict(host: "foo.github.io", leaf: pages).isTrusted)
        var strict = PKI.ssl("foo.github.io")
        strict.profile = .webPKI
        let v = await PKI.evaluate(PKI.trust([pages, pki.intermediate], anchors: [pki.root], policy: strict))
        #expect(v.codes == [.hostnameMismatch])
    }

    @Test func comparesInternationalNamesInALabelForm() async {
        let idn = leaf(dns: ["xn--bcher-kva.example"])
        #expect(await verdict(host: "bücher.example", leaf: idn).isTrusted)
        #expect(await verdict(host: "Bücher.Example", leaf: idn).isTrusted)
        #expect(await verdict(host: "xn--bcher-kva.example", leaf: idn).isTrusted)
        #expect(await verdict(host: "bucher.example", leaf: idn).codes == [.hostnameMismatch])
    }

    @Test func comparesIPv4AddressesByteWise() async {
        let cert = leaf(dns: ["www.example.com"], ips: [[192, 0, 2, 10]])
        #expect(await verdict(host: "192.0.2.10", leaf: cert).isTrusted)
        #expect(await verdict(host: "192.0.2.11", leaf: cert).codes == [.hostnameMismatch])
        // An address written as a dNSName does not count.
        let asDNS = leaf(dns: ["192.0.2.10"])
        let spelled = await verdict(host: "192.0.2.10", leaf: asDNS)
        #expect(spelled.codes == [.hostnameMismatch])
        // The message tells the two apart, or it would say the certificate names exactly what it was refused for.
        let message = spelled.failures.first?.message ?? ""
        #expect(message.contains("it names DNS:192.0.2.10") && message.contains("reissued with IP:192.0.2.10"), "\(message)")
        #expect(await verdict(host: "192.0.2.11", leaf: cert).failures.first?.message.contains("DNS:www.example.com, IP:192.0.2.10") == true)
        // Nor with a trailing dot, which makes the dotted quad no DNS name.
        #expect(await verdict(host: "192.0.2.10.", leaf: asDNS).codes == [.hostnameMismatch])
        #expect(await verdict(host: "192.0.2.10.", leaf: leaf(dns: ["*.0.2.10"])).codes == [.hostnameMismatch])
        #expect(await verdict(host: "192.0.2.10.", leaf: cert).isTrusted)
        // Nor does a DNS host match an iPAddress entry.
        #expect(await verdict(host: "www.example.com", leaf: leaf(ips: [[192, 0, 2, 10]])).codes == [.hostnameMismatch])
    }

    @Test func comparesIPv6AddressesByteWise() async {
        let v6: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]
        let cert = leaf(ips: [v6])
        #expect(await verdict(host: "2001:db8::1", leaf: cert).isTrusted)
        #expect(await verdict(host: "[2001:0db8:0:0:0:0:0:1]", leaf: cert).isTrusted)
        #expect(await verdict(host: "2001:db8::2", leaf: cert).codes == [.hostnameMismatch])
        // The IPv4-mapped form is a different byte string from the IPv4 address.
        let v4 = leaf(ips: [[192, 0, 2, 1]])
        #expect(await verdict(host: "::ffff:192.0.2.1", leaf: v4).codes == [.hostnameMismatch])
        let mismatch = await verdict(host: "2001:db8::2", leaf: cert)
        #expect(mismatch.failures[0].message.contains("2001:db8::1"), "\(mismatch.failures[0].message)")
    }

    @Test func listsAtMostEightPresentedNames() async {
        let many = leaf(dns: (0..<20).map { "host\($0).example.com" })
        let v = await verdict(host: "www.example.com", leaf: many)
        #expect(v.codes == [.hostnameMismatch])
        #expect(v.failures[0].message.contains("host7.example.com, …"), "\(v.failures[0].message)")
        #expect(!v.failures[0].message.contains("host8.example.com"))
    }
}
