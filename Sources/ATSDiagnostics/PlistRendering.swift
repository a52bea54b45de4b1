import AppTransportSecurity
import Foundation
import TransportTrust

/// Renders ATS dictionaries the two ways people read them: as NSDictionary's description (what `nscurl --verbose`
/// prints) and as Info.plist XML ready to paste.
package enum PlistRendering {
    /// NSDictionary's `description` layout: nested dictionaries indented four spaces a level, strings quoted
    /// unless plain identifiers, Booleans as `true`/`false`.
    public static func description(_ dictionary: [String: PlistValue]) -> String {
        descriptionLines(dictionary, depth: 0).joined(separator: "\n")
    }

    private static func descriptionLines(_ dictionary: [String: PlistValue], depth: Int) -> [String] {
        let pad = String(repeating: " ", count: 4 * (depth + 1))
        var lines = ["{"]
        for key in dictionary.keys.sorted() {
            guard let value = dictionary[key] else { continue }
            if case .dictionary(let inner) = value {
                let innerLines = descriptionLines(inner, depth: depth + 1)
                lines.append("\(pad)\(quoted(key)) = \(pad)\(innerLines[0])")
                lines += innerLines.dropFirst().dropLast()
                lines.append("\(pad)};")
            } else {
                lines.append("\(pad)\(quoted(key)) = \(scalar(value));")
            }
        }
        lines.append("}")
        return lines
    }

    private static func scalar(_ value: PlistValue) -> String {
        switch value {
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .string(let s): return quoted(s)
        case .date(let d): return quoted(RFC3339.format(d))
        case .data(let d): return "{length = \(d.count)}"
        case .array(let a): return "(" + a.map(scalar).joined(separator: ", ") + ")"
        case .dictionary(let d): return "{" + d.keys.sorted().map { "\(quoted($0)) = \(d[$0].map(scalar) ?? "");" }.joined(separator: " ") + "}"
        }
    }

    /// Quoted as NSDictionary quotes: anything but letters, digits and `_` needs quotes.
    private static func quoted(_ s: String) -> String {
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" }
        if plain { return s }
        return "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The `NSAppTransportSecurity` key and dictionary as Info.plist XML, tab-indented, to paste inside the
    /// top-level `<dict>` of an Info.plist.
    public static func xmlSnippet(_ dictionary: [String: PlistValue]) -> String {
        var lines = ["<key>NSAppTransportSecurity</key>"]
        lines += xmlLines(.dictionary(dictionary), depth: 0)
        return lines.joined(separator: "\n")
    }

    /// A whole Info.plist holding only `dictionary` as its `NSAppTransportSecurity`.
    public static func infoPlist(_ dictionary: [String: PlistValue]) -> String {
        infoPlist(embedding: xmlSnippet(dictionary))
    }

    /// A whole Info.plist around a snippet made by ``xmlSnippet(_:)``.
    public static func infoPlist(embedding snippet: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \(snippet.split(separator: "\n", omittingEmptySubsequences: false).map { "\t" + $0 }.joined(separator: "\n"))
        </dict>
        </plist>

        """
    }

    private static func xmlLines(_ value: PlistValue, depth: Int) -> [String] {
        let pad = String(repeating: "\t", count: depth)
        switch value {
        case .dictionary(let d):
            if d.isEmpty { return ["\(pad)<dict/>"] }
            var lines = ["\(pad)<dict>"]
            for key in d.keys.sorted() {
                guard let inner = d[key] else { continue }
                lines.append("\(pad)\t<key>\(escaped(key))</key>")
                lines += xmlLines(inner, depth: depth + 1)
            }
            lines.append("\(pad)</dict>")
            return lines
        case .array(let a):
            return ["\(pad)<array>"] + a.flatMap { xmlLines($0, depth: depth + 1) } + ["\(pad)</array>"]
        case .boolean(let b): return ["\(pad)<\(b ? "true" : "false")/>"]
        case .integer(let i): return ["\(pad)<integer>\(i)</integer>"]
        case .real(let r): return ["\(pad)<real>\(r)</real>"]
        case .string(let s): return ["\(pad)<string>\(escaped(s))</string>"]
        case .date(let d): return ["\(pad)<date>\(RFC3339.format(d))</date>"]
        case .data(let d): return ["\(pad)<data>\(d.base64EncodedString())</data>"]
        }
    }

    private static func escaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
