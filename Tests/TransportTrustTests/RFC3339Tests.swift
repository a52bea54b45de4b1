import Foundation
import Testing

import TransportTrust

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

    @Test func roundTrips() {
        let whole = Date(timeIntervalSince1970: 1_769_860_800)
        #expect(RFC3339.parse(RFC3339.format(whole)) == whole)
    }
}
