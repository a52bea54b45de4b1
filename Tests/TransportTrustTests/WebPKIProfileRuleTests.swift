import Testing
@testable import TransportTrust

@Suite struct WebPKIProfileRuleTests {
    @Test(arguments: [
        ("0xC0A80101", "192.168.1.1"),
        ("192.168.001.001", "192.168.1.1"),
        ("2001:DB8::8A2E:370:7334", "2001:db8::8a2e:370:7334"),
        ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
        ("Example.COM", "example.com"),
        ("Bücher.Example", "xn--bcher-kva.example"),
    ])
    func canonicalHostFoldsLooseSpellings(cn: String, canonical: String) {
        #expect(WebPKIProfileRule.canonicalHost(cn) == canonical)
    }

    @Test func canonicalHostRejectsNonHosts() {
        #expect(WebPKIProfileRule.canonicalHost("My Server") == nil)
    }
}
