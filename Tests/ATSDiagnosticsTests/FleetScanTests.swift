import ATSDiagnostics
import Foundation
import TestSupport
import Testing

/// Fleet scans beyond one machine (issue #41): shards by host, merges of their JSON lines, and a scan that is killed
/// and resumed, each giving the same result as one uninterrupted scan on one machine.
@Suite struct FleetScanTests {
    @Test func aShardIsKOfN() throws {
        let shard = try ScanShard("2/8")
        #expect(shard.index == 2 && shard.count == 8 && shard.description == "2/8")
        for bad in ["0/8", "9/8", "8", "a/b", "1/0", "-1/2", "1/2/3", "1/65537"] {
            #expect(throws: ScanShardError.self, "\(bad)") { try ScanShard(bad) }
        }
        #expect { try ScanShard("0/3") } throws: { "\($0)" == "'0/3' is not a shard: K must be from 1 to N (3); shards count from 1" }
    }

    @Test func thePartitionIsStableCompleteAndDisjoint() throws {
        // Fixed values: a change to the hash would split a running fleet differently on machines of two versions.
        #expect(ScanShard.shard(of: "example.com", count: 8) == ScanShard.shard(of: "EXAMPLE.com", count: 8))
        #expect([ScanShard.shard(of: "example.com", count: 8), ScanShard.shard(of: "www.example.org", count: 5)] == Self.pinned)
        let hosts = (0..<3000).map { "host\($0).example.test" }
        for count in [1, 2, 3, 7] {
            let shards = try (1...count).map { try ScanShard("\($0)/\(count)") }
            for host in hosts {
                #expect(shards.filter { $0.contains(host: host) }.count == 1, "\(host) in exactly one of \(count)")
            }
            // No shard is starved: each gets a fair part of 3,000 hosts.
            for shard in shards {
                let part = hosts.filter(shard.contains).count
                #expect(part > 3000 / count / 2, "\(shard): \(part)")
            }
        }
    }

    /// SHA-256("example.com") and SHA-256("www.example.org"), their first 8 bytes read big-endian, mod 8 and mod 5,
    /// plus one (computed with Python's hashlib, 2026-12-05).
    static let pinned = [6, 3]

    @Test func aCutOffLastLineIsRedone() throws {
        let good = try #require(Self.line(url: "https://a.example.test/"))
        let other = try #require(Self.line(url: "https://b.example.test/"))
        let torn = Data((good + "\n" + other.prefix(40)).utf8)
        let (done, kept) = DiagnosisLines.resumable(torn, source: "scan.jsonl")
        #expect(done.map(\.url) == ["https://a.example.test/"])
        #expect(kept == good.utf8.count + 1)
        // A whole last line without its newline is redone too: it may be the part of a longer line.
        let (noNewline, _) = DiagnosisLines.resumable(Data((good + "\n" + other).utf8), source: "scan.jsonl")
        #expect(noNewline.count == 1)
        #expect(DiagnosisLines.resumable(Data(), source: "empty").done.isEmpty)
    }

    @Test func aMergeIsOnePerURLSortedAndSaysWhatRepeats() throws {
        let a = try DiagnosisLines.read(Data([Self.line(url: "https://b.example.test/"), Self.line(url: "https://a.example.test/")]
            .compactMap { $0 }.joined(separator: "\n").utf8), source: "a")
        let b = try DiagnosisLines.read(Data((Self.line(url: "https://a.example.test/") ?? "").utf8), source: "b")
        let (merged, repeated) = DiagnosisLines.merge([a, b])
        #expect(merged.map(\.url) == ["https://a.example.test/", "https://b.example.test/"])
        #expect(repeated == ["https://a.example.test/"])
        #expect { try DiagnosisLines.read(Data("{\"url\":1}\n".utf8), source: "bad.jsonl") } throws: { "\($0)".hasPrefix("bad.jsonl:1: not a diagnosis") }
        #expect { try DiagnosisLines.read(Data("\n[\n".utf8), source: "bad.jsonl") } throws: { "\($0)".hasPrefix("bad.jsonl:2:") }
    }

