import ATSCommandLine
import Foundation
import TestSupport
import Testing

/// `--json`, `--output` and `--quiet` mean the same on every command that prints a report (issue #38).
@Suite struct ReportOptionsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static func example(_ path: String) -> String { repository.appendingPathComponent("Examples/\(path)").path }
    static let bundledCTList = repository.appendingPathComponent("Sources/TransportTrust/Resources/CTLogList/apple_log_list.json").path

    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    /// Stands for a folder of the test's own in a command's arguments (`ct update` keeps its list there).
    static let folder = "<folder>"

    func run(_ arguments: [String], color: Bool = false, in folder: TemporaryDirectory? = nil) async -> Run {
        let output = Output.capture(color: color)
        let arguments = arguments.map { $0 == Self.folder ? folder?.path ?? $0 : $0 }
        let status = await ATSCommand.run(arguments: arguments, output: output)
        return Run(status: status, out: output.standardOutput, err: output.standardError)
    }

    /// One invocation of each report command, offline, with its expected status.
    static let commands: [(name: String, arguments: [String], status: Int32)] = [
        ("audit", ["audit", example("ATS/mistakes.plist")], 1),
        ("check", ["check", "--plist", example("ATS/exceptions.plist"), "https://example.com/"], 0),
        ("verify", ["verify", example("chain.pem"), "--anchors", example("root.pem"), "--host", "www.example.test",
                    "--at", "2027-06-01T00:00:00Z"], 0),
        ("pins", ["pins", example("chain.pem")], 0),
        ("ct check", ["ct", "check", bundledCTList], 0),
        ("ct status", ["ct", "status", "--cache-dir", folder], 0),
        ("ct update", ["ct", "update", "--from", bundledCTList, "--cache-dir", folder], 0),
    ]

    @Test(arguments: commands.map(\.name))
    func jsonIsOneValidDocumentOnEveryReportCommand(_ name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let r = await run(command.arguments + ["--json"], in: try TemporaryDirectory())
        #expect(r.status == command.status, "\(r.err)")
        // check and diagnose print one document per URL, one per line; these runs have one.
        let parsed = try JSONSerialization.jsonObject(with: Data(r.out.utf8))
        #expect(parsed is [String: Any] || parsed is [Any], "\(r.out)")
    }

    @Test(arguments: ["audit", "verify", "pins"])
    func jsonIsFormatJSON(_ name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let short = await run(command.arguments + ["--json"])
        let long = await run(command.arguments + ["--format", "json"])
        _ = try JSONSerialization.jsonObject(with: Data(short.out.utf8))
        #expect(short.status == long.status)
        #expect(!short.out.isEmpty && short.out == long.out)
    }

    @Test(arguments: [(["audit", example("ATS/mistakes.plist"), "--json", "--format", "sarif"], "--json and --format sarif"),
                      (["verify", example("chain.pem"), "--json", "--format", "html"], "--json and --format html"),
                      (["report", "merge", "lines.json", "--json", "--format", "html"], "--json and --format html"),
                      (["diagnose", "https://example.invalid/", "--json", "--format", "html"], "--json and --format html"),
                      (["pins", example("chain.pem"), "--json", "--format", "ats"], "--json prints the pins as JSON, and --format ats prints a snippet"),
                      (["fetch", "https://example.invalid/", "--quiet", "--output", "report.txt"], "--quiet prints no report"),
                      (["audit", example("ATS/mistakes.plist"), "--quiet", "--output", "report.txt"], "--quiet prints no report")])
    func twoFormatsOrAQuietFileAreAUsageError(_ arguments: [String], _ message: String) async {
        let r = await run(arguments)
        #expect(r.status == 2)
        #expect(r.err.contains(message), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: "report.txt"))
    }

    @Test(arguments: commands.map(\.name))
    func outputWritesTheReportToTheFileInstead(_ name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let dir = try TemporaryDirectory()
        let printed = await run(command.arguments, in: dir)
        let written = await run(command.arguments + ["--output", dir.file("report")], in: dir)
        #expect(written.status == printed.status)
        #expect(written.out.isEmpty)
        #expect(try String(contentsOfFile: dir.file("report"), encoding: .utf8) == printed.out)
        #expect(!printed.out.isEmpty)
    }

    @Test(arguments: commands.map(\.name))
    func quietPrintsNothingButKeepsTheStatus(_ name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let r = await run(command.arguments + ["--quiet"], in: try TemporaryDirectory())
        #expect(r.status == command.status, "\(r.err)")
        #expect(r.out.isEmpty)
    }

    /// `--output` with `--json` takes the JSON, as `--output` alone takes the text.
    @Test(arguments: commands.map(\.name))
    func outputTakesTheJSONReportToo(_ name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let dir = try TemporaryDirectory()
        let written = await run(command.arguments + ["--json", "--output", dir.file("report.json")], in: dir)
        #expect(written.status == command.status, "\(written.err)")
        #expect(written.out.isEmpty)
        _ = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("report.json"))))
    }

    /// With colour asked for (a terminal), `--json` has no escapes: colour is for text only.
    @Test(arguments: commands.map(\.name))
    func jsonIsNeverColoured(_ name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let r = await run(command.arguments + ["--json"], color: true, in: try TemporaryDirectory())
        #expect(!r.out.isEmpty && !r.out.contains("\u{1B}["), "\(r.out)")
    }

    /// `ats demo` runs every local case; --json gives each one, --output takes it, --quiet leaves the status, and
    /// --verbose (text) cannot join --json.
    @Test func demoReportsEveryCaseAsJSON() async throws {
        let dir = try TemporaryDirectory()
        let r = await run(["demo", "--timeout", "60", "--json", "--output", dir.file("demo.json")])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("demo.json")))) as? [String: Any])
        let cases = try #require(object["cases"] as? [[String: Any]])
        #expect(cases.count > 10)
        #expect(cases.allSatisfy { $0["agrees"] as? Bool == true && $0["fetchGot"] as? String == $0["expectedFetch"] as? String })
        #expect(object["disagreements"] as? Int == 0 && object["agrees"] as? Bool == true)

        let quiet = await run(["demo", "--timeout", "60", "--quiet"])
        #expect(quiet.status == 0 && quiet.out.isEmpty, "\(quiet.err)")

        let both = await run(["demo", "--json", "--verbose"])
        #expect(both.status == 2)
        #expect(both.err.contains("--verbose adds each diagnosis as text, and --json prints one JSON object"), "\(both.err)")
    }

    @Test func errorsStillReachStandardErrorUnderQuiet() async {
        let r = await run(["audit", "/nonexistent/Info.plist", "--quiet"])
        #expect(r.status == 2)
        #expect(r.err.contains("/nonexistent/Info.plist"), "\(r.err)")
    }

    @Test func anOutputThatCannotBeWrittenIsAUsageErrorThatSaysWhy() async {
        let r = await run(["audit", Self.example("ATS/mistakes.plist"), "--output", "/nonexistent-folder/report.txt"])
        #expect(r.status == 2)
        #expect(r.err.contains("--output /nonexistent-folder/report.txt cannot be written: the folder /nonexistent-folder does not exist"), "\(r.err)")
    }

    /// A file is not a terminal: what a terminal shows in colour is written without escapes.
    @Test func aReportFileHasNoColour() async throws {
        let dir = try TemporaryDirectory()
        let arguments = ["audit", Self.example("ATS/mistakes.plist")]
        let terminal = await run(arguments, color: true)
        #expect(terminal.out.contains("\u{1B}["))
        _ = await run(arguments + ["--output", dir.file("report.txt")], color: true)
        let file = try String(contentsOfFile: dir.file("report.txt"), encoding: .utf8)
        #expect(!file.isEmpty && !file.contains("\u{1B}["))
    }

    @Test func noColorTurnsColourOffWhateverTheTerminal() {
        #expect(Output.usesColor(environment: [:], standardOutputIsTerminal: true))
        #expect(!Output.usesColor(environment: ["NO_COLOR": "1"], standardOutputIsTerminal: true))
        #expect(!Output.usesColor(environment: [:], standardOutputIsTerminal: false))
        #expect(!Output.usesColor(environment: ["TERM": "dumb"], standardOutputIsTerminal: true))
        // no-color.org: set and non-empty, whatever the value.
        #expect(!Output.usesColor(environment: ["NO_COLOR": "0"], standardOutputIsTerminal: true))
        #expect(Output.usesColor(environment: ["NO_COLOR": ""], standardOutputIsTerminal: true))
    }

    /// The same text report with colour on and off differs only by its escapes.
    @Test func colourOffRemovesEveryEscapeAndNothingElse() async throws {
        let arguments = ["audit", Self.example("ATS/mistakes.plist")]
        let coloured = await run(arguments, color: true)
        let plain = await run(arguments, color: false)
        #expect(coloured.out.contains("\u{1B}["))
        #expect(!plain.out.contains("\u{1B}"))
        let stripped = coloured.out.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        #expect(stripped == plain.out)
    }
}
