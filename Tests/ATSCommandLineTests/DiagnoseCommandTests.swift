import TestSupport
import DiagnosisTestSupport
import ATSDiagnostics
import ATSTestServers
import AppTransportSecurity
import Foundation
import Testing

@testable import ATSCommandLine

/// The command: nscurl's layout, --verbose, --json against the documented schema, exit codes, bad input.
@Suite struct DiagnoseCommandTests {
    /// --json is --format json for diagnose, and for report merge of its lines; --output and --quiet as everywhere.
    @Test func jsonIsFormatJSONForDiagnoseAndReportMerge() async throws {
        let servers = try await SharedServers.shared.servers()
        let url = try #require(servers.url(for: .good))
        let short = await ats(["diagnose", url, "--anchors", servers.caFile, "--json"])
        let long = await ats(["diagnose", url, "--anchors", servers.caFile, "--format", "json"])
        #expect(short.status == 0 && long.status == 0, "\(short.err)\(long.err)")
        // Each run takes its own time; all else is the same.
        #expect(try Self.withoutTimes(short.out) == Self.withoutTimes(long.out))

        let dir = try TemporaryDirectory()
        let lines = try dir.write("lines.jsonl", short.out)
        let merged = await ats(["report", "merge", lines])
        let mergedShort = await ats(["report", "merge", lines, "--json"])
        let mergedLong = await ats(["report", "merge", lines, "--format", "json"])
        #expect(merged.status == 0 && !merged.out.isEmpty, "\(merged.err)")
        #expect(mergedShort.out == merged.out && mergedLong.out == merged.out)
        let quiet = await ats(["report", "merge", lines, "--quiet"])
        #expect(quiet.status == 0 && quiet.out.isEmpty)
        let written = await ats(["diagnose", url, "--anchors", servers.caFile, "--json", "--output", dir.file("report.jsonl")])
        #expect(written.status == 0 && written.out.isEmpty, "\(written.err)")
        #expect(try Self.withoutTimes(String(contentsOfFile: dir.file("report.jsonl"), encoding: .utf8)) == Self.withoutTimes(short.out))
        let quietDiagnosis = await ats(["diagnose", url, "--anchors", servers.caFile, "--quiet"])
        #expect(quietDiagnosis.status == 0 && quietDiagnosis.out.isEmpty)
    }

