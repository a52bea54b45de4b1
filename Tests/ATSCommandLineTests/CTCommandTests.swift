import Foundation
import TestSupport
import Testing
import TransportTrust

/// `ats ct`, run as a person or a script runs it: its own process.
@Suite struct CTCommandTests {
    /// scripts/refresh-ct-log-list.py applies the library's check to a new list through `ats ct check` before it
    /// copies the list into Sources/.
    @Test func theRefreshScriptChecksAndCopiesAList() async throws {
        let dir = try TemporaryDirectory()
        let json = TestCTLog.logList([TestCTLog(name: "A"), TestCTLog(name: "B")], version: "777")
        let source = try dir.write("list.json", bytes: json)
        let script = Repository.root.appendingPathComponent("scripts/refresh-ct-log-list.py").path
        func run(_ arguments: [String]) async throws -> Int32 {
            // The script applies the library's check through `ats ct check`.
            try await Subprocess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script, "--ats", try ATSTool.executable().path] + arguments).status
        }
        #expect(try await run([source, "--confirmed", "2027-01-02", "--into", dir.file("out")]) == 0)
        let copied = try Data(contentsOf: URL(fileURLWithPath: dir.file("out/apple_log_list.json")))
        #expect(Array(copied) == json)
        let list = try CTLogList(json: Array(copied), source: .bundled, date: RFC3339.parse("2027-01-02T00:00:00Z"))
        #expect(list.version == "777" && list.logs.count == 2)
        let metadata = try String(contentsOfFile: dir.file("out/metadata.json"), encoding: .utf8)
        #expect(metadata.contains(#""confirmedCurrent": "2027-01-02""#))
        // A list whose log ID is not its key's hash is refused, and nothing is written.
        var bad = TestCTLog(name: "C").listEntry
        bad["log_id"] = Data(TestCTLog(name: "D").logID).base64EncodedString()
        let badFile = try dir.write("bad.json", bytes: Array(try JSONSerialization.data(withJSONObject: ["operators": [["name": "Op", "logs": [bad]]]])))
        #expect(try await run([badFile, "--into", dir.file("bad-out")]) == 2)
        #expect(!FileManager.default.fileExists(atPath: dir.file("bad-out/apple_log_list.json")))
    }
}
