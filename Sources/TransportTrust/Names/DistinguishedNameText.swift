import SwiftASN1
import X509

extension DistinguishedName {
    /// Exactly swift-certificates' `description` (RFC 4514 order and escaping), built in one buffer.
    ///
    /// Verdicts name certificates by subject, and reasons from swift-certificates are matched against subjects, so
    /// this text must stay identical to theirs. Theirs goes through lazy maps and an array per attribute, and was
    /// 3% of a whole x509-limbo run.
    var text: String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for (i, rdn) in reversed().enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            for (j, attribute) in rdn.enumerated() {
                if j > 0 { out.append(UInt8(ascii: "+")) }
                out.append(contentsOf: Self.key(attribute.type).utf8)
                out.append(UInt8(ascii: "="))
                if let value = String(attribute.value) {
                    Self.appendEscaped(value, to: &out)
                } else {
                    out.append(contentsOf: attribute.value.description.utf8)
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// How a verdict quotes this name (`NameDisplay/quoted(_:)`).
    var label: String { NameDisplay.quoted(text) }

    private static func key(_ type: ASN1ObjectIdentifier) -> String {
        switch type {
        case .RDNAttributeType.commonName: return "CN"
        case .RDNAttributeType.countryName: return "C"
        case .RDNAttributeType.localityName: return "L"
        case .RDNAttributeType.stateOrProvinceName: return "ST"
        case .RDNAttributeType.organizationName: return "O"
        case .RDNAttributeType.organizationalUnitName: return "OU"
        case .RDNAttributeType.streetAddress: return "STREET"
        case .RDNAttributeType.domainComponent: return "DC"
        case .RDNAttributeType.emailAddress: return "E"
        default: return String(describing: type)
        }
    }

    /// Leading spaces and '#', trailing spaces, and `,+"\<>;` anywhere get a backslash.
    private static func appendEscaped(_ value: String, to out: inout [UInt8]) {
        let bytes = Array(value.utf8)
        let leading = bytes.prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "#") }.count
        var trailingStart = bytes.count
        while trailingStart > leading && bytes[trailingStart - 1] == UInt8(ascii: " ") { trailingStart -= 1 }
        for (i, byte) in bytes.enumerated() {
            let special: Bool
            switch byte {
            case UInt8(ascii: ","), UInt8(ascii: "+"), UInt8(ascii: "\""), UInt8(ascii: "\\"),
                UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ";"):
                special = true
            default:
                special = i < leading || i >= trailingStart
            }
            if special { out.append(UInt8(ascii: "\\")) }
            out.append(byte)
        }
    }
}
