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

    /// Unicode input is NFC-normalised before Punycode, and the full stops UTS #46 maps to '.' separate labels.
    @Test(arguments: [
        ("bu\u{308}cher.example", "xn--bcher-kva.example"),  // u + combining diaeresis
        ("BU\u{308}CHER.example", "xn--bcher-kva.example"),
        ("bücher\u{3002}example", "xn--bcher-kva.example"),  // ideographic full stop
        ("www\u{FF0E}example\u{FF0E}com", "www.example.com"),  // fullwidth full stop
        ("www\u{FF61}example\u{FF61}com\u{FF61}", "www.example.com"),  // halfwidth ideographic full stop, trailing
    ])
    func normalisesUnicodeAsBrowsersDo(input: String, canonical: String) throws {
        #expect(try PeerName(input) == .dns(canonical))
    }

    @Test func mapsFullStopsInAnAddressToo() throws {
        #expect(try PeerName("192\u{3002}0\u{3002}2\u{3002}1") == .ip([192, 0, 2, 1]))
    }

    @Test func parsesIPv4Literals() throws {
        #expect(try PeerName("192.0.2.1") == .ip([192, 0, 2, 1]))
        #expect(try PeerName("255.255.255.255") == .ip([255, 255, 255, 255]))
        #expect(try PeerName("192.0.2.1").isIPAddress)
        #expect(try PeerName("192.0.2.1").description == "192.0.2.1")
    }

    @Test func aDottedQuadWithATrailingDotIsTheAddress() throws {
        #expect(try PeerName("192.0.2.1.") == .ip([192, 0, 2, 1]))
        #expect(try PeerName("[192.0.2.1]") == .ip([192, 0, 2, 1]))
    }

    /// What URL parsers read as IPv4 and inet_aton accepts, in a form other than the dotted quad: refused, never
    /// a DNS name (which a dNSName SAN such as `127.1` could then match), naming the dotted quad meant.
    @Test(arguments: [
        ("0300.0.2.1", "192.0.2.1"),  // octal
        ("192.000.2.1", "192.0.2.1"),  // leading zeros are octal too
        ("0xc0.0.2.1", "192.0.2.1"),  // hex
        ("127.1", "127.0.0.1"),  // fewer than four parts
        ("10.0.513", "10.0.2.1"),
        ("3221225985", "192.0.2.1"),  // one number
        ("0xC0000201", "192.0.2.1"),
        ("127.1.", "127.0.0.1"),
    ])
    func refusesLegacyIPv4SpellingsNamingTheDottedQuad(input: String, dottedQuad: String) {
        #expect(throws: PeerNameError.legacyIPv4(input, meaning: dottedQuad)) { try PeerName(input) }
        let message = PeerNameError.legacyIPv4(input, meaning: dottedQuad).description
        #expect(message.contains("'\(input)'") && message.contains("write it as the dotted quad \(dottedQuad)"), "\(message)")
    }

    /// No top-level domain is all-numeric (RFC 3696 §2), and URL parsers take such a host for IPv4.
    @Test(arguments: ["256.0.0.1", "1.2.3.4.5", "foo.123", "example.0x1f", "1.2.3.08", "0x"])
    func refusesOtherNamesEndingInANumber(input: String) {
        #expect(throws: PeerNameError.numericLastLabel(input)) { try PeerName(input) }
        #expect(PeerNameError.numericLastLabel(input).description.contains("dotted quad"))
    }

    @Test func aNumberInsideANameIsFine() throws {
        #expect(try PeerName("1.2.3.4.example.com") == .dns("1.2.3.4.example.com"))
        #expect(try PeerName("123.example") == .dns("123.example"))
        #expect(try PeerName("example.0x1g") == .dns("example.0x1g"))
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

    /// A reference identity is one host (RFC 6125 §6.4.3): a wildcard there would match any certificate's.
    @Test(arguments: ["*.example.org", "*", "w*.example.org", "www.*.example.org", "*.example.org."])
    func refusesAWildcard(input: String) {
        #expect(throws: PeerNameError.wildcard(input)) { try PeerName(input) }
    }

    @Test func theWildcardMessageSaysWhatToGive() {
        let message = PeerNameError.wildcard("*.example.org").description
        #expect(message.contains("'*.example.org' has a wildcard") && message.contains("www.example.org") && message.contains("RFC 6125"), "\(message)")
    }

    @Test(arguments: [
        "2001:db8::+1", "-0::1", "2001:db8::-1", "+1::", "::0x1",  // a sign or prefix UInt16(_:radix:) would take
        "1.2.3.4::", "1.2.3.4::1", "::1.2.3.4:1",  // an IPv4 part that does not end the address
        "fe80::1%",  // an empty zone
    ])
    func refusesIPv6SpellingsThatAreNotAddresses(input: String) {
        #expect(throws: PeerNameError.invalidIP(input)) { try PeerName(input) }
    }

    @Test func errorMessagesNameTheInput() {
        #expect(PeerNameError.invalidCharacter("exa mple.com").description.contains("'exa mple.com'"))
        #expect(PeerNameError.empty.description.contains("give a DNS name"))
    }

    /// The ASCII fast path takes only what the full parse accepts as that same DNS name, and leaves every error,
    /// address and numeric last label to it.
    @Test(arguments: [
        "www.example.com", "WWW.Example.COM.", "a", "A.", "_dmarc.example.com", "-a-.b_", "x.y.z.0a", "example.com..",
        ".example.com", "a..b", ".", "", "127.0.0.1", "127.0.0.1.", "127.1", "foo.1", "foo.0x1F", "foo.0X", "0xc0.0.2.1",
        "3221225985", "foo.0x", String(repeating: "a", count: 63) + ".com", String(repeating: "a", count: 64) + ".com",
        [63, 63, 63, 61].map { String(repeating: "b", count: $0) }.joined(separator: "."),
        [63, 63, 63, 62].map { String(repeating: "b", count: $0) }.joined(separator: "."), "ex ample.com",
        "*.example.com", "[::1]", "::1", "bücher.example", "a/b", "a%2e",
    ])
    func theASCIIFastPathAgreesWithTheFullParse(_ host: String) {
        Self.expectAgreement(host)
    }

    // 20,000 full parses compute for a second or more of a debug build without suspending: off the cooperative pool.
    @Test(.cpuBound) func theASCIIFastPathAgreesWithTheFullParseOnGeneratedNames() {
        var generator = SplitMix64(seed: 19)
        let alphabet = Array("aZ09-_.x.".utf8) + [UInt8(ascii: "."), UInt8(ascii: "0"), UInt8(ascii: "1"), 0x20, 0xC3, 0xBC]
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 12)
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            Self.expectAgreement(String(decoding: bytes, as: UTF8.self))
        }
    }

    private static func expectAgreement(_ host: String) {
        let full = Result { () throws(PeerNameError) in try PeerName.parsedFully(host) }
        guard let fast = PeerName.plainASCIIName(host) else {
            #expect(Result { () throws(PeerNameError) in try PeerName(host) } == full, "\(host.debugDescription)")
            return
        }
        #expect(full == .success(.dns(fast)), "\(host.debugDescription): fast path \(fast), full parse \(full)")
    }
}

/// A small seeded generator (SplitMix64), so that generated cases are the same on every run.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
