import Foundation

/// RFC 3339 times in UTC, as verdicts, reports and the command line write them: `2026-01-31T12:00:00Z`.
///
/// Format styles rather than `ISO8601DateFormatter`: they are Sendable values, and making a formatter costs ICU set-up
/// each time (a tenth of a whole limbo run; a tenth of a diagnosis's first report).
public enum RFC3339 {
    /// Reads a timestamp, with or without fractional seconds; nil when it is not RFC 3339.
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }

    /// `2026-01-31T12:00:00Z`: whole seconds, UTC.
    public static func format(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }

    /// `2026-01-31`: the UTC day.
    public static func day(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle().year().month().day()) }
}
