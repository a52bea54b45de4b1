import ATSDiagnostics
import AppTransportSecurity
import ArgumentParser
import HTMLReports
import Foundation
import NIOConcurrencyHelpers
import TransportTrust

/// `ats diagnose`: nscurl --ats-diagnostics on any platform, a thin shell over ATSDiagnostics.
struct DiagnoseCommand: AsyncParsableCommand, ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagnose",
        abstract: "Run nscurl's ATS diagnostics against URLs, from any platform.",
        discussion: """
            Each of nscurl's tests is an ATS dictionary resolved by the same code as `ats check` and sent through the same client \
            as `ats fetch`, so a PASS is a load the client accepts. After nscurl's report come the negotiated TLS version and suite, \
            the server's chain, and the smallest Info.plist exception that makes the URL load (or what the server must fix).
            --json prints one JSON document per URL, one per line (schema in docs/DIAGNOSE.md).
            With --trust-store apple the chain is evaluated against Apple's root store (iOS 26) and Apple's TLS server rules for \
            --platform (default iOS 26): the report then answers whether an iPhone on iOS 26 would trust the server.
            Exit status: 0 when the default ATS test passes for every URL, 1 when it fails for any, 3 when none fails but \
            some could not be decided here (NOT TESTABLE), 2 for usage or input errors.
            """
    )

    @Argument(help: "https:// URLs to diagnose.")
    var urls: [String] = []

    @Option(help: "A file of URLs, one a line, LF or CRLF (blank lines and lines starting with # are skipped).")
    var targets: String?

    @Flag(help: "Show each test's ATS dictionary and error (closest NSURLErrorDomain and kCFStreamErrorDomainSSL codes, then our reason).")
    var verbose = false

    /// --json prints one JSON document per URL, one per line, instead of text (the same as --format json).
    @OptionGroup var report: ReportOptions
    var json: Bool { report.json }

    @Option(help: "text (default), json (one document per URL, one per line), or html: one self-contained page for every URL, written when the scan ends.")
    var format: ReportFormat?

    @OptionGroup var anchorOptions: AnchorOptions

    @Option(help: "Time limit in seconds for each test (default 10). A host's tests run in parallel, so a host costs about this.")
    var timeout: Double = 10

    @Option(help: "How many hosts to diagnose at once (default 8).")
    var concurrency: Int = 8

    @OptionGroup var platformOption: PlatformOption

    @OptionGroup var resolveOptions: ResolveOptions

    @OptionGroup(title: "Certificate Transparency (a server whose certificate embeds no SCTs is NOT TESTABLE: it may send them in the handshake)")
    var ctOptions: CTOptions

    @Option(help: ArgumentHelp("Diagnose only shard K of N (1 ≤ K ≤ N): a stable partition by host, so that N machines given the same targets and 1/N … N/N diagnose every host once. Their --json lines concatenate into one result (ats report merge).",
                               valueName: "K/N"))
    var shard: String?

    @Option(help: ArgumentHelp("Append the --json lines to FILE instead of standard output, skipping every URL FILE already holds: an interrupted scan run again with the same FILE goes on where it stopped (a line cut off mid-write is redone).",
                               valueName: "FILE"))
    var resume: String?

    func validate() throws {
        if !(timeout > 0 && timeout <= 3600) { throw ValidationError("--timeout must be a number of seconds above 0 and at most 3600, not \(timeout)") }
        if !(1...1000).contains(concurrency) { throw ValidationError("--concurrency must be between 1 and 1000, not \(concurrency)") }
        if urls.isEmpty && targets == nil { throw ValidationError("give at least one URL, or --targets FILE") }
        if let shard { do { _ = try ScanShard(shard) } catch { throw ValidationError("--shard \(error)") } }
        let chosen = try ReportFormat.chosen(format, json: json)
        if let resume, let output = report.output {
            throw ValidationError("--resume \(resume) already takes the report; drop --output \(output)")
        }
        if resume != nil && chosen != .json {
            throw ValidationError("--resume keeps the --json lines of the scan; add --json (ats report merge --format html makes the page from them)")
        }
    }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        let plan: ScanPlan
        let diagnoser: Diagnoser
        do {
            plan = try scanPlan(output: out)
            diagnoser = Diagnoser(options: try options(output: out))
        } catch {
            out.error("ats diagnose: \(error)\n")
            return 2
        }
        let (list, log) = (plan.urls, plan.log)
        var defaults = plan.doneResults
        let many = list.count > 1
        let progress = Progress(total: list.count, enabled: many, bar: out.errorIsTerminal, output: out)
        var rows: [DiagnosisRendering.SummaryRow] = []
        var failedWrite: String?
        // Validated before: the flags agree.
        let format = (try? ReportFormat.chosen(self.format, json: json)) ?? .text
        var page: [HostDiagnosis] = []
        await DiagnosisScan(diagnoser: diagnoser, concurrency: concurrency).run(reportingUntilStopped: list) { diagnosis in
            progress.clear()
            if let log {
                // One write per line, so that a scan killed at any moment leaves whole lines and at most one cut off.
                if let problem = log.append(DiagnosisRendering.json(diagnosis) + "\n") {
                    failedWrite = problem
                    return false
                }
            } else {
                switch format {
                case .json: out.write(DiagnosisRendering.json(diagnosis) + "\n")
                case .text: out.write(DiagnosisRendering.text(diagnosis, verbose: verbose))
                case .html: page.append(diagnosis)
                }
            }
            defaults.append(diagnosis.defaultResult)
            rows.append(DiagnosisRendering.SummaryRow(diagnosis))
            progress.advance(diagnosis)
            // Nobody reads the reports any more (`| head`): start no further host; the exit status says so. The scan
            // stops itself: cancelling the current task would cancel whoever called `ats` in-process too.
            return !out.standardOutputClosed
        }
        progress.finish()
        log?.finish()
        if let failedWrite, let resume {
            out.error("ats diagnose: cannot append to \(resume): \(failedWrite); the lines written so far are kept, run again to go on\n")
            return 1
        }
        if format == .html {
            // In the order given, as a report reads best; the scan finishes hosts in any order.
            out.write(DiagnoseHTMLReport.render(Self.sorted(page, as: list)) + "\n")
        }
        if many && format == .text {
            out.write("\nSummary (\(rows.count) URLs)\n" + DiagnosisRendering.summaryTable(rows))
        }
        return HostDiagnosis.exitStatus(defaultResults: defaults)
    }

    /// What one run diagnoses: the URLs (this shard's, less those the --resume file already holds), and that file
    /// with the default test's results it holds, which count towards the exit status.
    private struct ScanPlan {
        var urls: [String]
        var log: ResumeLog?
        var doneResults: [TestResult] = []
    }

    private func scanPlan(output out: Output) throws -> ScanPlan {
        var plan = ScanPlan(urls: try allURLs())
        if let shard {
            let part = try ScanShard(shard)
            plan.urls = plan.urls.filter { url in (try? Diagnoser.validate(url: url)).map { part.contains(host: $0.host) } ?? true }
        }
        if let resume {
            let opened = try ResumeLog(path: resume)
            let done = Set(opened.done.map(\.url))
            var seen: Set<String> = []
            plan.urls = plan.urls.filter { !done.contains($0) && seen.insert($0).inserted }
            plan.doneResults = opened.done.map(\.defaultResult)
            if opened.redone { out.error("note: the last line of \(resume) was cut off; its host is diagnosed again\n") }
            plan.log = opened
        }
        return plan
    }

    /// The diagnoses in the order of their URLs in `list`.
    private static func sorted(_ page: [HostDiagnosis], as list: [String]) -> [HostDiagnosis] {
        let order = Dictionary(list.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        return page.sorted { (order[$0.url] ?? 0) < (order[$1.url] ?? 0) }
    }

    /// The URLs from the arguments and --targets, each checked before anything is sent.
    func allURLs() throws -> [String] {
        var list: [String] = []
        for (i, url) in urls.enumerated() {
            do throws(DiagnosisInputError) { try Diagnoser.validate(url: url) } catch {
                throw InputError("argument \(i + 1): \(error.description)")
            }
            list.append(url)
        }
        if let targets {
            let data: Data
            do { data = try InputFile.read(targets) } catch {
                throw InputError("cannot read --targets file '\(InputFile.source(targets))': \(error.reason); give a text file with one URL a line")
            }
            guard var text = String(data: data, encoding: .utf8) else {
                throw InputError("--targets file '\(InputFile.source(targets))' is not UTF-8 text; give a text file with one URL a line, saved as UTF-8")
            }
            // Windows editors write a byte-order mark and CRLF. "\r\n" is one Character, so splitting on "\n" alone
            // would leave the whole file one line.
            if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
            for (n, raw) in text.lines.enumerated() {
                let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                if line.isEmpty || line.hasPrefix("#") { continue }
                do throws(DiagnosisInputError) { try Diagnoser.validate(url: line) } catch {
                    throw InputError("\(targets):\(n + 1): \(error.description)")
                }
                list.append(line)
            }
            if list.isEmpty { throw InputError("\(targets): no URLs in the file") }
        }
        return list
    }

    func options(output out: Output) throws -> DiagnosisOptions {
        var options = DiagnosisOptions(profile: platformOption.profile,
                                       anchors: try anchorOptions.trustAnchors(warnings: out),
                                       timeout: .milliseconds(Int64(timeout * 1000)), addressOverrides: resolveOptions.addressOverrides,
                                       platform: platformOption.applePlatform)
        options.certificateTransparency = try ctOptions.options(warnings: out)
        return options
    }
}

