import Foundation
import TestSupport
import Testing

@testable import TransportTrust

@Suite struct CTLogListTests {
    @Test func theBundledListIsApplesVersion511() throws {
        let list = try CTLogList.bundled()
        #expect(list.version == "511")
        #expect(list.source == .bundled)
        #expect(list.date.map(RFC3339.day) == "2026-08-22")
        #expect(list.logs.count == 166)
        #expect(list.logs.filter { $0.kind == .tiled }.count == 31)
        #expect(list.logs.filter(\.isTrusted).count == 57)
        let argon = try #require(list.log(id: Array(Data(base64Encoded: "DleUvPOuqT4zGyyZB7P3kN+bwj1xMiXdIaklrGHFTiE=")!)))
        #expect(argon.name == "Google 'Argon 2026H1' log")
        #expect(argon.operatorName == "Google")
        #expect(argon.temporalInterval.map { RFC3339.day($0.lowerBound) } == "2026-01-01")
        #expect(list.summary == "the bundled Apple CT log list (version 511, last confirmed current 2026-08-22)")
    }

    @Test func aListIsCurrentForSixtyDaysAndASuppliedOneAlways() throws {
        let list = try CTLogList.bundled()
        let date = try #require(list.date)
        // trustd: enforced while the last check-in is less than 60 × 86,400 s ago.
        #expect(list.isCurrent(at: date.addingTimeInterval(60 * 86400 - 1)))
        #expect(!list.isCurrent(at: date.addingTimeInterval(60 * 86400)))
        let supplied = try CTLogList(json: TestCTLog.logList([TestCTLog(name: "A")]), source: .supplied("a.json"))
        #expect(supplied.isCurrent(at: .distantFuture))
    }

    @Test func aLogIDThatIsNotTheKeysHashIsRefused() throws {
        let log = TestCTLog(name: "A")
        var entry = log.listEntry
        entry["log_id"] = Data(TestCTLog(name: "B").logID).base64EncodedString()
        let json = try JSONSerialization.data(withJSONObject: ["version": "1", "operators": [["name": "Op", "logs": [entry]]]])
        #expect {
            try CTLogList(json: Array(json), source: .supplied("bad.json"))
        } throws: { error in
            "\(error)".contains("the CT log list bad.json cannot be used: operators[0].logs[0] (A): 'log_id' is not the SHA-256 of 'key'")
        }
    }

    @Test(arguments: [
        (#"{"operators": []}"#, "it lists no logs"),
        (#"[1, 2]"#, "the CT log list x.json cannot be used: the top level is not an object of Apple's schema v5"),
        ("[]", "cannot be used: the top level is not an object"),
        (#"{"operators": [{"name": 3}]}"#, "operators[0].name is not a string"),
        ("not json", "it is not JSON"),
        (#"{"version": "1"}"#, "the top level has no 'operators'"),
        (#"{"operators": [{"name": "Op", "logs": [{"key": "AAAA", "state": {}}]}]}"#, "operators[0].logs[0] has no 'log_id'"),
    ])
    func malformedListsSayWhereTheyAreWrong(json: String, reason: String) {
        #expect {
            try CTLogList(json: Array(json.utf8), source: .supplied("x.json"))
        } throws: { error in
            let text = "\(error)"
            return text.contains(reason) && text.contains("Apple's schema v5") && !text.contains("DecodingError")
        }
    }

    @Test func anUnknownStateOrTwoStatesAreRefused() throws {
        var entry = TestCTLog(name: "A").listEntry
        entry["state"] = ["frozen": ["timestamp": "2026-01-01T00:00:00Z"]]
        let one = try JSONSerialization.data(withJSONObject: ["operators": [["name": "Op", "logs": [entry]]]])
        #expect { try CTLogList(json: Array(one), source: .supplied("x")) } throws: { "\($0)".contains("'state' is 'frozen'") }
        entry["state"] = ["usable": ["timestamp": "2026-01-01T00:00:00Z"], "retired": ["timestamp": "2026-01-01T00:00:00Z"]]
        let two = try JSONSerialization.data(withJSONObject: ["operators": [["name": "Op", "logs": [entry]]]])
        #expect { try CTLogList(json: Array(two), source: .supplied("x")) } throws: { "\($0)".contains("exactly one state") }
    }
}
