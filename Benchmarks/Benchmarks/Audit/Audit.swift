import AppTransportSecurity
import Benchmark
import Foundation
import SuiteDefaults

// `ats audit` as a library call: read an Info.plist and audit it, on the example with every kind of mistake
// (Examples/ATS/mistakes.plist). CI checks the allocation counts against Thresholds/.
let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples").path

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = SuiteDefaults.configuration(allocationTolerance: 5.0)

    Benchmark("audit-info-plist") { benchmark, plist in
        for _ in benchmark.scaledIterations {
            let source = try ConfigurationLoader().load(data: plist, name: "mistakes.plist")
            let report = Auditor(profile: .newest).audit([source])
            precondition(!report.findings.isEmpty, "the example has findings")
            blackHole(report)
        }
    } setup: {
        try Data(contentsOf: URL(fileURLWithPath: "\(examples)/ATS/mistakes.plist"))
    }
}
