import Benchmark

/// What every package-benchmark suite here measures and how CI judges it, so the suites differ only in their
/// allocation tolerance.
public enum SuiteDefaults {
    /// Wall clock, CPU and allocations, a thousand operations per sample (process CPU time moves in 10 ms steps, too
    /// coarse for one operation). Thresholds: allocations within `allocationTolerance` percent (they are exact), wall
    /// clock and CPU within 2x (CI's machine is shared).
    public static func configuration(allocationTolerance: Double) -> Benchmark.Configuration {
        .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
            timeUnits: .microseconds,
            scalingFactor: .kilo,
            maxDuration: .seconds(3),
            maxIterations: 100,
            thresholds: [
                .mallocCountTotal: .init(relative: [.p90: allocationTolerance]),
                .wallClock: .init(relative: [.p50: 100.0]),
                .cpuTotal: .init(relative: [.p50: 100.0]),
            ]
        )
    }
}
