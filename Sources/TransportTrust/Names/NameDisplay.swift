/// How people read a certificate's name in verdicts, trees and reports.
///
/// Hostile subjects run to thousands of attributes: output names them, it does not dump them. An empty name says
/// that it is empty instead of printing nothing. Machine-readable output (JSON) keeps the whole text.
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

    private static func bounded(_ text: String) -> String {
        text.count > limit ? "\(text.prefix(limit))…" : text
    }
}