    /// The JSON lines with every "milliseconds" removed, as objects to compare.
    static func withoutTimes(_ jsonLines: String) throws -> [NSDictionary] {
        func strip(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                return object.filter { $0.key != "milliseconds" }.mapValues(strip)
            }
            if let array = value as? [Any] { return array.map(strip) }
            return value
        }
        return try jsonLines.split(separator: "\n").map { line in
            let object = try #require(strip(try JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])
            return object as NSDictionary
        }
    }

    @Test func textFollowsNSCurlsLayout() async throws {
        let servers = try await SharedServers.shared.servers()
        let url = try #require(servers.url(for: .tls10Only))
        let result = await ats(["diagnose", url, "--anchors", servers.caFile])
        #expect(result.status == 1)
        let lines = result.out.components(separatedBy: "\n")
        #expect(lines.first == "Starting ATS Diagnostics")
        #expect(lines.contains("Configuring ATS Info.plist keys and displaying the result of HTTPS loads to \(url)."))
        #expect(lines.filter { $0 == String(repeating: "=", count: 80) }.count == 8)
        let titles = NSCurlSection.allCases.map { $0.title(host: "127.0.0.1") }
        let positions = titles.compactMap { lines.firstIndex(of: $0) }
        #expect(positions.count == 7 && positions == positions.sorted(), "sections missing or out of nscurl's order")
        #expect(lines.filter { $0.hasPrefix("Result : ") }.count == 16)
        #expect(lines.filter { $0 == "---" }.count >= 34)
        // The first test: between --- lines, title, result.
        let first = try #require(lines.firstIndex(of: "ATS Default Connection"))
        #expect(lines[first - 1] == "---" && lines[first + 1] == "Result : FAIL")
        let tls10 = try #require(lines.firstIndex(of: "TLSv1.0"))
        #expect(lines[tls10 + 1] == "Result : PASS")
        #expect(lines[tls10 + 2].hasPrefix("Negotiated : TLSv1.0, TLS_ECDHE_"))
        #expect(result.out.contains("<key>NSExceptionMinimumTLSVersion</key>\n\t\t\t<string>TLSv1.0</string>"))
        #expect(!result.out.contains("ATS Dictionary:"))
    }

    /// --trust-store apple: the header says the report answers whether an iPhone on iOS 26 would trust the server, and
    /// the JSON names store and platform. The local CA is in no public store, so only --anchors makes it trusted.
    @Test func appleTrustStoreSaysWhatItAnswers() async throws {
        let servers = try await SharedServers.shared.servers()
        let url = try #require(servers.url(for: .good))
        let apple = await ats(["diagnose", url, "--trust-store", "apple"])
        #expect(apple.status == 1)
        let lines = apple.out.components(separatedBy: "\n")
        let question = "Trust is evaluated with Apple's trust store 2025072000 and the TLS server rules of iOS 26: it answers whether an iPhone on iOS 26 would trust this server."
        #expect(Array(lines.prefix(7)).contains(question), "\(lines.prefix(8))")
        // Before it, the header says whether CT is enforced and with which list (#40).
        #expect(lines[5].hasPrefix("Certificate Transparency: ") && lines[5].contains("CT log list"), "\(lines.prefix(8))")
        #expect(lines.firstIndex(of: question) == lines.firstIndex(of: String(repeating: "=", count: 80)).map { $0 - 1 })

        let json = await ats(["diagnose", url, "--trust-store", "apple", "--anchors", servers.caFile, "--json", "--platform", "ios13"])
        #expect(json.status == 0, "\(json.out)\(json.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(object["trustStore"] as? String == "apple")
        #expect(object["trustStoreVersion"] as? Int == 2025072000)
        #expect(object["platform"] as? String == "iOS 13")

        let system = await ats(["diagnose", url, "--anchors", servers.caFile])
        #expect(!system.out.contains("Trust is evaluated with"), "the system store's report is nscurl's")
    }

    @Test func verboseShowsTheDictionaryAndTheError() async throws {
        let servers = try await SharedServers.shared.servers()
        let url = try #require(servers.url(for: .expired))
        let result = await ats(["diagnose", url, "--anchors", servers.caFile, "--verbose"])
        #expect(result.status == 1)
        #expect(result.out.contains("ATS Dictionary:\n{\n}\nResult : FAIL"))
        #expect(result.out.contains("ATS Dictionary:\n{\n    NSAllowsArbitraryLoads = true;\n}"))
        #expect(result.out.contains("""
            {
                NSExceptionDomains =     {
                    "127.0.0.1" =         {
                        NSExceptionMinimumTLSVersion = "TLSv1.3";
                    };
                };
            }
            """))
        #expect(result.out.contains("Error : Error Domain=NSURLErrorDomain Code=-1201 \"The certificate for this server has expired.\" UserInfo={_kCFStreamErrorDomainKey=3, _kCFStreamErrorCodeKey=-9814}"))
        #expect(result.out.contains("Codes : NSURLErrorServerCertificateHasBadDate, errSSLCertExpired"))
        #expect(result.out.contains("Reason : serverTrustRefused during handshake"))
    }

    @Test func exitsZeroWhenTheDefaultTestPassesEverywhere() async throws {
        let servers = try await SharedServers.shared.servers()
        let good = try #require(servers.url(for: .good))
        let auth = try #require(servers.url(for: .basicAuth))
        let result = await ats(["diagnose", good, auth, "--anchors", servers.caFile])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("none needed"))
    }

    /// A NOT TESTABLE default test is no failure and no pass: exit status 3, unless another URL fails (1).
    @Test(.enabled(if: OpenSSLServer.isAvailable))
    func anUndecidedDefaultTestExitsThreeAndClaimsNoFailure() async throws {
        let servers = try await SharedServers.shared.servers()
        let (server, dir) = try servers.openSSLServer(ciphers: "ECDHE-RSA-AES256-SHA384")
        defer { server.stop(); _ = dir }
        let url = "https://127.0.0.1:\(server.port)/"
        let result = await ats(["diagnose", url, "--anchors", servers.caFile])
        #expect(result.status == 3, "\(result.out)")
        #expect(result.out.contains("ATS Default Connection\nResult : NOT TESTABLE"))
        #expect(result.out.contains("cannot be decided here"))
        #expect(!result.out.contains("must"), "\(result.out)")

        let json = await ats(["diagnose", "--json", url, "--anchors", servers.caFile])
        #expect(json.status == 3)
        let schemaData = try #require(FileManager.default.contents(atPath: SchemaValidator.diagnoseSchemaPath))
        let schema = try #require(try JSONSerialization.jsonObject(with: schemaData) as? [String: Any])
        let document = try JSONSerialization.jsonObject(with: Data(json.out.utf8))
        #expect(SchemaValidator.violations(of: document, against: schema).isEmpty)
        let recommendation = try #require((document as? [String: Any])?["recommendation"] as? [String: Any])
        #expect(recommendation["kind"] as? String == "undecided")

        let good = try #require(servers.url(for: .good))
        let expired = try #require(servers.url(for: .expired))
        let both = await ats(["diagnose", good, url, "--anchors", servers.caFile], errorIsTerminal: true)
        #expect(both.status == 3)
        #expect(both.err.hasSuffix("2/2 hosts, 0 failing default ATS\n"), "\(both.err.debugDescription)")
        #expect(both.out.contains("cannot be decided here (check on a Mac)"))
        #expect(await ats(["diagnose", expired, url, "--anchors", servers.caFile]).status == 1)
    }

    @Test func jsonMatchesTheDocumentedSchema() async throws {
        let servers = try await SharedServers.shared.servers()
        let schemaData = try #require(FileManager.default.contents(atPath: SchemaValidator.diagnoseSchemaPath), "docs/diagnose.schema.json")
        let schema = try #require(try JSONSerialization.jsonObject(with: schemaData) as? [String: Any])
        let urls = try [BadSSLCase.good, .tls10Only, .expired, .redirectToHTTP].map { try #require(servers.url(for: $0)) }
        let result = await ats(["diagnose", "--json", "--anchors", servers.caFile] + urls)
        #expect(result.status == 1)
        let lines = result.out.split(separator: "\n")
        #expect(lines.count == urls.count, "one document per URL, one per line")
        for line in lines {
            let document = try JSONSerialization.jsonObject(with: Data(line.utf8))
            let problems = SchemaValidator.violations(of: document, against: schema)
            #expect(problems.isEmpty, "\(problems)")
            let object = try #require(document as? [String: Any])
            #expect((object["tests"] as? [Any])?.count == ATSTestCase.all.count)
        }
        // A chain to a user-supplied anchor needs no SCTs, and the document says so.
        let documents = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let good = try #require(documents.first { $0?["url"] as? String == urls[0] } ?? nil, "\(result.out)")
        #expect((good["certificateTransparency"] as? [String: Any])?["status"] as? String == "notRequired", "\(good)")
        // The checker itself catches a document that breaks the schema.
        let broken: [String: Any] = ["schema": "ats-diagnose/1", "url": 1, "extra": true]
        #expect(SchemaValidator.violations(of: broken, against: schema).count >= 3)
    }

    @Test func manyHostsEndWithASummaryTableAndPlainProgressLines() async throws {
        let servers = try await SharedServers.shared.servers()
        let dir = try TemporaryDirectory()
        let targets = try dir.write("targets.txt", """
            # local cases
            \(try #require(servers.url(for: .good)))

            \(try #require(servers.url(for: .tls11Only)))
            \(try #require(servers.url(for: .selfSigned)))
            """)
        let result = await ats(["diagnose", "--targets", targets, "--concurrency", "2", "--anchors", servers.caFile])
        #expect(result.status == 1)
        #expect(result.out.contains("Summary (3 URLs)"))
        let table = try #require(result.out.components(separatedBy: "Summary (3 URLs)\n").last)
        #expect(table.hasPrefix("HOST"))
        #expect(table.contains("PASS") && table.contains("TLSv1.1") && table.contains("none helps: fix the server"))
        #expect(result.err.components(separatedBy: "\n").filter { $0.hasPrefix("[") }.count == 3)
    }

    @Test func onATerminalProgressIsOneBarRedrawnInPlace() async throws {
        let servers = try await SharedServers.shared.servers()
        let urls = try [BadSSLCase.good, .expired, .tls11Only].map { try #require(servers.url(for: $0)) }
        let result = await ats(["diagnose", "--anchors", servers.caFile, "--concurrency", "1"] + urls, errorIsTerminal: true)
        #expect(result.status == 1)
        // Each redraw erases the line first; only the final newline ends it, so the bar never scrolls.
        let redraws = result.err.components(separatedBy: "\r\u{1B}[K")
        #expect(redraws.count == 3, "one erase before each redraw after the first: \(result.err.debugDescription)")
        #expect(result.err.filter { $0 == "\n" }.count == 1 && result.err.hasSuffix("\n"))
        let bars = redraws.map { $0.trimmingCharacters(in: .newlines) }
        #expect(bars[0] == "[##########....................] 1/3 hosts, 0 failing default ATS")
        #expect(bars[1] == "[####################..........] 2/3 hosts, 1 failing default ATS")
        #expect(bars[2] == "[##############################] 3/3 hosts, 2 failing default ATS")
        // The reports on standard output are whole; the bar never lands inside them.
        #expect(!result.out.contains("\u{1B}") && !result.out.contains("hosts, "))
        #expect(result.out.contains("Summary (3 URLs)"))
    }

    @Test func withNothingReadingTheReportsNoFurtherHostIsStarted() async throws {
        let servers = try await SharedServers.shared.servers()
        let urls = try [BadSSLCase.good, .expired, .tls11Only].map { try #require(servers.url(for: $0)) }
        let out = Pipe(), err = Pipe()
        try out.fileHandleForReading.close()
        let output = Output(capturing: false, color: false, errorIsTerminal: false, standardOutput: out.fileHandleForWriting,
                            standardError: err.fileHandleForWriting)
        let status = await DiagnosisGate.shared.run {
            await ATSCommand.run(arguments: ["diagnose", "--anchors", servers.caFile, "--concurrency", "1"] + urls, output: output)
        }
        #expect(status == Output.brokenPipeStatus)
        // The scan stops itself; it used to cancel the task it ran in, which is whoever called `ats` in-process.
        #expect(!Task.isCancelled)
        try err.fileHandleForWriting.close()
        let progress = String(decoding: try err.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        #expect(progress.split(separator: "\n").count == 1, "one host diagnosed, then the scan stopped: \(progress)")
    }

    @Test func oneURLShowsNoProgress() async throws {
        let servers = try await SharedServers.shared.servers()
        let url = try #require(servers.url(for: .good))
        let result = await ats(["diagnose", "--anchors", servers.caFile, url], errorIsTerminal: true)
        #expect(result.status == 0)
        #expect(result.err.isEmpty, "\(result.err.debugDescription)")
    }

    @Test(arguments: [
        (["diagnose", "ftp://example.com/"], "argument 1"),
        (["diagnose", "not a url"], "argument 1"),
        // Local and refused, so that a URL let through would fail with 1, not reach the network.
        (["diagnose", "https://127.0.0.1:1/a b"], "a space (U+0020) at character 22"),
        (["diagnose", "https://127.0.0.1:1/ok\r\nhttps://127.0.0.1:2/"], "a line break (U+000D) at character 23"),
        (["diagnose", "https://example.com:70000/"], "out of range"),
        (["diagnose", "https://example.com/", "--timeout", "0"], "--timeout"),
        (["diagnose", "https://example.com/", "--concurrency", "0"], "--concurrency"),
        (["diagnose", "https://example.com/", "--platform", "ios3"], "--platform"),
        (["diagnose"], "at least one URL"),
        (["diagnose", "--targets", "/nonexistent/targets.txt"], "cannot read --targets"),
        (["diagnose", "https://example.com/", "--anchors", "/nonexistent/ca.pem"], "/nonexistent/ca.pem"),
        (["serve", "--port-base", "70000"], "--port-base"),
        (["serve", "--case", "nope"], "unknown --case"),
    ])
    func badInputIsAUsageErrorNamingTheProblem(_ arguments: [String], _ words: String) async {
        let result = await ats(arguments)
        #expect(result.status == 2)
        #expect(result.err.contains(words), "\(result.err)")
    }

    @Test func aTargetsFileWithCRLFLineEndsAndAByteOrderMarkIsOneURLALine() async throws {
        let servers = try await SharedServers.shared.servers()
        let good = try #require(servers.url(for: .good))
        let tls11 = try #require(servers.url(for: .tls11Only))
        let dir = try TemporaryDirectory()
        let targets = try dir.write("targets.txt", "\u{FEFF}# hosts\r\n\(good)\r\n\r\n\(tls11)\r\n")
        let result = await ats(["diagnose", "--targets", targets, "--anchors", servers.caFile])
        #expect(result.status == 1, "\(result.err)")
        #expect(result.out.contains("Summary (2 URLs)"), "\(result.out)")
        #expect(result.out.contains("HTTPS loads to \(good)."))
        #expect(result.out.contains("HTTPS loads to \(tls11)."))

        let bad = try dir.write("bad.txt", "\(good)\r\nmailto:someone@example.com\r\n")
        let refused = await ats(["diagnose", "--targets", bad])
        #expect(refused.status == 2)
        #expect(refused.err.contains("bad.txt:2:"), "\(refused.err)")
    }

    /// A binary --targets file names the option and says what to give instead (review-api F12).
    @Test func aTargetsFileThatIsNotUTF8NamesTheOptionAndTheFix() async throws {
        let dir = try TemporaryDirectory()
        let targets = try dir.write("targets.bin", bytes: [0x31, 0xFF, 0xFE, 0x80, 0x0A])
        let result = await ats(["diagnose", "--targets", targets])
        #expect(result.status == 2)
        #expect(result.err.contains("--targets file '\(targets)' is not UTF-8 text; give a text file with one URL a line"), "\(result.err)")
    }

    @Test func aBadLineInTheTargetsFileIsNamedByLine() async throws {
        let dir = try TemporaryDirectory()
        let targets = try dir.write("targets.txt", "https://example.com/\n# comment\nmailto:someone@example.com\n")
        let result = await ats(["diagnose", "--targets", targets])
        #expect(result.status == 2)
        #expect(result.err.contains("targets.txt:3:"), "\(result.err)")
    }
}
