import CHeapStats
import Foundation

// What the benchmark executables share: timing, memory, and their small argument parser.

/// A benchmark's own failure, printed with its usage line.
public struct BenchmarkError: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// Iterations per second of `body` over about `seconds`, after a warm-up, checking the clock every `batch`.
public func rate(_ seconds: Double, batch: Int = 50, _ body: () async throws -> Void) async throws -> Double {
    try await rateAndCPU(seconds, batch: batch, body).perSecond
}

/// As `rate`, with this process's CPU seconds per iteration over the same timed loop (not the warm-up): the figure a
/// busy shared machine skews far less than the wall-clock rate.
public func rateAndCPU(_ seconds: Double, batch: Int = 50, _ body: () async throws -> Void) async throws -> (perSecond: Double, cpuPerIteration: Double) {
    for _ in 0..<20 { try await body() }
    let start = DispatchTime.now().uptimeNanoseconds
    let cpuStart = cpuSeconds()
    var n = 0
    var elapsed = 0.0
    repeat {
        for _ in 0..<batch { try await body() }
        n += batch
        elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    } while elapsed < seconds
    return (Double(n) / elapsed, (cpuSeconds() - cpuStart) / Double(n))
}

/// CPU seconds (user and system) used so far by this process, or by its children that have ended and been waited for.
/// A rate per CPU second is what another process on a shared machine does not skew.
public func cpuSeconds(children: Bool = false) -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
    #endif
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Heap bytes this process has allocated and not freed, in KiB: what a leak adds to, where RSS also moves with how the
/// allocator holds pages (0 where the C library does not say).
public func heapInUseKiB() -> Int { Int(heap_stats_bytes_in_use() / 1024) }

/// This process's resident set, from /proc (0 where there is none).
public func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
}

/// Command-line arguments, consumed front to back.
public struct BenchmarkArguments {
    var rest: ArraySlice<String>

    public init(_ arguments: ArraySlice<String>) { rest = arguments }

    public mutating func next() -> String? { rest.popFirst() }

    /// The value after `flag`, converted; an error naming the flag and `expected` when it is missing or wrong.
    public mutating func value<T>(for flag: String, expected: String, _ convert: (String) -> T?) throws -> T {
        guard let text = rest.popFirst(), let value = convert(text) else { throw BenchmarkError(description: "\(flag) needs \(expected)") }
        return value
    }

    public mutating func seconds() throws -> Double {
        try value(for: "--seconds", expected: "a positive number") { Double($0).flatMap { $0 > 0 ? $0 : nil } }
    }
}
