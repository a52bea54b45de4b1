import AppBundles
import AppTransportSecurity
import ArgumentParser
import HTMLReports
import Foundation
import TransportTrust

struct AuditCommand: AsyncParsableCommand, ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Audit the App Transport Security configuration of Info.plists, .app folders or .ipa archives.",
        discussion: """
            Exit status: 0 when no finding reaches --fail-on (default high), 1 when one does, 2 for unreadable input.
            Text output is coloured on a terminal unless NO_COLOR is set to a non-empty value.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, sarif, html }

    @Argument(help: "Info.plist files (XML or binary), bare NSAppTransportSecurity plists, .app folders or .ipa archives; - reads a plist from standard input.")
    var paths: [String] = []

    @Option(help: "text (default), json, sarif or html (one self-contained page: no script, no external resource).")
    var format: Format?

    @OptionGroup var report: ReportOptions

    /// --format, with --json as the short form of --format json.
    var chosenFormat: Format { report.json ? .json : format ?? .text }

    @Option(name: .customLong("fail-on"), help: "The lowest severity that makes the exit status 1: info, low, medium or high.")
    var failOn: Severity = .high

    @OptionGroup var platformOption: PlatformOption

    @OptionGroup var readingOption: ReadingOption

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one path, e.g. 'ats audit App/Info.plist'") }
        if report.json, let format, format != .json { throw ValidationError("--json and --format \(format.rawValue) ask for two formats; keep one") }
    }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        var sources: [ConfigurationSource] = []
        for path in paths {
            do {
                sources += try readingOption.loader.load(path: path)
            } catch {
                out.error("ats audit: \(error)\n")
                return 2
            }
        }
        let report = Auditor(platform: platformOption.applePlatform).audit(sources)
        switch chosenFormat {
        case .text: out.write(TextReportRenderer(color: out.useColor).render(report))
        case .json: out.write(JSONReportRenderer().render(report) + "\n")
        case .sarif: out.write(SARIFReportRenderer(toolVersion: TransportSecurityVersion.current).render(report) + "\n")
        case .html: out.write(AuditHTMLReport.render(report) + "\n")
        }
        return report.exitStatus(failOn: failOn)
    }
}

extension Severity: ExpressibleByArgument {}
