import ATSDiagnostics
import ArgumentParser
import HTMLReports
import Foundation
import TransportTrust

/// `ats report`: reports built from the output of other commands.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Combine the output of other commands into one report.",
        subcommands: [ReportMergeCommand.self]
    )
}

/// `ats report merge`: the --json lines of the shards of a fleet scan (or of an interrupted and resumed one) as one
/// result, equal to one uninterrupted scan on one machine.
struct ReportMergeCommand: AsyncParsableCommand, ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the --json lines of ats diagnose scans (shards, resumed runs) into one result.",
        discussion: """
            Each file holds ats diagnose --json lines. The result has one line per URL, sorted by URL, so that it does \
            not depend on which machine or which order the hosts were diagnosed in; a URL found more than once keeps its \
            last line (files in the order given), and a note says so.
            Exit status: as ats diagnose for the merged URLs (0 all pass, 1 any fails, 3 none fails but some are NOT \
            TESTABLE); 2 for usage or input errors, such as a line that is not a diagnosis.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, html
    }

    @Argument(help: "Files of ats diagnose --json lines (- reads standard input).")
    var files: [String] = []

    @Option(help: "json (one diagnosis per line, as ats diagnose --json writes; the default, and what --json asks for) or html (one self-contained page).")
    var format: Format = .json

    @OptionGroup var report: ReportOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one file of ats diagnose --json lines") }
        if report.json && format != .json { throw ValidationError("--json and --format \(format.rawValue) ask for two formats; keep one") }
    }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        var all: [[HostDiagnosis]] = []
        do {
            for file in files {
                let data: Data
                do { data = try InputFile.read(file) } catch {
                    throw InputError("cannot read '\(InputFile.source(file))': \(error.reason)")
                }
                all.append(try DiagnosisLines.read(data, source: InputFile.source(file)))
            }
        } catch {
            out.error("ats report merge: \(error)\n")
            return 2
        }
        let (merged, repeated) = DiagnosisLines.merge(all)
        for url in Set(repeated).sorted() { out.error("note: \(url) is in more than one line; the last one read is kept\n") }
        let text = format == .html ? DiagnoseHTMLReport.render(merged) + "\n" : merged.map { DiagnosisRendering.json($0) + "\n" }.joined()
        out.write(text)
        return HostDiagnosis.exitStatus(defaultResults: merged.map(\.defaultResult))
    }
}
