import TestSupport
import Testing

@testable import ATSCommandLine

@Suite struct WatchdogTests {
    @Test func anOperationThatEndsGivesItsValue() async {
        let watchdog = Watchdog<String>(timeout: .seconds(60))
        let watching = Task { await watchdog.watch(every: .seconds(15)) }
        defer { watching.cancel() }
        #expect(await watchdog.run({ "verdict" }, hang: "HANG") == "verdict")
    }

    /// One that never ends is reported as hung at its deadline, and is cancelled. A watchdog that failed to report
    /// it would hang this test, so each wait is bounded.
    @Test func anOperationPastItsDeadlineIsReportedAndCancelled() async {
        let watchdog = Watchdog<String>(timeout: .milliseconds(50))
        let watching = Task { await watchdog.watch(every: .milliseconds(10)) }
        defer { watching.cancel() }
        // The continuation is held: a stream whose continuation is gone has finished, and the loop would end at once.
        let (never, open) = AsyncStream<Int>.makeStream()
        let (ended, endedContinuation) = AsyncStream<Bool>.makeStream()
        let value = await bounded(.seconds(30)) {
            await watchdog.run({
                for await _ in never {}  // ends only when the task is cancelled
                withExtendedLifetime(open) {}
                endedContinuation.yield(Task.isCancelled)
                return "late verdict"
            }, hang: "HANG")
        }
        #expect(value == "HANG", "no value within 30 s: the watchdog did not report the operation")
        let cancelled = await bounded(.seconds(30)) {
            var iterator = ended.makeAsyncIterator()
            return await iterator.next()
        }
        #expect(cancelled == true, "the operation was not cancelled at its deadline")
    }

    /// Many operations in flight at once each get their own value.
    @Test func concurrentOperationsKeepTheirOwnValues() async {
        let watchdog = Watchdog<Int>(timeout: .seconds(60))
        let watching = Task { await watchdog.watch(every: .seconds(15)) }
        defer { watching.cancel() }
        let values = await withTaskGroup(of: Int.self) { group in
            for i in 0..<200 { group.addTask { await watchdog.run({ i * 2 }, hang: -1) } }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(values.sorted() == (0..<200).map { $0 * 2 })
    }
}
