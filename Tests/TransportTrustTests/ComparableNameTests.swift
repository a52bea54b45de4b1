import Foundation
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

@Suite struct ComparableNameTests {
    typealias Attribute = RelativeDistinguishedName.Attribute

    static func name(_ rdns: [[Attribute]]) -> DistinguishedName { DistinguishedName(rdns.map { RelativeDistinguishedName($0) }) }
    static func utf8(_ type: ASN1ObjectIdentifier, _ value: String) -> Attribute { Attribute(type: type, utf8String: value) }
    static func printable(_ type: ASN1ObjectIdentifier, _ value: String) -> Attribute { try! Attribute(type: type, printableString: value) }
    static func bmp(_ type: ASN1ObjectIdentifier, _ value: String) -> Attribute {
        Attribute(type: type, value: try! ASN1Any(erasing: ASN1BMPString(contentBytes: Array(value.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] })[...])))
    }
    static let o = ASN1ObjectIdentifier.RDNAttributeType.organizationName
    static let cn = ASN1ObjectIdentifier.RDNAttributeType.commonName
    static let ou = ASN1ObjectIdentifier.RDNAttributeType.organizationalUnitName

    /// Each pair must match both ways round, whichever encoding comes first.
    static func matchBothWays(_ a: DistinguishedName, _ b: DistinguishedName) -> Bool {
        ComparableName.matches(a, b) && ComparableName.matches(b, a) && ComparableName(a) == ComparableName(b)
            && ComparableName(a).hashValue == ComparableName(b).hashValue
    }

    @Test func printableStringMatchesTheSameUTF8String() {
        let printable = Self.name([[Self.printable(Self.o, "Test Org")], [Self.printable(Self.cn, "Test CA")]])
        let utf8 = Self.name([[Self.utf8(Self.o, "Test Org")], [Self.utf8(Self.cn, "Test CA")]])
        #expect(printable != utf8, "different encodings: the fast byte-equal path does not decide this")
        #expect(Self.matchBothWays(printable, utf8))
    }

    @Test func caseAndInsignificantSpacesDoNotMatter() {
        let a = Self.name([[Self.printable(Self.cn, "Test CA")]])
        #expect(Self.matchBothWays(a, Self.name([[Self.utf8(Self.cn, "  tEST    ca ")]])))
        #expect(Self.matchBothWays(a, Self.name([[Self.utf8(Self.cn, "test\tca")]])))
        #expect(!ComparableName.matches(a, Self.name([[Self.utf8(Self.cn, "TestCA")]])), "a space between words is significant")
    }

    @Test func unicodeIsCaseFoldedAndNormalised() {
        // U+00C9 against E + COMBINING ACUTE, lower case, with a soft hyphen and a zero-width space mapped to nothing.
        let a = Self.name([[Self.utf8(Self.cn, "\u{C9}COLE")]])
        #expect(Self.matchBothWays(a, Self.name([[Self.utf8(Self.cn, "e\u{301}co\u{AD}le\u{200B}")]])))
        #expect(Self.matchBothWays(a, Self.name([[Self.bmp(Self.cn, "\u{E9}cole")]])), "BMPString is read too")
        #expect(!ComparableName.matches(a, Self.name([[Self.utf8(Self.cn, "ecole")]])), "an accent is not insignificant")
    }

    @Test func differentTypesOrderOrValuesDoNotMatch() {
        let a = Self.name([[Self.utf8(Self.o, "Org")], [Self.utf8(Self.cn, "CA")]])
        #expect(!ComparableName.matches(a, Self.name([[Self.utf8(Self.cn, "CA")], [Self.utf8(Self.o, "Org")]])), "RDN order is significant")
        #expect(!ComparableName.matches(a, Self.name([[Self.utf8(Self.o, "Org")], [Self.utf8(Self.ou, "CA")]])))
        #expect(!ComparableName.matches(a, Self.name([[Self.utf8(Self.o, "Org")], [Self.utf8(Self.cn, "CA2")]])))
        #expect(!ComparableName.matches(a, Self.name([[Self.utf8(Self.o, "Org")]])))
    }

    @Test func aMultiValuedRDNIsASet() {
        let a = Self.name([[Self.printable(Self.ou, "Unit"), Self.utf8(Self.cn, "CA")]])
        let b = Self.name([[Self.printable(Self.cn, "ca"), Self.utf8(Self.ou, "unit")]])
        #expect(Self.matchBothWays(a, b))
        #expect(!ComparableName.matches(a, Self.name([[Self.utf8(Self.ou, "Unit")], [Self.utf8(Self.cn, "CA")]])), "one RDN of two is not two RDNs")
    }

    @Test func aProhibitedCharacterIsComparedByEncodingOnly() {
        let privateUse = "CA\u{E000}"
        #expect(ComparableName.prepare(privateUse) == nil)
        let a = Self.name([[Self.utf8(Self.cn, privateUse)]])
        #expect(ComparableName.matches(a, a))
        #expect(!ComparableName.matches(a, Self.name([[Self.utf8(Self.cn, "ca\u{E000}")]])))
        #expect(ComparableName.sameValue(Self.utf8(Self.cn, privateUse).value, Self.utf8(Self.cn, "ca\u{E000}").value) == nil,
                "uncertain: the caller decides which way it fails")
    }

    /// `matches` decides most names on their ASCII without preparing them; on generated names it must agree with the
    /// prepared comparison, both when they match (case, spacing, encoding changed) and when they do not.
    @Test func theASCIIComparisonAgreesWithThePreparedOne() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aAbBzZ  -.1")
        func value() -> String { String((0..<Int.random(in: 1...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator) ?? "a" }) }
        func attribute(_ type: ASN1ObjectIdentifier, _ text: String) -> Attribute {
            Bool.random(using: &generator) ? Self.utf8(type, text) : Self.printable(type, text)
        }
        func variant(_ text: String) -> String {
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: return text.uppercased()
            case 1: return " " + text.replacingOccurrences(of: " ", with: "  ") + " "
            case 2: return value()
            default: return text
            }
        }
        var matched = 0, compared = 0
        for _ in 0..<5_000 {
            let rdns = (0..<Int.random(in: 1...4, using: &generator)).map { _ in ([Self.cn, Self.o, Self.ou].randomElement(using: &generator) ?? Self.cn, value()) }
            let a = Self.name(rdns.map { [attribute($0.0, $0.1)] })
            let b = Self.name(rdns.map { rdn in
                let type = Int.random(in: 0..<10, using: &generator) == 0 ? Self.ou : rdn.0
                return [attribute(type, variant(rdn.1))]
            })
            let prepared = a == b || ComparableName(a) == ComparableName(b)
            // The hash NamedCertificates finds anchors by: the same from the ASCII as from the prepared name.
            #expect(ComparableName.foldedHash(a) != nil && ComparableName.foldedHash(a) == ComparableName(a).preparedHash)
            if prepared { #expect(ComparableName.foldedHash(a) == ComparableName(b).preparedHash, "\(a) against \(b)") }
            #expect(ComparableName.matches(a, b) == prepared, "\(a) against \(b)")
            #expect(ComparableName.matches(b, a) == prepared, "\(b) against \(a)")
            if prepared { matched += 1 }
            compared += 1
        }
        #expect(matched > compared / 10 && matched < compared * 9 / 10, "both outcomes are exercised: \(matched) of \(compared) match")
    }

    /// A hostile name is compared as swift-certificates compares it, in one pass.
    @Test func tenThousandRDNsAreComparedByEncoding() {
        let printable = Self.name((0..<10_000).map { [Self.printable(Self.ou, "Unit \($0)")] })
        let utf8 = Self.name((0..<10_000).map { [Self.utf8(Self.ou, "Unit \($0)")] })
        #expect(ComparableName.matches(printable, printable))
        #expect(!ComparableName.matches(printable, utf8))
        let small = Self.name((0..<ComparableName.attributeLimit).map { [Self.printable(Self.ou, "Unit \($0)")] })
        let smallUTF8 = Self.name((0..<ComparableName.attributeLimit).map { [Self.utf8(Self.ou, "unit \($0)")] })
        #expect(Self.matchBothWays(small, smallUTF8), "up to the limit, names are prepared")
    }
}
