import Dispatch
import Testing

/// A thread of its own, outside Swift's cooperative pool, for tests that compute for seconds.
///
/// The suite runs on two cores, and the cooperative pool has one thread per core. A test that computes without
/// suspending holds a pool thread until it ends: two such tests stall every other test's tasks, the trust
/// evaluations inside handshakes included, until handshake limits pass. On this thread the work is preempted
/// like any other thread's, and the pool stays free. The thread is serial: such tests run one at a time.
public final class CPUBoundExecutor: TaskExecutor {
    public static let shared = CPUBoundExecutor()
    private let queue = DispatchQueue(label: "CPU-bound tests")

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// Runs a suite's or a test's work on ``CPUBoundExecutor``.
public struct CPUBoundTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // The suite's own scope adds nothing: each test's does the work.
        guard testCase != nil || !test.isSuite else { return try await function() }
        try await withTaskExecutorPreference(CPUBoundExecutor.shared) { try await function() }
    }
}

extension SuiteTrait where Self == CPUBoundTrait {
    /// Long CPU-bound work: keep it off the cooperative pool (``CPUBoundExecutor``).
    public static var cpuBound: Self { CPUBoundTrait() }
}

extension TestTrait where Self == CPUBoundTrait {
    /// Long CPU-bound work in one test: keep it off the cooperative pool (``CPUBoundExecutor``).
    public static var cpuBound: Self { CPUBoundTrait() }
}
