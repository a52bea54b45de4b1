import NIOCore

/// Runs a request's own code on one event loop.
///
/// Everything a request waits for (its connection's events, its timers, another request's connection) completes on
/// an event loop. With the request's task preferring that loop, the wait resumes there at once. Without the
/// preference, it would resume on Swift's cooperative pool, behind whatever else the process computes: under load
/// that took tens of seconds, and a request's deadline then ended it long after its time (docs/RELIABILITY.md,
/// "Deadlines under load"). Trust evaluation runs on threads of its own (TransportTrust's `EvaluationExecutor`), so
/// that chain building never holds a loop's I/O.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class EventLoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// One ``EventLoopExecutor`` per loop of a client's group, made once.
struct EventLoopExecutors: Sendable {
    /// EventLoopExecutors, typed loosely because TaskExecutor is newer than the package's oldest platforms.
    private let executors: [ObjectIdentifier: any Sendable]
    private let group: any EventLoopGroup

    init(_ group: any EventLoopGroup) {
        self.group = group
        var executors: [ObjectIdentifier: any Sendable] = [:]
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            for loop in group.makeIterator() { executors[ObjectIdentifier(loop)] = EventLoopExecutor(loop) }
        }
        self.executors = executors
    }

    /// Runs `body` with its task preferring one of the group's loops: `preferred`, the loop of the connection the
    /// request will most likely use (``LoopHint``), or else the caller's own loop when it runs on one
    /// (`EventLoopGroup.any()`), so a NIO server calling the client does not hop.
    func run<T>(preferring preferred: (any EventLoop)? = nil, _ body: () async throws(TransportError) -> T) async throws(TransportError) -> T {
        guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return try await body() }
        let loop = preferred ?? group.any()
        let executor = executors[ObjectIdentifier(loop)] as? EventLoopExecutor ?? EventLoopExecutor(loop)
        return try await withTaskExecutorPreference(executor, operation: body)
    }
}
