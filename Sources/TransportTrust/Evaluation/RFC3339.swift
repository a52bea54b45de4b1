import Foundation

/// RFC 3339 times in UTC, as verdicts, reports and the command line write them: `2026-01-31T12:00:00Z`.
///
/// Format styles rather than `ISO8601DateFormatter`: they are Sendable values, and making a formatter costs ICU set-up
/// each time (a tenth of a whole limbo run; a tenth of a diagnosis's first report).
package enum RFC3339 {
    /// Why a text is not an RFC 3339 timestamp (RFC 3339 §5.6 `date-time`).
    package struct FormatError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, e.g. "2027-02 has no day 30".
        package var reason: String
        package var description: String { reason }
    }

    /// Reads a timestamp, with or without fractional seconds; nil when it is not RFC 3339.
    package static func parse(_ text: String) -> Date? { try? parseStrictly(text) }

    /// Reads an RFC 3339 §5.6 `date-time`: `YYYY-MM-DDThh:mm:ss`, an optional fraction, then `Z` or `±hh:mm`; `T` and
    /// `Z` may be lower case. Each field is checked against its range and the calendar first, because Foundation's
    /// ISO 8601 reader rolls 2027-02-30 and 24:00:00 over into the next day and takes `+0100` and `2027-1-1T0:0:0Z`.
    /// A leap second (`:60`) is read as the first second of the next minute.
    package static func parseStrictly(_ text: String) throws(FormatError) -> Date {
        let b = Array(text.utf8)
        func fail(_ reason: String) -> FormatError { FormatError(reason: reason) }
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var value = 0
            for byte in b[at..<(at + count)] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        func byte(_ at: Int, _ allowed: String) -> Bool { at < b.count && allowed.utf8.contains(b[at]) }

        guard let year = digits(0, 4), byte(4, "-"), let month = digits(5, 2), byte(7, "-"), let day = digits(8, 2) else {
            throw fail("it does not start with a full date, YYYY-MM-DD")
        }
        guard byte(10, "Tt"), let hour = digits(11, 2), byte(13, ":"), let minute = digits(14, 2), byte(16, ":"),
              let second = digits(17, 2)
        else { throw fail("the date is not followed by 'T' and a time, hh:mm:ss") }
        guard (1...12).contains(month) else { throw fail("\(month) is not a month") }
        guard (1...daysIn(month: month, year: year)).contains(day) else {
            throw fail(String(format: "%04d-%02d has no day %d", year, month, day))
        }
        guard hour <= 23, minute <= 59, second <= 60 else { throw fail(String(format: "%02d:%02d:%02d is not a time of day", hour, minute, second)) }
        var end = 19
        if byte(end, ".") {
            end += 1
            let start = end
            while digits(end, 1) != nil { end += 1 }
            guard end > start else { throw fail("the '.' after the seconds has no digits") }
        }
        var offset = 0
        if byte(end, "Zz"), end + 1 == b.count {
            offset = 0
        } else if byte(end, "+-"), let hours = digits(end + 1, 2), byte(end + 3, ":"), let minutes = digits(end + 4, 2), end + 6 == b.count {
            guard hours <= 23, minutes <= 59 else { throw fail("the offset is out of range") }
            offset = (hours * 60 + minutes) * 60 * (b[end] == UInt8(ascii: "-") ? -1 : 1)
        } else {
            throw fail("the time does not end with 'Z' or an offset ±hh:mm")
        }
        // The fields are known good: Foundation reads them as UTC, and the offset is applied here.
        let utc = String(decoding: b[0..<10], as: UTF8.self) + "T" + String(decoding: b[11..<end], as: UTF8.self) + "Z"
        let style = end > 19 ? Date.ISO8601FormatStyle(includingFractionalSeconds: true) : Date.ISO8601FormatStyle()
        guard let date = try? style.parse(utc) else { throw fail("it cannot be read") }
        return date.addingTimeInterval(TimeInterval(-offset))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `2026-01-31T12:00:00Z`: whole seconds, UTC.
    package static func format(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }
    /// With milliseconds, where whole seconds would hide the order of two times.
    package static func formatMilliseconds(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }

    /// `2026-01-31`: the UTC day.
    package static func day(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle().year().month().day()) }
}
