import NIOConcurrencyHelpers
import Foundation

/// The value of `operation`, or `nil` if it has none within `limit`.
///
/// A test of code whose fault would be a hang awaits through this, so the fault fails the test instead of hanging
/// the run until CI's limit. An operation past the limit is left running, unobserved. The limit only bounds a
/// failure: when the code works, the test goes on as soon as the value arrives.
public func bounded<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
    await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        let first = FirstResume(continuation)
        let work = Task { first.resume(await operation()) }
        Task {
            try? await Task.sleep(for: limit)
            if first.resume(nil) { work.cancel() }
        }
    }
}

private final class FirstResume<T: Sendable>: Sendable {
    private let continuation: NIOLockedValueBox<CheckedContinuation<T?, Never>?>

    init(_ continuation: CheckedContinuation<T?, Never>) { self.continuation = NIOLockedValueBox(continuation) }

    /// Whether this call was the first, and so resumed the waiter.
    @discardableResult
    func resume(_ value: T?) -> Bool {
        let waiting = continuation.withLockedValue { c in
            defer { c = nil }
            return c
        }
        waiting?.resume(returning: value)
        return waiting != nil
    }
}
