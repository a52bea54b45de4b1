import AppTransportSecurity
import Foundation

// Benchmarks above the trust engine (TrustBenchmark covers that).
//
//   ATSBenchmark audit [--seconds S] [--extensions N] [--keep PATH]
//       Builds an .ipa the size of a large app (a 40 MiB executable, 3,000 resource files, N app extensions,
//       each with its own Info.plist and binary) and times loading and auditing it, as `ats audit` does.

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
}

let usage = "usage: ATSBenchmark audit [--seconds S] [--extensions N] [--keep PATH]"

do {
    var args = CommandLine.arguments.dropFirst()
    guard let mode = args.popFirst() else { throw BenchmarkError(description: "name a benchmark") }
    switch mode {
    case "audit":
        var options = AuditBenchmark.Options()
        while let a = args.popFirst() {
            switch a {
            case "--seconds":
                guard let s = args.popFirst().flatMap(Double.init), s > 0 else { throw BenchmarkError(description: "--seconds needs a positive number") }
                options.seconds = s
            case "--extensions":
                guard let n = args.popFirst().flatMap(Int.init), (0...500).contains(n) else { throw BenchmarkError(description: "--extensions needs 0 to 500") }
                options.extensions = n
            case "--keep":
                guard let p = args.popFirst() else { throw BenchmarkError(description: "--keep needs a path") }
                options.keep = p
            default: throw BenchmarkError(description: "unknown argument '\(a)'")
            }
        }
        try AuditBenchmark(options: options).run()
    default:
        throw BenchmarkError(description: "unknown benchmark '\(mode)'")
    }
} catch {
    FileHandle.standardError.write(Data("ATSBenchmark: \(error)\n\(usage)\n".utf8))
    exit(2)
}
