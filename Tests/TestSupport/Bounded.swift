/// The value of `operation`, or `nil` if it has none within `limit`.
///
/// A test of code whose fault would be a hang awaits through this, so the fault fails the test instead of hanging
/// the run until CI's limit. An operation past the limit is left running, unobserved. The limit only bounds a
/// failure: when the code works, the test goes on as soon as the value arrives.
public func bounded<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async -> T) async -> T? {
    await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
        let first = FirstResume(continuation)
        let work = Task { await first.resume(await operation()) }
        Task {
            try? await Task.sleep(for: limit)
            if await first.resume(nil) { work.cancel() }
        }
    }
}

/// The waiter of ``bounded(_:_:)``, resumed by whichever of the operation and the limit comes first. An actor, not a
/// lock: both callers are tasks already, and TestSupport links no NIO.
private actor FirstResume<T: Sendable> {
    private var continuation: CheckedContinuation<T?, Never>?

    init(_ continuation: CheckedContinuation<T?, Never>) { self.continuation = continuation }

    /// Whether this call was the first, and so resumed the waiter.
    @discardableResult
    func resume(_ value: T?) -> Bool {
        guard let waiting = continuation else { return false }
        continuation = nil
        waiting.resume(returning: value)
        return true
    }
}
