import Foundation

/// The date forms pin configurations use: `yyyy-MM-dd` (TrustKit, Android) and RFC 3339 timestamps (reports).
enum PinDates {
    static func day(_ date: Date) -> String { RFC3339.day(date) }

    /// Reads `yyyy-MM-dd` (as the end of that day is not what TrustKit does: it is midnight UTC at its start).
    static func parseDay(_ text: String) -> Date? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        f.isLenient = false
        guard text.count == 10 else { return nil }
        return f.date(from: text)
    }

    static func timestamp(_ date: Date) -> String { RFC3339.format(date) }
}
