import SwiftASN1
import X509

/// What is wrong with DER that swift-asn1 or swift-certificates refused, in words, never their error text
/// ("ASN1Error.truncatedASN1Field"). Where the outermost element is cut short or followed by more bytes, says
/// so with the byte offsets; otherwise says what kind of fault a field inside has. `der` is nil for PEM text.
package func derProblem(_ error: any Error, in der: [UInt8]?) -> String {
    if der?.isEmpty == true { return "it is empty" }
    if let der, let (header, length) = outerHeader(der) {
        let end = header + length
        if end > der.count {
            return "it is cut short: its outer element declares \(length) bytes of content, but the data ends \(end - der.count) bytes early, at byte \(der.count)"
        }
        if end < der.count {
            return "it starts with a DER element of \(end) bytes, then \(der.count - end) more bytes follow; remove them, or split the file into its parts"
        }
    }
    if let asn1 = error as? ASN1Error {
        switch asn1.code {
        case .truncatedASN1Field: return "a field inside it runs past the end of the field that holds it, so it is damaged or cut short"
        case .unsupportedFieldLength: return "a field's length is not in DER's shortest form, or is too large to be real"
        case .invalidASN1IntegerEncoding: return "an INTEGER in it is not in DER's shortest form"
        case .unexpectedFieldType: return "a field in it has a type (tag) other than the one that belongs there"
        case .invalidASN1Object: return "a field in it does not hold what its type requires"
        case .invalidStringRepresentation: return "a string in it holds characters its type does not allow"
        case .tooFewOIDComponents: return "an object identifier in it has fewer than two components"
        case .invalidPEMDocument: return "its PEM text is not valid (a BEGIN or END line, or the base64 between them)"
        default: return "it is not valid DER"
        }
    }
    let text = dependencyErrorText(error)
    // swift-certificates: "CertificateError.code: reason"; the reason is its own words.
    if error is CertificateError, text.hasPrefix("CertificateError."), let colon = text.firstIndex(of: ":") {
        let reason = text[text.index(after: colon)...].drop { $0 == " " }
        return reason.isEmpty ? "swift-certificates cannot use it" : String(reason)
    }
    return text
}

/// The header length and declared content length of the element `der` starts with, or nil when its header
/// cannot be read (indefinite length, or a length of more than four bytes).
private func outerHeader(_ der: [UInt8]) -> (header: Int, length: Int)? {
    var i = 1
    if der[0] & 0x1F == 0x1F {
        while i < der.count, der[i] & 0x80 != 0 { i += 1 }
        i += 1
    }
    guard i < der.count else { return nil }
    let first = der[i]
    i += 1
    if first < 0x80 { return (i, Int(first)) }
    let count = Int(first & 0x7F)
    guard (1...4).contains(count), i + count <= der.count else { return nil }
    let length = der[i..<(i + count)].reduce(0) { $0 << 8 | Int($1) }
    return (i + count, length)
}
