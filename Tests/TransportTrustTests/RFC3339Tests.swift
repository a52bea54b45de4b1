import Foundation
import Testing

@testable import TransportTrust

@Suite struct RFC3339Tests {
    let instant = Date(timeIntervalSince1970: 1_769_860_800.75)  // 2026-01-31T12:00:00.75Z

    @Test func formatsWholeSecondsInUTC() {
        #expect(RFC3339.format(instant) == "2026-01-31T12:00:00Z")
        #expect(RFC3339.day(instant) == "2026-01-31")
        #expect(RFC3339.day(Date(timeIntervalSince1970: 1_769_903_999)) == "2026-01-31", "23:59:59 UTC is still that day")
    }

    @Test func parsesWithAndWithoutFractionsAndOffsets() {
        #expect(RFC3339.parse("2026-01-31T12:00:00Z") == Date(timeIntervalSince1970: 1_769_860_800))
        #expect(RFC3339.parse("2026-01-31T12:00:00.75Z") == instant)
        #expect(RFC3339.parse("2026-01-31T13:00:00+01:00") == Date(timeIntervalSince1970: 1_769_860_800))
    }

    @Test(arguments: ["", "yesterday", "2026-01-31", "2026-13-01T00:00:00Z", "2026-01-31 12:00:00"])
    func refusesWhatIsNotATimestamp(_ text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    /// Foundation's ISO 8601 reader rolls these over into another day, or takes forms RFC 3339 §5.6 does not have.
    @Test(arguments: [
        ("2027-02-30T00:00:00Z", "2027-02 has no day 30"),
        ("2027-02-31T00:00:00Z", "2027-02 has no day 31"),
        ("2027-02-29T00:00:00Z", "2027-02 has no day 29"),
        ("1900-02-29T00:00:00Z", "1900-02 has no day 29"),
        ("2027-04-31T00:00:00Z", "2027-04 has no day 31"),
        ("2027-01-01T24:00:00Z", "24:00:00 is not a time of day"),
        ("2027-01-01T00:00:00+0100", "the time does not end with 'Z' or an offset ±hh:mm"),
        ("2027-01-01T00:00:00+01:00junk", "the time does not end with 'Z' or an offset ±hh:mm"),
        ("2027-1-1T0:0:0Z", "it does not start with a full date, YYYY-MM-DD"),
        ("2027-01-01T0:0:0Z", "the date is not followed by 'T' and a time, hh:mm:ss"),
        ("2027-01-01T00:00:00.Z", "the '.' after the seconds has no digits"),
    ])
    func refusesOutOfRangeFieldsAndOtherForms(text: String, reason: String) {
        #expect(RFC3339.parse(text) == nil)
        #expect(throws: RFC3339.FormatError(reason: reason)) { try RFC3339.parseStrictly(text) }
    }

    @Test func readsLeapDaysAndLowerCaseTAndZ() {
        #expect(RFC3339.parse("2028-02-29T00:00:00Z") == Date(timeIntervalSince1970: 1_835_395_200))
        #expect(RFC3339.parse("2000-02-29T00:00:00Z") == Date(timeIntervalSince1970: 951_782_400))
        // RFC 3339 §5.6: "T" and "Z" may be written in lower case.
        #expect(RFC3339.parse("2026-01-31t12:00:00z") == Date(timeIntervalSince1970: 1_769_860_800))
        #expect(RFC3339.parse("2026-01-31t12:00:00.75z") == instant)
        #expect(RFC3339.parse("2026-01-31T11:30:00-00:30") == Date(timeIntervalSince1970: 1_769_860_800))
    }

    @Test func readsALeapSecondAsTheFirstSecondOfTheNextMinute() throws {
        // 2016-12-31T23:59:60Z was a real leap second.
        #expect(try RFC3339.parseStrictly("2016-12-31T23:59:60Z") == Date(timeIntervalSince1970: 1_483_228_800))
        #expect(try RFC3339.parseStrictly("2016-12-31T23:59:60.5Z") == Date(timeIntervalSince1970: 1_483_228_800.5))
    }

    @Test func roundTrips() {
        let whole = Date(timeIntervalSince1970: 1_769_860_800)
        #expect(RFC3339.parse(RFC3339.format(whole)) == whole)
    }
}
