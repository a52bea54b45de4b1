import Foundation

/// Gives each operation a deadline, with one timer for all of them: a timer task per operation costs more than
/// evaluating a chain (a fifth of the whole limbo run on two cores).
///
/// An operation past its deadline is reported with its `hang` value and cancelled; cancellation is cooperative,
/// so one that ignores it runs on unobserved, and the caller moves on.
final class Watchdog<Value: Sendable>: @unchecked Sendable {
    private struct Watched {
        var deadline: ContinuousClock.Instant
        var once: Once<Value>
        var hang: Value
        var work: Task<Void, Never>?
    }

    let timeout: Duration
    private let lock = NSLock()
    private var watched: [Int: Watched] = [:]
    private var nextToken = 0

    init(timeout: Duration) { self.timeout = timeout }

    /// The operation's value, or `hang` if it has none by its deadline (reported at the next ``watch(every:)`` check).
    func run(_ operation: @escaping @Sendable () async -> Value, hang: Value) async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            let once = Once(continuation)
            let token = lock.withLock {
                nextToken += 1
                watched[nextToken] = Watched(deadline: .now + timeout, once: once, hang: hang)
                return nextToken
            }
            let work = Task {
                let value = await operation()
                self.lock.withLock { _ = self.watched.removeValue(forKey: token) }
                once.resume(value)
            }
            lock.withLock { watched[token]?.work = work }
        }
    }

    /// Checks deadlines every `interval` until the calling task is cancelled.
    func watch(every interval: Duration) async {
        while (try? await Task.sleep(for: interval)) != nil {
            let now = ContinuousClock.now
            let expired: [Watched] = lock.withLock {
                let late = watched.filter { $0.value.deadline <= now }
                for token in late.keys { watched[token] = nil }
                return Array(late.values)
            }
            for entry in expired {
                entry.work?.cancel()
                entry.once.resume(entry.hang)
            }
        }
    }
}

/// Resumes a continuation once, whichever of the operation and the watchdog comes first.
final class Once<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, Never>?

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = continuation }

    func resume(_ value: Value) {
        let c: CheckedContinuation<Value, Never>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        c?.resume(returning: value)
    }
}
