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

    func run(_ arguments: [String], color: Bool = false) async -> Run {
        let output = Output.capture(color: color)
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
    ]

    @Test(arguments: commands.map(\.name))
    func jsonIsOneValidDocumentOnEveryReportCommand(_ name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let r = await run(command.arguments + ["--json"])
        #expect(r.status == command.status, "\(r.err)")
        // check and diagnose print one document per URL, one per line; these runs have one.
        let parsed = try JSONSerialization.jsonObject(with: Data(r.out.utf8))
        #expect(parsed is [String: Any] || parsed is [Any], "\(r.out)")
    }

    @Test(arguments: ["audit", "verify"])
    func jsonIsFormatJSON(_ name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let short = await run(command.arguments + ["--json"])
        let long = await run(command.arguments + ["--format", "json"])
        #expect(short.status == long.status)
        #expect(!short.out.isEmpty && short.out == long.out)
    }

    @Test(arguments: [(["audit", example("ATS/mistakes.plist"), "--json", "--format", "sarif"], "--json and --format sarif"),
                      (["verify", example("chain.pem"), "--json", "--format", "html"], "--json and --format html"),
                      (["report", "merge", "lines.json", "--json", "--format", "html"], "--json and --format html"),
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
        let printed = await run(command.arguments)
        let written = await run(command.arguments + ["--output", dir.file("report")])
        #expect(written.status == printed.status)
        #expect(written.out.isEmpty)
        #expect(try String(contentsOfFile: dir.file("report"), encoding: .utf8) == printed.out)
        #expect(!printed.out.isEmpty)
    }

    @Test(arguments: commands.map(\.name))
    func quietPrintsNothingButKeepsTheStatus(_ name: String) async throws {
        let command = try #require(Self.commands.first { $0.name == name })
        let r = await run(command.arguments + ["--quiet"])
        #expect(r.status == command.status, "\(r.err)")
        #expect(r.out.isEmpty)
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
    }
}
