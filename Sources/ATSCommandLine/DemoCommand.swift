import ATSDiagnostics
import ATSTestServers
import ArgumentParser
import Foundation
import TransportClient
import TransportTrust

/// `ats demo`: starts the local cases, diagnoses and fetches each, and checks every result against the expectation.
struct DemoCommand: AsyncParsableCommand, ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the local test servers, run `ats diagnose` and `ats fetch` against each, and compare with what is expected.",
        discussion: """
            Everything runs on 127.0.0.1 with a CA generated for the run; nothing leaves the machine. Prints one row per case: \
            expected, what diagnose found (all 16 nscurl tests are compared), and what fetch found.
            Exit status: 0 when everything agrees, 1 on any disagreement, 2 when the servers cannot start.
            --json prints one object instead: each case with what was expected and found, and whether they agree.
            """
    )

    @Option(help: "Time limit in seconds for each request (default 10).")
    var timeout: Double = 10

    @Flag(help: "Also print each case's full diagnosis.")
    var verbose = false

    @OptionGroup var report: ReportOptions

    func validate() throws {
        if verbose && report.json {
            throw ValidationError("--verbose adds each diagnosis as text, and --json prints one JSON object; for diagnoses as JSON, run 'ats diagnose --json' against 'ats serve'")
        }
        if !(timeout > 0 && timeout <= 600) { throw ValidationError("--timeout must be above 0 and at most 600 seconds, not \(timeout)") }
    }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        let clock = ContinuousClock()
        let start = clock.now
        let directory: String
        let servers: LocalServers
        do {
            directory = try ServeCommand.temporaryDirectory()
            servers = try await LocalServers.start(directory: directory)
        } catch {
            out.error("ats demo: the local servers could not start: \(error)\n")
            return 2
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let started = clock.now - start
        let report = await Self.check(servers, timeout: timeout, verbose: verbose, output: out)
        await servers.shutdown()
        let total = clock.now - start
        let agreed = report.failures == 0
        if self.report.json {
            if report.cases.isEmpty { out.error("ats demo: \(report.text)") }
            out.write(DemoJSON(cases: report.cases, disagreements: report.failures, seconds: total.inSeconds).json + "\n")
            return agreed ? 0 : 1
        }
        out.write(report.text)
        out.write("\n\(servers.cases.count) cases, \(report.failures) disagreement\(report.failures == 1 ? "" : "s"); "
                  + "servers and CA up in \(Self.seconds(started)) s, all done in \(Self.seconds(total)) s. "
                  + (agreed ? out.green("Everything agrees.") : out.red("Disagreements above.")) + "\n")
        return agreed ? 0 : 1
    }

    struct Report {
        var text: String
        var failures: Int
        var cases: [DemoJSON.Case] = []
    }

    /// Diagnoses and fetches every case and renders the table.
    static func check(_ servers: LocalServers, timeout: Double, verbose: Bool, output out: Output) async -> Report {
        // Most cases trust the local CA as the caller's anchor; the CT cases take it as a public root, with the local log list.
        var diagnoses: [String: HostDiagnosis] = [:]
        for publicRoot in [false, true] {
            let group = servers.cases.filter { $0.testCase.needsPublicRoot == publicRoot }
            guard let first = group.first else { continue }
            let trust: (anchors: TrustAnchors, transparency: CertificateTransparencyOptions)
            do { trust = try servers.trust(for: first.testCase) } catch {
                return Report(text: "cannot set up trust for the local cases: \(error)\n", failures: 1)
            }
            var options = DiagnosisOptions(anchors: trust.anchors, timeout: .milliseconds(Int64(timeout * 1000)))
            options.certificateTransparency = trust.transparency
            await DiagnosisScan(diagnoser: Diagnoser(options: options), concurrency: 4).run(group.map(\.url)) { diagnoses[$0.url] = $0 }
        }
        var rows: [[String]] = []
        var details = ""
        var failures = 0
        var cases: [DemoJSON.Case] = []
        for running in servers.cases {
            let expected = running.testCase
            let fetched = expected.needsPublicRoot
                ? await fetchWithPublicRoot(running.url, trust: try? servers.trust(for: expected), timeout: timeout)
                : await fetch(running.url, caFile: servers.caFile, timeout: timeout)
            guard let diagnosis = diagnoses[running.url] else {
                failures += 1
                cases.append(DemoJSON.Case(name: expected.rawValue, url: running.url, expected: expected.expectedText,
                                           expectedMatrix: expected.expectedMatrix, diagnoseGot: nil, matrix: nil,
                                           expectedFetch: expected.expectedFetch, fetchGot: fetched, agrees: false))
                rows.append([expected.rawValue, expected.expectedText, "no diagnosis", fetched, out.red("✗")])
                continue
            }
            let matrix = diagnosis.matrix
            let got = Self.gotText(diagnosis)
            let diagnoseAgrees = matrix == expected.expectedMatrix && diagnosis.recommendation.kind == expected.expectedRecommendation
                && (expected.expectedConfiguration == nil || diagnosis.recommendation.configuration == expected.expectedConfiguration)
            let fetchAgrees = fetched == expected.expectedFetch
            if !diagnoseAgrees || !fetchAgrees { failures += 1 }
            cases.append(DemoJSON.Case(name: expected.rawValue, url: running.url, expected: expected.expectedText,
                                       expectedMatrix: expected.expectedMatrix, diagnoseGot: got, matrix: matrix,
                                       expectedFetch: expected.expectedFetch, fetchGot: fetched, agrees: diagnoseAgrees && fetchAgrees))
            rows.append([expected.rawValue, expected.expectedText, diagnoseAgrees ? got : "\(got) [\(matrix)]",
                         fetchAgrees ? fetched : "\(fetched) (expected \(expected.expectedFetch))",
                         diagnoseAgrees && fetchAgrees ? out.green("✓") : out.red("✗")])
            if !diagnoseAgrees {
                details += "\n\(expected.rawValue): expected \(expected.expectedMatrix), got \(matrix)\n"
                details += DiagnosisRendering.text(diagnosis, verbose: true)
            } else if verbose {
                details += "\n" + DiagnosisRendering.text(diagnosis, verbose: true)
            }
        }
        let table = DiagnosisRendering.table(header: ["CASE", "EXPECTED", "DIAGNOSE GOT", "FETCH GOT", ""], rows: rows)
        let legend = "(matrix: nscurl's 16 tests in order, P pass, F fail, N not testable)\n"
        return Report(text: details + "\n" + table + legend, failures: failures, cases: cases)
    }

    /// What the diagnosis found, in the words of ``BadSSLCase/expectedText``.
    static func gotText(_ d: HostDiagnosis) -> String {
        Recommendation.outcomeText(defaultResult: d.outcome("default")?.result.rawValue ?? "?", kind: d.recommendation.kind,
                                   configuration: d.recommendation.configuration)
    }

    /// Runs `ats fetch --json` in-process and returns the HTTP status or the refusal kind.
    static func fetch(_ url: String, caFile: String, timeout: Double) async -> String {
        let captured = Output.capture()
        _ = await ATSCommand.run(arguments: ["fetch", url, "--anchors", caFile, "--json", "--timeout", String(timeout)], output: captured)
        guard let object = try? JSONSerialization.jsonObject(with: Data(captured.standardOutput.utf8)) as? [String: Any] else {
            return "no JSON: \(captured.standardError.prefix(80))"
        }
        if let status = object["status"] as? Int { return String(status) }
        if let error = object["error"] as? [String: Any], let kind = error["kind"] as? String { return kind }
        return "unreadable result"
    }

    /// What `ats fetch` reports with the local root as a system root (`SSL_CERT_FILE`) and `--ct-log-list` of the local
    /// list, through the same client; in-process, where the environment cannot be set per request.
    static func fetchWithPublicRoot(_ url: String, trust: (anchors: TrustAnchors, transparency: CertificateTransparencyOptions)?,
                                    timeout: Double) async -> String {
        guard let trust else { return "no trust for the case" }
        let limit = Duration.milliseconds(Int64(timeout * 1000))
        var configuration = HTTPSClientConfiguration(anchors: trust.anchors, timeouts: Timeouts(connect: limit, handshake: limit, request: limit))
        configuration.certificateTransparency = trust.transparency
        let client = HTTPSClient(configuration: configuration)
        let result: String
        do throws(TransportError) { result = String(try await client.execute(HTTPRequest(url: url)).status.code) } catch {
            result = error.kind.rawValue
        }
        await client.shutdown()
        return result
    }

    static func seconds(_ d: Duration) -> String { String(format: "%.2f", d.inSeconds) }
}

/// `ats demo --json`: every case, what was expected and what diagnose and fetch found.
struct DemoJSON: Encodable {
    struct Case: Encodable {
        var name: String
        var url: String
        var expected: String
        var expectedMatrix: String
        /// Nil when the case got no diagnosis.
        var diagnoseGot: String?
        var matrix: String?
        var expectedFetch: String
        var fetchGot: String
        var agrees: Bool
    }

    var cases: [Case]
    var disagreements: Int
    var seconds: Double
    var agrees: Bool { disagreements == 0 }

    enum CodingKeys: String, CodingKey { case cases, disagreements, seconds, agrees }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cases, forKey: .cases)
        try container.encode(disagreements, forKey: .disagreements)
        try container.encode((seconds * 100).rounded() / 100, forKey: .seconds)
        try container.encode(agrees, forKey: .agrees)
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return #"{"error":"internalError"}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
