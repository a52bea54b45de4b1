import Foundation
import NIOConcurrencyHelpers

/// A time limit on a child process a test or a test server waits for: past it, unless cancelled, the child is killed (SIGKILL), which
/// ends every wait on its output or its exit. The waits themselves stay on events; the limit only bounds a failure,
/// so that a child that never answers fails its test, naming what was waited for, instead of hanging the run.
public final class ChildLimit: Sendable {
    private let state = NIOLockedValueBox((fired: false, cancelled: false))

    /// Whether the limit passed first and the child was killed.
    public var fired: Bool { state.withLockedValue { $0.fired } }

    /// Kills the child `pid` after `limit`, unless ``cancel()`` comes first.
    public static func kill(_ pid: Int32, after limit: Duration) -> ChildLimit {
        let child = ChildLimit()
        let (seconds, attoseconds) = limit.components
        let nanoseconds = Int(min(seconds, Int64(Int.max / 1_000_000_000 - 1))) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            let fire = child.state.withLockedValue { state -> Bool in
                // Signal 0 only asks whether the process is there (a child not yet reaped still is).
                guard !state.cancelled, Foundation.kill(pid, 0) == 0 else { return false }
                state.fired = true
                return true
            }
            if fire { Foundation.kill(pid, SIGKILL) }
        }
        return child
    }

    /// Kills `process` (already running) after `limit`, unless ``cancel()`` comes first.
    public static func kill(_ process: Process, after limit: Duration) -> ChildLimit {
        kill(process.processIdentifier, after: limit)
    }

    /// The wait is over: the limit no longer applies.
    public func cancel() { state.withLockedValue { $0.cancelled = true } }
}
