import TestSupport
import Testing

@testable import TransportTrust

@Suite struct PeerNameTests {
    @Test(arguments: [
        ("www.example.com", "www.example.com"),
        ("WWW.Example.COM", "www.example.com"),
        ("www.example.com.", "www.example.com"),
        ("Bücher.Example", "xn--bcher-kva.example"),
        ("münchen.de", "xn--mnchen-3ya.de"),
        ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("_dmarc.example.com", "_dmarc.example.com"),
    ])
    func canonicalisesDNSNamesToLowercaseALabels(input: String, canonical: String) throws {
        #expect(try PeerName(input) == .dns(canonical))
        #expect(try PeerName(input).description == canonical)
        #expect(try !PeerName(input).isIPAddress)
    }

    @Test func parsesIPv4Literals() throws {
        #expect(try PeerName("192.0.2.1") == .ip([192, 0, 2, 1]))
        #expect(try PeerName("255.255.255.255") == .ip([255, 255, 255, 255]))
        #expect(try PeerName("192.0.2.1").isIPAddress)
        #expect(try PeerName("192.0.2.1").description == "192.0.2.1")
    }

    @Test func doesNotReadLooseIPv4SpellingsAsAddresses() throws {
        // Leading zeros (octal in inet_aton) and out-of-range octets are not IPv4 literals.
        #expect(try !PeerName("192.000.2.1").isIPAddress)
        #expect(try !PeerName("256.0.0.1").isIPAddress)
        #expect(try !PeerName("1.2.3").isIPAddress)
    }

    @Test func parsesIPv6LiteralsToSixteenBytes() throws {
        let v6: [UInt8] = [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]
        #expect(try PeerName("2001:db8::1") == .ip(v6))
        #expect(try PeerName("[2001:db8::1]") == .ip(v6))
        #expect(try PeerName("2001:0DB8:0000:0000:0000:0000:0000:0001") == .ip(v6))
        #expect(try PeerName("fe80::1%eth0") == .ip([0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [1]))
        #expect(try PeerName("::") == .ip([UInt8](repeating: 0, count: 16)))
        #expect(try PeerName("::ffff:192.0.2.1") == .ip([UInt8](repeating: 0, count: 10) + [0xff, 0xff, 192, 0, 2, 1]))
        #expect(try PeerName("2001:db8::1").description == "2001:db8::1")
        #expect(try PeerName("2001:db8:0:0:1:0:0:1").description == "2001:db8::1:0:0:1")
    }

    @Test func refusesMalformedNamesSayingWhy() {
        #expect(throws: PeerNameError.empty) { try PeerName("") }
        #expect(throws: PeerNameError.empty) { try PeerName(".") }
        #expect(throws: PeerNameError.emptyLabel("a..example.com")) { try PeerName("a..example.com") }
        #expect(throws: PeerNameError.emptyLabel(".example.com")) { try PeerName(".example.com") }
        let longLabel = String(repeating: "a", count: 64) + ".com"
        #expect(throws: PeerNameError.labelTooLong(longLabel)) { try PeerName(longLabel) }
        let longName = Array(repeating: String(repeating: "a", count: 60), count: 5).joined(separator: ".")
        #expect(throws: PeerNameError.tooLong(longName)) { try PeerName(longName) }
        #expect(throws: PeerNameError.invalidCharacter("exa mple.com")) { try PeerName("exa mple.com") }
        #expect(throws: PeerNameError.invalidCharacter("example.com/path")) { try PeerName("example.com/path") }
        #expect(throws: PeerNameError.invalidIP("1:2:3")) { try PeerName("1:2:3") }
        #expect(throws: PeerNameError.invalidIP("2001:db8::1::2")) { try PeerName("2001:db8::1::2") }
        #expect(throws: PeerNameError.invalidIP("12345::1")) { try PeerName("12345::1") }
    }

    @Test func errorMessagesNameTheInput() {
        #expect(PeerNameError.invalidCharacter("exa mple.com").description.contains("'exa mple.com'"))
        #expect(PeerNameError.empty.description.contains("give a DNS name"))
    }
}
