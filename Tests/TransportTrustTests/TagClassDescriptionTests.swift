import SwiftASN1
import Testing

@testable import TransportTrust

@Suite struct TagClassDescriptionTests {
    /// The texts reflection gave before the conformance: the case names, inside swift-asn1's identifier text.
    @Test func textIsTheCaseName() {
        let expected: [(ASN1Identifier.TagClass, String)] = [
            (.universal, "universal"), (.application, "application"), (.contextSpecific, "contextSpecific"), (.private, "private"),
        ]
        for (tagClass, name) in expected {
            #expect("\(tagClass)" == name)
            #expect("\(ASN1Identifier(tagWithNumber: 3, tagClass: tagClass))" == "ASN1Identifier(tagNumber: 3, tagClass: \(name))")
        }
    }

    /// swift-asn1 interpolates an unconstrained value, so only a dynamic cast finds the conformance: the one the
    /// RSA key parse's failure takes.
    @Test func dynamicCastFindsIt() {
        let value: Any = ASN1Identifier.TagClass.contextSpecific
        #expect((value as? any CustomStringConvertible)?.description == "contextSpecific")
        let error = ASN1Error.unexpectedFieldType(.integer)
        #expect("\(error)".contains("ASN1Identifier(tagNumber: 2, tagClass: universal)"))
    }
}
