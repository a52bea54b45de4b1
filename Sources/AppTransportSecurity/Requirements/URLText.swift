/// Characters a URL may not carry as they are.
package enum URLText {
    /// The first whitespace or control character in `url`, named with its position, or nil when there is none.
    ///
    /// RFC 3986 §2 allows neither unencoded, but Foundation's URL parser percent-encodes them silently: a line
    /// break, say from a file with CRLF line ends, would become part of the path and the URL would still pass.
    package static func problem(in url: String) -> String? {
        // Visible ASCII is none of them; only other text needs its Unicode properties looked up.
        if url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) { return nil }
        for (offset, scalar) in url.unicodeScalars.enumerated() {
            let properties = scalar.properties
            guard properties.isWhitespace || properties.generalCategory == .control || properties.generalCategory == .format else { continue }
            let code = codePoint(scalar.value)
            let name: String
            switch scalar {
            case "\r", "\n", "\u{2028}", "\u{2029}", "\u{85}": name = "a line break"
            case " ": name = "a space"
            case "\t": name = "a tab"
            default: name = properties.isWhitespace ? "a space character" : "an invisible control character"
            }
            return "\(name) (\(code)) at character \(offset + 1); a URL may not contain whitespace or control characters unencoded (write a space as %20)"
        }
        return nil
    }

    /// The scheme `url` starts with, lowercased, as written (RFC 3986 §3.1: a letter, then letters, digits, `+`, `-`
    /// or `.`, up to the first `:`); nil when it starts with none. ``ConnectionTarget`` reads `ws` and `wss` as
    /// `http` and `https`, as ATS does, so a caller that speaks neither asks this.
    package static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), let first = url.first, first.isASCII, first.isLetter else { return nil }
        let scheme = url[..<colon]
        guard scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return scheme.lowercased()
    }

    /// `U+000D`: a character's code in the notation people look up.
    package static func codePoint(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
