import Foundation
import NIOConcurrencyHelpers

/// Gives each operation a deadline, with one timer for all of them: a timer task per operation costs more than
/// evaluating a chain (a fifth of the whole limbo run on two cores).
///
/// An operation past its deadline is reported with its `hang` value and cancelled; cancellation is cooperative,
/// so one that ignores it runs on unobserved, and the caller moves on.
final class Watchdog<Value: Sendable>: Sendable {
    private struct Watched: Sendable {
        var deadline: ContinuousClock.Instant
        var once: Once<Value>
        var hang: Value
        var work: Task<Void, Never>?
    }

    let timeout: Duration
    private let state = NIOLockedValueBox((watched: [Int: Watched](), nextToken: 0))

    init(timeout: Duration) { self.timeout = timeout }

    /// The operation's value, or `hang` if it has none by its deadline (reported at the next ``watch(every:)`` check).
    func run(_ operation: @escaping @Sendable () async -> Value, hang: Value) async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            let once = Once(continuation)
            let token = state.withLockedValue { state in
                state.nextToken += 1
                state.watched[state.nextToken] = Watched(deadline: .now + timeout, once: once, hang: hang)
                return state.nextToken
            }
            let work = Task {
                let value = await operation()
                _ = self.state.withLockedValue { $0.watched.removeValue(forKey: token) }
                once.resume(value)
            }
            state.withLockedValue { $0.watched[token]?.work = work }
        }
    }

    /// Checks deadlines every `interval` until the calling task is cancelled.
    func watch(every interval: Duration) async {
        while (try? await Task.sleep(for: interval)) != nil {
            let now = ContinuousClock.now
            let expired: [Watched] = state.withLockedValue { state in
                let late = state.watched.filter { $0.value.deadline <= now }
                for token in late.keys { state.watched[token] = nil }
                return Array(late.values)
            }
            // The verdict first: a cancelled operation may end at once, and its value must not win the race.
            for entry in expired {
                entry.once.resume(entry.hang)
                entry.work?.cancel()
            }
        }
    }
}

/// Resumes a continuation once, whichever of the operation and the watchdog comes first.
final class Once<Value: Sendable>: Sendable {
    private let continuation: NIOLockedValueBox<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = NIOLockedValueBox(continuation) }

    func resume(_ value: Value) {
        let c = continuation.withLockedValue { c in
            defer { c = nil }
            return c
        }
        c?.resume(returning: value)
    }
}