/// Progress for many URLs on standard error: a bar redrawn in place on a terminal, one plain line per URL
/// otherwise. Called from the scan's report callback; the counts are locked so that needs no further promise.
final class Progress: Sendable {
    let total: Int
    let enabled: Bool
    let bar: Bool
    let output: Output
    private let counts = NIOLockedValueBox((done: 0, failing: 0))

    init(total: Int, enabled: Bool, bar: Bool, output: Output) {
        self.total = total
        self.enabled = enabled
        self.bar = bar
        self.output = output
    }

    func clear() { if enabled && bar && counts.withLockedValue({ $0.done }) > 0 { output.error("\r\u{1B}[K") } }

    func advance(_ diagnosis: HostDiagnosis) {
        guard enabled else { return }
        let (done, failing) = counts.withLockedValue { counts in
            counts.done += 1
            if diagnosis.defaultResult == .fail { counts.failing += 1 }
            return counts
        }
        if bar {
            let width = 30
            let filled = total == 0 ? width : width * done / total
            output.error("[\(String(repeating: "#", count: filled))\(String(repeating: ".", count: width - filled))] \(done)/\(total) hosts, \(failing) failing default ATS")
        } else {
            output.error("[\(done)/\(total)] \(diagnosis.url): default ATS \(diagnosis.outcome("default")?.result.rawValue ?? "?") (\(diagnosis.milliseconds) ms)\n")
        }
    }

    func finish() { if enabled && bar && counts.withLockedValue({ $0.done }) > 0 { output.error("\n") } }
}
