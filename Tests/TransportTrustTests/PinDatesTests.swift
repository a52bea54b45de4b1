import Foundation
import Testing

@testable import TransportTrust

@Suite struct PinDatesTests {
    @Test func readsADayAsMidnightUTCAtItsStart() {
        #expect(PinDates.parseDay("2031-02-03") == Date(timeIntervalSince1970: 1_927_843_200))
        #expect(PinDates.parseDay("2024-02-29") == RFC3339.parse("2024-02-29T00:00:00Z"))
    }

    /// Found by the pins-trustkit fuzz target (Fuzz/Regressions/pins-trustkit/): DateFormatter read `12345-1-01`
    /// as the year 12345, which RFC3339.day writes as `12345-01-01`, which was then refused. Only the form that
    /// is written is read.
    @Test(arguments: ["12345-1-01", "02031-2-03", " 2031-2-03", "2031-002-3", "2031/02/03", "2031-2-3", "2031-02-3x",
                      "2031-02-30", "2023-02-29", "2031-13-01", "2031-00-10", "2031-01-00", "", "-031-02-03", "２０３１-02-03"])
    func refusesEveryOtherForm(_ text: String) {
        #expect(PinDates.parseDay(text) == nil)
    }

    @Test(arguments: ["0001-01-01", "1000-01-01", "2031-02-03", "9999-12-31"])
    func whatIsReadIsWrittenBackTheSame(_ text: String) throws {
        let date = try #require(PinDates.parseDay(text))
        #expect(RFC3339.day(date) == text)
        #expect(PinDates.parseDay(RFC3339.day(date)) == date)
    }
}
