import Dispatch

/// The threads handshake evaluations run on: their own, as trustd is a process of its own on Apple's platforms.
///
/// On Swift's cooperative pool an evaluation waited in one queue with everything else the process computes, and
/// under load a handshake's limit passed before its evaluation began (a parallel test run, 2026-12-05: handshakes
/// past their 30 s). Here evaluations queue only behind each other, and the system shares the cores between these
/// threads and the pool's. The queue is concurrent, as wide as the system makes it; cancellation and the search
/// budget bound what each evaluation costs (``HandshakeEvaluation``).
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
package final class EvaluationExecutor: TaskExecutor {
    package static let shared = EvaluationExecutor()

    private let queue = DispatchQueue(label: "swift-transport-security.trust-evaluation", qos: .userInitiated, attributes: .concurrent)

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
