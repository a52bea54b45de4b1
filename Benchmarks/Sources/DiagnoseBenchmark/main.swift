import ATSDiagnostics
import ATSTestServers
import BenchmarkSupport
import Foundation
import NIOSSL
import TransportClient
import TransportTrust

// Times `ats diagnose` on loopback: a full diagnosis (nscurl's 16 tests and the probe) of one local server, and a
// fleet scan of many, and a long scan (the fleet's URLs over and over) that shows memory does not grow with the
// number of hosts. Usage: DiagnoseBenchmark [--runs N] [--fleet N] [--concurrency N] [--scan N]

/// Peak resident set size in MiB (getrusage: KiB on Linux, bytes on Darwin).
func peakMemoryMiB() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
    #else
    getrusage(RUSAGE_SELF, &usage)
    return Double(usage.ru_maxrss) / 1_048_576
    #endif
}

let usage = "usage: DiagnoseBenchmark [--runs N] [--fleet N] [--concurrency N] [--scan N]"
let clock = ContinuousClock()

do {
    var runs = 20, fleet = 50, concurrency = 8, scanLength = 0
    var args = BenchmarkArguments(CommandLine.arguments.dropFirst())
    while let a = args.next() {
        let positive = { (text: String) in Int(text).flatMap { $0 > 0 ? $0 : nil } }
        switch a {
        case "--runs": runs = try args.value(for: a, expected: "a positive number", positive)
        case "--fleet": fleet = try args.value(for: a, expected: "a positive number", positive)
        case "--concurrency": concurrency = try args.value(for: a, expected: "a positive number", positive)
        case "--scan": scanLength = try args.value(for: a, expected: "a positive number", positive)
        default: throw BenchmarkError(description: "unknown argument '\(a)'")
        }
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("diagnose-benchmark-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let servers = try await LocalServers.start(directory: directory.path, only: [.good, .tls10Only, .expired])
    let anchors = TrustAnchors(custom: try CertificateLoader.certificates(atPath: servers.caFile))
    let diagnoser = Diagnoser(options: DiagnosisOptions(anchors: anchors, timeout: .seconds(10)))

    for testCase in servers.cases {
        _ = try await diagnoser.diagnose(url: testCase.url)  // warm-up: contexts, caches, code paths
        var times: [Double] = []
        for _ in 0..<runs {
            let start = clock.now
            let d = try await diagnoser.diagnose(url: testCase.url)
            times.append((clock.now - start).inSeconds)
            precondition(d.tests.count == ATSTestCase.all.count)
        }
        times.sort()
        print(String(format: "full diagnosis, %@: median %.3f s, min %.3f s, max %.3f s (%d runs, %d requests each)",
                     testCase.testCase.rawValue, times[times.count / 2], times[0], times[times.count - 1], runs, ATSTestCase.all.count))
    }

    // Fleet: `fleet` good servers, scanned `concurrency` at a time.
    var extra: [LocalServer] = []
    let configuration = try LocalServers.configuration(for: .good, pki: servers.pki)
    for _ in 0..<fleet { extra.append(try await LocalServer.start(tls: configuration, response: .text("fleet\n"))) }
    let urls = extra.map { "https://127.0.0.1:\($0.port)/" }
    let start = clock.now
    var passed = 0
    await DiagnosisScan(diagnoser: diagnoser, concurrency: concurrency).run(urls) { if $0.defaultPasses { passed += 1 } }
    let elapsed = (clock.now - start).inSeconds
    print(String(format: "fleet: %d hosts in %.2f s = %.1f hosts/s at concurrency %d (%d passed); peak RSS %.0f MiB",
                 fleet, elapsed, Double(fleet) / elapsed, concurrency, passed, peakMemoryMiB()))

    if scanLength > 0 {
        // Results are counted and dropped as they stream in, as `ats diagnose --targets` does once printed.
        let long = (0..<scanLength).map { urls[$0 % urls.count] }
        var done = 0
        var residentAt: [(Int, Int)] = [(0, residentKiB())]
        let scanStart = clock.now
        await DiagnosisScan(diagnoser: diagnoser, concurrency: concurrency).run(long) { _ in
            done += 1
            if done % max(1, scanLength / 10) == 0 { residentAt.append((done, residentKiB())) }
        }
        let scanSeconds = (clock.now - scanStart).inSeconds
        print(String(format: "scan: %d hosts in %.1f s = %.1f hosts/s; RSS by hosts done: ", scanLength, scanSeconds, Double(scanLength) / scanSeconds)
              + residentAt.map { "\($0.0): \($0.1 / 1024) MiB" }.joined(separator: ", "))
    }
    for server in extra { await server.shutdown() }
    await servers.shutdown()
} catch {
    FileHandle.standardError.write(Data("DiagnoseBenchmark: \(error)\n\(usage)\n".utf8))
    exit(2)
}

extension Duration {
    /// Seconds as a Double, for the figures.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
