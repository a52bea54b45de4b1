import Foundation

/// A time limit on a child process that TestSupport waits for (``Subprocess``, ``OpenSSLCommand``): past it, unless
/// cancelled, the child is killed (SIGKILL), which ends every wait on its output or its exit. The waits themselves
/// stay on events; the limit only bounds a failure, so that a child that never ends fails its test, naming what was
/// waited for, instead of hanging the run.
///
/// ATSTestServers' `ChildLimit` does the same for the test servers, with a NIO lock. This one is two semaphores used
/// as flags, so that TestSupport links no NIO and the trust tests build without it. The timer runs on a dispatch
/// thread, not in a task: the waits it bounds may hold every thread of the cooperative pool.
struct ProcessLimit: Sendable {
    private let cancelled = DispatchSemaphore(value: 0)
    private let killed = DispatchSemaphore(value: 0)

    /// Kills `process` (already running) after `limit`, unless ``cancel()`` comes first.
    init(_ process: Process, after limit: Duration) {
        let pid = process.processIdentifier
        let (cancelled, killed) = (self.cancelled, self.killed)
        let (seconds, attoseconds) = limit.components
        let nanoseconds = Int(min(seconds, Int64(Int.max / 1_000_000_000 - 1))) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            // Signal 0 only asks whether the process is there (a child not yet reaped still is).
            guard cancelled.wait(timeout: .now()) == .timedOut, kill(pid, 0) == 0 else { return }
            // Noted before the kill, so that a wait the kill ends sees it.
            killed.signal()
            kill(pid, SIGKILL)
        }
    }

    /// Whether the limit passed first and the child was killed.
    var fired: Bool {
        guard killed.wait(timeout: .now()) == .success else { return false }
        killed.signal()
        return true
    }

    /// The wait is over: the limit no longer applies.
    func cancel() { cancelled.signal() }
}
