import AppTransportSecurity
import NIOHTTP1

/// RFC 9110's syntax for what a request sends: a method and field names are tokens (§9.1, §5.1), a field value holds
/// visible characters, spaces and tabs (§5.5). NIO checks the same before it writes, but its checks are internal and
/// fail with a bare `invalidHeaderToken`; checking first lets the error name the method or header.
package enum HTTPSyntax {
    private static let tokenPunctuation = Set("!#$%&'*+-.^_`|~".utf8)

    /// Whether `text` is a token: one or more letters, digits and ``!#$%&'*+-.^_`|~``.
    package static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: tokenPunctuation.contains(byte)
            }
        }
    }

    /// The first byte of `value` a field value may not hold (a control character other than tab), or nil.
    package static func forbiddenByte(inFieldValue value: String) -> UInt8? {
        value.utf8.first { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }
    }

    /// Why `method` cannot be sent, or nil.
    package static func problem(method: String) -> String? {
        isToken(method) ? nil
            : "the method \(method.debugDescription) is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~, no spaces; RFC 9110 §9.1)"
    }

    /// Why the header `name: value` cannot be sent, or nil.
    package static func problem(header name: String, value: String) -> String? {
        if !isToken(name) {
            return "the header name \(name.debugDescription) is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~, no spaces; RFC 9110 §5.1)"
        }
        if let byte = forbiddenByte(inFieldValue: value) {
            let code = URLText.codePoint(UInt32(byte))
            return "the value of header '\(name)' holds the control character \(code)\(byte == 0x0D || byte == 0x0A ? " (a line break)" : ""); a header value may hold visible characters, spaces and tabs (RFC 9110 §5.5)"
        }
        return nil
    }

    /// Why a request with this method and these headers cannot be sent, or nil.
    package static func problem(method: HTTPMethod, headers: HTTPHeaders) -> String? {
        if let problem = problem(method: method.rawValue) { return problem }
        for (name, value) in headers {
            if let problem = problem(header: name, value: value) { return problem }
        }
        return nil
    }
}
