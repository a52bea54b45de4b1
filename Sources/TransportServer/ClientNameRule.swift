import Foundation

/// Which client names may connect: one field of the client certificate and a pattern its value must match.
///
/// Written `FIELD:PATTERN`, where FIELD is `subject` (the whole RFC 4514 subject), `cn`, `dns`, `uri` or `email`,
/// and `*` in the pattern stands for any run of characters. In `dns` patterns a `*` never crosses a dot, as in
/// certificate wildcards; in `subject` patterns it stays within one attribute value (never past an unescaped `,`
/// or `+`). `dns`, `email` and URI schemes compare without regard to case; the rest exactly.
///
/// ```swift
/// try ClientNameRule(parsing: "uri:spiffe://example.org/ns/payments/*")
/// try ClientNameRule(parsing: "dns:*.internal.example")
/// try ClientNameRule(parsing: "email:*@example.com")
/// ```
public struct ClientNameRule: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The part of the certificate a rule looks at.
    public enum Field: String, Sendable, Hashable, Codable, CaseIterable {
        /// The whole subject distinguished name.
        case subject
        /// A subject common name (`cn:`).
        case commonName = "cn"
        /// A subjectAltName dNSName (`dns:`).
        case dns
        /// A subjectAltName URI (`uri:`), a SPIFFE ID for one.
        case uri
        /// A subjectAltName rfc822Name (`email:`).
        case email
    }

    /// The part of the certificate looked at.
    public var field: Field
    /// What its value must match; `*` is any run of characters.
    public var pattern: String

    /// A rule that admits a client whose `field` matches `pattern`.
    public init(_ field: Field, _ pattern: String) {
        self.field = field
        self.pattern = pattern
    }

    /// Reads `FIELD:PATTERN`.
    public init(parsing text: String) throws(ClientNameRuleError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let colon = trimmed.firstIndex(of: ":"), let field = Field(rawValue: trimmed[..<colon].lowercased()) else {
            throw ClientNameRuleError("the name rule '\(text)' does not start with a field; write FIELD:PATTERN with FIELD one of \(Field.allCases.map(\.rawValue).joined(separator: ", ")) (for example uri:spiffe://example.org/*)")
        }
        let pattern = String(trimmed[trimmed.index(after: colon)...])
        guard !pattern.isEmpty else {
            throw ClientNameRuleError("the name rule '\(text)' has no pattern after '\(field.rawValue):'; give the name, with * for any run of characters")
        }
        self.init(field, pattern)
    }

    public var description: String { "\(field.rawValue):\(pattern)" }

    /// The first of `names` this rule admits, or nil.
    public func match(_ names: ClientCertificateNames) -> String? {
        names.values(of: field).first { matches($0) }
    }

    /// Whether `value` (a name of this rule's field) matches the pattern.
    public func matches(_ value: String) -> Bool {
        switch field {
        case .dns:
            return Self.glob(Array(pattern.lowercased().utf8), Array(value.lowercased().utf8), starStopsAt: [UInt8(ascii: ".")])
        case .email:
            return Self.glob(Array(pattern.lowercased().utf8), Array(value.lowercased().utf8))
        case .uri:
            return Self.glob(Array(Self.lowercasingScheme(pattern).utf8), Array(Self.lowercasingScheme(value).utf8))
        case .subject:
            // A star stays inside one attribute value: it never takes a separator, and takes an escaped character
            // (`\,`) whole, so that a value cannot pass for the attributes after it.
            return Self.glob(Array(pattern.utf8), Array(value.utf8), starStopsAt: [UInt8(ascii: ","), UInt8(ascii: "+")],
                             escape: UInt8(ascii: "\\"))
        case .commonName:
            return Self.glob(Array(pattern.utf8), Array(value.utf8))
        }
    }

    static func lowercasingScheme(_ uri: String) -> String {
        guard let colon = uri.firstIndex(of: ":") else { return uri }
        return uri[..<colon].lowercased() + uri[colon...]
    }

    /// `*` matches any run of bytes (none of them in `stops`; an `escape` byte only together with the byte after it);
    /// everything else matches itself. Linear in practice: one backtrack point, the last star, as in the usual
    /// wildcard matcher.
    static func glob(_ pattern: [UInt8], _ text: [UInt8], starStopsAt stops: [UInt8] = [], escape: UInt8? = nil) -> Bool {
        let star = UInt8(ascii: "*")
        var p = 0, t = 0
        var lastStar: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == star {
                lastStar = p
                resume = t
                p += 1
            } else if p < pattern.count, pattern[p] == text[t] {
                p += 1
                t += 1
            } else if let s = lastStar, resume < text.count, !stops.contains(text[resume]) {
                // Let the last star take one more character, unless it is one it may not take.
                let width = text[resume] == escape ? 2 : 1
                guard resume + width <= text.count else { return false }
                resume += width
                t = resume
                p = s + 1
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == star { p += 1 }
        return p == pattern.count
    }
}

/// A name rule that cannot be read: what is wrong and how to write it.
public struct ClientNameRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
