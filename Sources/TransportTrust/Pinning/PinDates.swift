import Foundation

/// Reading the `yyyy-MM-dd` dates pin configurations use (TrustKit, Android). Writing them, and the RFC 3339
/// timestamps of reports, is `RFC3339`'s.
enum PinDates {
    /// Reads `yyyy-MM-dd` exactly: a four-digit year, a two-digit month and day, a day its month has. The date is
    /// midnight UTC at the start of that day, as in TrustKit (not its end).
    ///
    /// Not `DateFormatter`: even with `isLenient` off it read `12345-1-01` as the year 12345 and took `2031/02/03`
    /// and ` 2031-2-03`; a configuration read with such a date was written back by `PinConfigurationFormat.write`
    /// (`RFC3339.day`: `12345-01-01`) as a file this reader refused (found by the `pins-trustkit` fuzz target).
    static func parseDay(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        // RFC3339 checks the digits, the month and the day against the calendar, and reads with the style that writes.
        return RFC3339.parse(text + "T00:00:00Z")
    }
}
