/// How people read a certificate's name in verdicts, trees and reports.
///
/// Hostile subjects run to thousands of attributes: output names them, it does not dump them. An empty name says
/// that it is empty instead of printing nothing, and what could rewrite a terminal or a log is escaped.
/// Machine-readable output (JSON) keeps the whole text.
package enum NameDisplay {
    /// The most characters of a name that output shows.
    package static let limit = 160

    /// The name as a line of text shows it: `CN=…,O=…`, or `(an empty name)`.
    package static func plain(_ text: String) -> String {
        text.isEmpty ? "(an empty name)" : bounded(text)
    }

    /// The name inside a sentence: `'CN=…,O=…'`, or `'' (an empty name)`.
    package static func quoted(_ text: String) -> String {
        text.isEmpty ? "'' (an empty name)" : "'\(bounded(text))'"
    }

    /// `text` with what could rewrite a terminal or a log written out as escapes: control characters (a newline
    /// would forge a log line, ESC recolour or clear a terminal), DEL, and the invisible marks that reorder or break
    /// lines (bidi controls, U+2028/9). Names come from the peer, so they never reach output unescaped.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isHidden) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isHidden(scalar): result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    private static func bounded(_ text: String) -> String {
        let shown = escaped(text)
        return shown.count > limit ? "\(shown.prefix(limit))…" : shown
    }
}
