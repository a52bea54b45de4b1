import AppTransportSecurity
import ArgumentParser
import Foundation
import TransportTrust

struct AuditCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Audit the App Transport Security configuration of Info.plists, .app folders or .ipa archives.",
        discussion: """
            Exit status: 0 when no finding reaches --fail-on (default high), 1 when one does, 2 for unreadable input.
            Text output is coloured on a terminal unless NO_COLOR is set.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, sarif }

    @Argument(help: "Info.plist files (XML or binary), bare NSAppTransportSecurity plists, .app folders or .ipa archives.")
    var paths: [String] = []

    @Option(help: "text (default), json or sarif.")
    var format: Format = .text

    @Option(name: .customLong("fail-on"), help: "The lowest severity that makes the exit status 1: info, low, medium or high.")
    var failOn: Severity = .high

    @Option(help: "Platform rules: ios9, ios10 (10–16), ios17 (default), macos10.11, macos10.12, macos14, or a version such as ios15.")
    var platform: String?

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one path, e.g. 'ats audit App/Info.plist'") }
        if let platform, PlatformProfile(name: platform) == nil {
            throw ValidationError("unknown --platform '\(platform)'; use one of \(PlatformProfile.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        let profile = platform.flatMap(PlatformProfile.init(name:)) ?? .newest
        var sources: [ConfigurationSource] = []
        for path in paths {
            do {
                sources += try ConfigurationLoader().load(path: path)
            } catch {
                out.error("ats audit: \(error)\n")
                return 2
            }
        }
        let report = Auditor(profile: profile).audit(sources)
        switch format {
        case .text: out.write(TextReportRenderer(color: out.useColor).render(report))
        case .json: out.write(JSONReportRenderer().render(report) + "\n")
        case .sarif: out.write(SARIFReportRenderer(toolVersion: TransportSecurityVersion.current).render(report) + "\n")
        }
        return report.exitStatus(failOn: failOn)
    }
}

extension Severity: ExpressibleByArgument {}
