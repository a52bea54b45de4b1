import SwiftASN1
import TestSupport
import Testing
import X509

@testable import TransportTrust

@Suite struct NamedCertificatesTests {
    typealias Attribute = RelativeDistinguishedName.Attribute
    static let o = ASN1ObjectIdentifier.RDNAttributeType.organizationName
    static let cn = ASN1ObjectIdentifier.RDNAttributeType.commonName

    static func name(_ rdns: [Attribute]) -> DistinguishedName { DistinguishedName(rdns.map { RelativeDistinguishedName($0) }) }
    static func cert(_ rdns: [Attribute]) -> Certificate {
        PKI.issue(subject: name(rdns), key: .p256(), issuer: nil, extensions: []).certificate
    }

    static let printable = cert([try! Attribute(type: o, printableString: "Example Org"), try! Attribute(type: cn, printableString: "Test Root CA")])
    /// The same name as a BMPString: swift-certificates keeps it encoded, and only preparation says it is the same.
    static let bmp = cert([try! Attribute(type: o, printableString: "Example Org"), Attribute(type: cn, value: try! ASN1Any(erasing:
        ASN1BMPString(contentBytes: Array("test root ca".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] })[...])))])
    static let unicode = cert([Attribute(type: o, utf8String: "Größe AG"), Attribute(type: cn, utf8String: "Wurzel CA")])
    static let other = cert([try! Attribute(type: o, printableString: "Example Org"), try! Attribute(type: cn, printableString: "Other CA")])

    let index = NamedCertificates([printable, bmp, unicode, other])

    @Test func aPrintableNameFindsEveryEncodingOfItInTheOrderAdded() {
        for query in ["Test Root CA", "TEST ROOT CA", "  test   root ca "] {
            let found = index[Self.name([Attribute(type: Self.o, utf8String: "example org"), Attribute(type: Self.cn, utf8String: query)])]
            #expect(found == [Self.printable, Self.bmp], "\(query)")
        }
        #expect(index[Self.other.subject] == [Self.other])
        #expect(index[Self.name([Attribute(type: Self.cn, utf8String: "Test Root CA")])].isEmpty, "one RDN short")
        #expect(index[Self.name([Attribute(type: Self.o, utf8String: "Example Org"), Attribute(type: Self.o, utf8String: "Test Root CA")])].isEmpty,
                "another attribute type")
    }

    /// Names beyond printable ASCII are prepared, as before.
    @Test func aUnicodeNameIsFoundByItsPreparedForm() {
        #expect(index[Self.name([Attribute(type: Self.o, utf8String: "GRÖSSE AG"), Attribute(type: Self.cn, utf8String: "wurzel ca")])] == [Self.unicode])
        #expect(index[Self.name([Attribute(type: Self.o, utf8String: "Größe AG"), Attribute(type: Self.cn, utf8String: "Wurzel  CA")])] == [Self.unicode])
        #expect(index[Self.bmp.subject] == [Self.printable, Self.bmp])
    }
}
