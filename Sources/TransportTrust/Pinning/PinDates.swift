import Foundation

/// Reading the `yyyy-MM-dd` dates pin configurations use (TrustKit, Android). Writing them, and the RFC 3339
/// timestamps of reports, is `RFC3339`'s.
enum PinDates {
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
}
