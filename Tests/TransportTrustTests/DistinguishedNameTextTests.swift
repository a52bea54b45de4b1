import TestSupport
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

/// `text` replaces swift-certificates' `description` where verdicts name certificates and where its reasons are
/// matched, so it must be the same string for every name.
@Suite struct DistinguishedNameTextTests {
    typealias Attribute = RelativeDistinguishedName.Attribute

    static func name(_ rdns: [[Attribute]]) -> DistinguishedName { DistinguishedName(rdns.map { RelativeDistinguishedName($0) }) }

    @Test func matchesSwiftCertificatesForTheNamesVerdictsMeet() throws {
        let names: [DistinguishedName] = [
            DistinguishedName(),
            PKI.name("www.example.com"),
            Self.name([[Attribute(type: .RDNAttributeType.countryName, utf8String: "US")],
                       [Attribute(type: .RDNAttributeType.organizationalUnitName, utf8String: "Unit"),
                        Attribute(type: .RDNAttributeType.commonName, utf8String: "multi-valued")]]),
            Self.name([[try Attribute(type: .RDNAttributeType.commonName, printableString: "Printable CA")],
                       [try Attribute(type: .RDNAttributeType.emailAddress, ia5String: "ca@example.com")],
                       [Attribute(type: .RDNAttributeType.domainComponent, utf8String: "com")],
                       [Attribute(type: .RDNAttributeType.streetAddress, utf8String: "1 Main St")],
                       [Attribute(type: .RDNAttributeType.localityName, utf8String: "Town")],
                       [Attribute(type: .RDNAttributeType.stateOrProvinceName, utf8String: "ST")]]),
            // serialNumber has no short name; an INTEGER value is no string at all.
            Self.name([[Attribute(type: [2, 5, 4, 5], utf8String: "9916055d-97c9")],
                       [Attribute(type: [1, 3, 6, 1, 4, 1, 32473, 7], value: try ASN1Any(erasing: 42))]]),
            Self.name([[Attribute(type: .RDNAttributeType.commonName, utf8String: "bücher.example 測試")]]),
        ]
        for name in names { #expect(name.text == name.description) }
    }

    @Test func escapesExactlyAsSwiftCertificatesDoes() {
        let values = ["#hash", " lead", "trail ", "   ", "# #", " # mid ", "a,b", "a+b", "q\"uote", "back\\slash", "<>;", "#", "", "x # y"]
        for value in values {
            let name = Self.name([[Attribute(type: .RDNAttributeType.commonName, utf8String: value)]])
            #expect(name.text == name.description, "\(value)")
        }
        // Every string of up to four characters from the ones that are escaped somewhere, and two that never are.
        let alphabet: [Character] = [" ", "#", ",", "+", "\"", "\\", "<", ">", ";", "a", "é"]
        var strings = [""]
        for _ in 0..<4 { strings = strings.flatMap { s in alphabet.map { s + String($0) } } }
        for value in strings {
            let name = Self.name([[Attribute(type: .RDNAttributeType.organizationName, utf8String: value)]])
            #expect(name.text == name.description, "\(value)")
        }
    }

    @Test func labelsQuoteTheTextBoundItAndNameTheEmptyName() {
        #expect(DistinguishedName().label == "'' (an empty name)")
        #expect(PKI.name("www.example.com").label == "'CN=www.example.com,O=Transport Trust Tests'")
        let long = Self.name([[Attribute(type: .RDNAttributeType.commonName, utf8String: String(repeating: "x", count: 500))]])
        #expect(long.label == "'CN=" + String(repeating: "x", count: 157) + "…'")
    }
}
