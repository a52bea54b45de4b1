import BenchmarkSupport
import Foundation
import NIOCore
import NIOPosix

// Benchmarks above the trust engine (TrustBenchmark covers that).
//
//   ATSBenchmark audit [--seconds S] [--extensions N] [--keep PATH]
//       Builds an .ipa the size of a large app (a 40 MiB executable, 3,000 resource files, N app extensions,
//       each with its own Info.plist and binary) and times loading and auditing it, as `ats audit` does.
//   ATSBenchmark h2 [--seconds S] [--streams N] [--ours-only] [--nio-executor]
//       HTTP/2 requests per second on one connection with 1, 10 and 100 concurrent streams against nghttpd, beside
//       h2load and AsyncHTTPClient on the same server; memory per open HTTP/2 stream (see HTTP2Benchmark).
//       --streams N measures that one concurrency; --ours-only leaves out the peers and the memory figure (for perf).
//   ATSBenchmark client [--seconds S] [--idle N] [--ours-only] [--nio-executor]
//       HTTPS client figures against a local server in a child process, beside curl and AsyncHTTPClient (see ClientBenchmark).
//   Both print one `FIGURES <scenario> ...` line per scenario, which bench/peers.sh turns into its RESULT lines.
//       --nio-executor runs Swift concurrency on NIO's event loops, as swift-nio suggests for programs built on it:
//       a request's tasks then run on the loop its connection uses, without a hop between two thread pools.

let usage = "usage: ATSBenchmark audit [--seconds S] [--extensions N] [--keep PATH] | client [--seconds S] [--idle N] [--ours-only] [--nio-executor] | h2 [--seconds S] [--streams N] [--ours-only] [--nio-executor]"

// Before any task is made: the executor cannot change once tasks run.
let onNIOExecutor = CommandLine.arguments.contains("--nio-executor")
    && NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

do {
    var args = BenchmarkArguments(CommandLine.arguments.dropFirst())
    guard let mode = args.next() else { throw BenchmarkError(description: "name a benchmark") }
    switch mode {
    case "audit":
        var options = AuditBenchmark.Options()
        while let a = args.next() {
            switch a {
            case "--seconds": options.seconds = try args.seconds()
            case "--extensions": options.extensions = try args.value(for: a, expected: "0 to 500") { Int($0).flatMap { (0...500).contains($0) ? $0 : nil } }
            case "--keep": options.keep = try args.value(for: a, expected: "a path") { $0 }
            default: throw BenchmarkError(description: "unknown argument '\(a)'")
            }
        }
        try AuditBenchmark(options: options).run()
    case "client":
        var options = ClientBenchmark.Options()
        while let a = args.next() {
            switch a {
            case "--seconds": options.seconds = try args.seconds()
            case "--ours-only": options.oursOnly = true
            case "--idle": options.idle = try args.value(for: a, expected: "2 to 5000") { Int($0).flatMap { (2...5000).contains($0) ? $0 : nil } }
            case "--nio-executor":
                guard onNIOExecutor else { throw BenchmarkError(description: "NIO's event loops could not be made the global executor") }
            default: throw BenchmarkError(description: "unknown argument '\(a)'")
            }
        }
        print("Swift concurrency runs on: \(onNIOExecutor ? "NIO's event loops (--nio-executor)" : "the default global executor")")
        try await ClientBenchmark(options: options).run()
    case "h2":
        var options = HTTP2Benchmark.Options()
        while let a = args.next() {
            switch a {
            case "--seconds": options.seconds = try args.seconds()
            case "--streams": options.streams = try args.value(for: a, expected: "1 to 1000") { Int($0).flatMap { (1...1000).contains($0) ? $0 : nil } }
            case "--ours-only": options.oursOnly = true
            case "--nio-executor":
                guard onNIOExecutor else { throw BenchmarkError(description: "NIO's event loops could not be made the global executor") }
            default: throw BenchmarkError(description: "unknown argument '\(a)'")
            }
        }
        say("Swift concurrency runs on: \(onNIOExecutor ? "NIO's event loops (--nio-executor)" : "the default global executor")")
        try await HTTP2Benchmark(options: options).run()
    case "server":
        try await ClientBenchmark.serve(directory: try args.value(for: "server", expected: "a directory") { $0 })
    default:
        throw BenchmarkError(description: "unknown benchmark '\(mode)'")
    }
} catch {
    FileHandle.standardError.write(Data("ATSBenchmark: \(error)\n\(usage)\n".utf8))
    exit(2)
}
