import Benchmark
import Foundation
import SuiteDefaults
import TransportTrust

// Cold and cached trust evaluation of the example chain (leaf → intermediate → root, P-256), under the SSL policy.
// CI checks the allocation counts against Thresholds/ (deterministic); wall clock and CPU are checked with a wide
// margin, since CI's machine is shared (docs/BENCHMARKS.md).
let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples").path

func exampleTrust() throws -> ServerTrust {
    let chain = try CertificateLoader.certificates(atPath: "\(examples)/chain.pem")
    let root = try CertificateLoader.certificates(atPath: "\(examples)/root.pem")
    return ServerTrust(chain: chain, anchors: TrustAnchors(custom: root), policy: .ssl(host: try PeerName("www.example.test")),
                       validationTime: try Date("2027-06-01T00:00:00Z", strategy: .iso8601))
}

/// Evaluates `trust` for the benchmark's iterations, measured from here; every verdict must be trusted.
func measure(_ benchmark: Benchmark, _ evaluator: DefaultTrustEvaluator, _ trust: ServerTrust) async {
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        let verdict = await evaluator.evaluate(trust)
        precondition(verdict.isTrusted, "the example chain must be trusted")
        blackHole(verdict)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = SuiteDefaults.configuration(allocationTolerance: 5.0)

    Benchmark("cold-evaluation") { benchmark, trust in
        // No cache: every evaluation parses, builds the path and verifies both signatures.
        let engine = TrustEngine(cacheCapacity: 0)
        let evaluator = DefaultTrustEvaluator(engine: engine)
        await measure(benchmark, evaluator, trust)
    } setup: {
        try exampleTrust()
    }

    Benchmark("cached-evaluation") { benchmark, trust in
        // The validated path is cached after the first evaluation (warmed before measuring).
        let engine = TrustEngine()
        let evaluator = DefaultTrustEvaluator(engine: engine)
        _ = await evaluator.evaluate(trust)
        await measure(benchmark, evaluator, trust)
    } setup: {
        try exampleTrust()
    }
}