    /// A diagnosis line for `url`, made by the real renderer from a real (refused) diagnosis document.
    static func line(url: String) -> String? {
        let host = URLComponents(string: url)?.host ?? ""
        let doc: [String: Any] = [
            "schema": "ats-diagnose/1", "url": url, "host": host, "port": 443, "profile": "ios17", "defaultPasses": false,
            "tests": [], "chain": [], "untestableSuites": [], "milliseconds": 1,
            "recommendation": ["kind": "undecided", "summary": "x", "serverFixes": []],
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]),
              let diagnosis = try? DiagnosisLines.decode(Substring(String(decoding: data, as: UTF8.self)), source: "", number: 1)
        else { return nil }
        return DiagnosisRendering.json(diagnosis)
    }

    // MARK: Whole scans through the ats binary

    /// 2,000 hosts, each a loopback address whose port 9 is closed: every test of every host fails at once, so the
    /// scan is cheap and its result is the same in every run, but for the times.
    static func targets(_ count: Int, in dir: TemporaryDirectory) throws -> String {
        try dir.write("targets.txt", (0..<count).map { "https://127.0.\($0 / 250).\($0 % 250 + 1):9/" }.joined(separator: "\n") + "\n")
    }

    static func scan(_ arguments: [String]) -> [String] {
        ["diagnose", "--json", "--concurrency", "32", "--timeout", "30"] + arguments
    }

    /// The result without what differs between runs (times), one per URL, sorted.
    static func comparable(_ files: [String]) throws -> [String] {
        var all: [[HostDiagnosis]] = []
        for file in files { all.append(try DiagnosisLines.read(try Data(contentsOf: URL(fileURLWithPath: file)), source: file)) }
        return DiagnosisLines.merge(all).merged.map { d in
            var d = d
            d.milliseconds = 0
            d.tests = d.tests.map { var t = $0; t.milliseconds = 0; return t }
            return DiagnosisRendering.json(d)
        }
    }

    @Test(.timeLimit(.minutes(5))) func aKilledScanResumesToTheUninterruptedResult() async throws {
        let dir = try TemporaryDirectory()
        let targets = try Self.targets(2000, in: dir)
        let ats = try ATSTool.executable()
        let whole = try await Subprocess.run(ats, Self.scan(["--targets", targets]))
        let wholeFile = try dir.write("whole.jsonl", bytes: Array(whole.standardOutput))
        #expect(whole.status == 1, "every host fails: \(whole.errors.suffix(300))")

        // SIGTERM after 400 hosts, SIGKILL after 600 more, then to the end: one file throughout.
        let resumed = dir.file("resumed.jsonl")
        let first = try await Subprocess.interrupt(ats, Self.scan(["--targets", targets, "--resume", resumed]), afterErrorLines: 400, signal: SIGTERM)
        #expect(first.signalled && first.status == -SIGTERM, "\(first)")
        let afterFirst = try Data(contentsOf: URL(fileURLWithPath: resumed)).filter { $0 == 0x0A }.count
        #expect(afterFirst >= 400 && afterFirst < 2000, "\(afterFirst) lines after SIGTERM")
        let second = try await Subprocess.interrupt(ats, Self.scan(["--targets", targets, "--resume", resumed]), afterErrorLines: 600, signal: SIGKILL)
        #expect(second.signalled && second.status == -SIGKILL, "\(second)")
        let third = try await Subprocess.run(ats, Self.scan(["--targets", targets, "--resume", resumed]))
        #expect(third.status == 1, "\(third.errors.suffix(300))")

        // No host done twice, none lost, and the same result as the uninterrupted scan.
        let lines = try DiagnosisLines.read(try Data(contentsOf: URL(fileURLWithPath: resumed)), source: resumed)
        #expect(lines.count == 2000)
        #expect(Set(lines.map(\.url)).count == 2000)
        #expect(try Self.comparable([resumed]) == Self.comparable([wholeFile]))

        // Run again once done, it diagnoses nothing and says the same.
        let again = try await Subprocess.run(ats, Self.scan(["--targets", targets, "--resume", resumed]))
        #expect(again.status == 1)
        #expect(try DiagnosisLines.read(try Data(contentsOf: URL(fileURLWithPath: resumed)), source: resumed).count == 2000)
    }

    @Test(.timeLimit(.minutes(5))) func shardsMergeToTheUninterruptedResult() async throws {
        let dir = try TemporaryDirectory()
        let targets = try Self.targets(300, in: dir)
        let ats = try ATSTool.executable()
        let whole = try await Subprocess.run(ats, Self.scan(["--targets", targets]))
        let wholeFile = try dir.write("whole.jsonl", bytes: Array(whole.standardOutput))
        var shardFiles: [String] = []
        var total = 0
        for k in 1...3 {
            let part = try await Subprocess.run(ats, Self.scan(["--targets", targets, "--shard", "\(k)/3"]))
            shardFiles.append(try dir.write("shard\(k).jsonl", bytes: Array(part.standardOutput)))
            total += part.standardOutput.filter { $0 == 0x0A }.count
        }
        #expect(total == 300, "each host in exactly one shard")
        #expect(try Self.comparable(shardFiles) == Self.comparable([wholeFile]))

        // ats report merge writes the same, and concatenated shard files are one result too.
        let merged = try await ATSTool.run(["report", "merge"] + shardFiles + ["--output", dir.file("merged.jsonl")])
        #expect(merged.status == 1, "\(merged)")
        #expect(try Self.comparable([dir.file("merged.jsonl")]) == Self.comparable([wholeFile]))
        let concatenated = try dir.write("all.jsonl", bytes: try shardFiles.flatMap { Array(try Data(contentsOf: URL(fileURLWithPath: $0))) })
        #expect(try Self.comparable([concatenated]) == Self.comparable([wholeFile]))
        let bad = try dir.write("bad.jsonl", "not json\n")
        let refused = try await ATSTool.run(["report", "merge", bad])
        #expect(refused.status == 2 && refused.standardError.contains("\(bad):1: not a diagnosis"), "\(refused)")
    }
}
