import SwiftASN1

/// The text reflection gives a tag class, without reflection.
///
/// swift-crypto reads every RSA key swift-certificates hands it by first parsing it as a SubjectPublicKeyInfo, which
/// fails on the PKCS#1 key, and swift-asn1 writes that failure's reason with `"\(identifier)"`. The identifier's text
/// interpolates its `TagClass`, an enum with no description, so each RSA key parsed paid for a `Mirror`: 2% of a cold
/// RSA-2048 evaluation (DEVELOPERS.md). The runtime finds this conformance from their code as it finds its own, and the
/// text is the case name, as before: `TagClassDescriptionTests` checks it.
extension ASN1Identifier.TagClass: @retroactive CustomStringConvertible {
    public var description: String {
        switch self {
        case .universal: return "universal"
        case .application: return "application"
        case .contextSpecific: return "contextSpecific"
        case .private: return "private"
        }
    }
}
