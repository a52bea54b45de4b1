import NIOConcurrencyHelpers
import NIOHTTP1

/// Where one exchange's outcome goes: the response head, then the end. The exchange handlers complete it on the event
/// loop, and the request's task waiting for it is resumed from there, in one step. It replaces a promise for the head
/// and one for the end, whose futures, callbacks and continuation cost about 7% of a keep-alive request's loop time.
///
/// A failure ends both: a task waiting for the head gets it too, and a streamed ``body`` ends with it. What comes after
/// the end is ignored, as a completed promise ignores a second completion.
///
/// A waiting task is resumed with nothing but success or failure, and reads the head or the end under the lock: a
/// continuation resumed before its task had suspended lets the task go on with no lock or executor between the loop's
/// writes and its reads, and ThreadSanitizer reported the response head so handed over as a race.
final class ExchangeCompletion: Sendable {
    typealias Outcome = Result<ExchangeEnd, ExchangeFailure>
    typealias Waiter = UnsafeContinuation<Void, any Error>

    /// Who waits for the end: the request's task, or a callback (the pool's, for a streamed body).
    enum EndWaiter: Sendable {
        case task(Waiter)
        case callback(@Sendable (Outcome) -> Void)

        func resume(with outcome: Outcome) {
            switch self {
            case .task(let continuation): continuation.resume(with: outcome.map { _ in () }.mapError { $0 })
            case .callback(let callback): callback(outcome)
            }
        }
    }

    private enum State {
        case waiting(head: SmallList<Waiter>, end: SmallList<EndWaiter>)
        case headed(HTTPResponseHead, end: SmallList<EndWaiter>)
        /// Over; with the head when it had come, even if a failure ended the exchange after it.
        case ended(Outcome, head: HTTPResponseHead?)
    }

    private let state: NIOLockedValueBox<State>
    /// A streamed response's body: the end finishes it, a failure fails it, before any waiting task is resumed.
    let body: BodyBuffer?

    init(body: BodyBuffer? = nil) {
        state = NIOLockedValueBox(.waiting(head: SmallList(), end: SmallList()))
        self.body = body
    }

    /// An exchange already over, such as a response read before and handed on again, with its body when streamed.
    init(ended end: ExchangeEnd, body: BodyBuffer? = nil) {
        state = NIOLockedValueBox(.ended(.success(end), head: end.head))
        self.body = body
    }

    // MARK: Completing, on the event loop

    /// The final response head is in.
    func received(_ head: HTTPResponseHead) {
        let waiters: SmallList<Waiter>? = state.withLockedValue { state in
            guard case .waiting(let headWaiters, let endWaiters) = state else { return nil }
            state = .headed(head, end: endWaiters)
            return headWaiters
        }
        waiters?.forEach { $0.resume() }
    }

    /// The response has ended.
    func succeed(_ end: ExchangeEnd) { complete(.success(end)) }

    /// The exchange failed; a task still waiting for the head gets the failure too. Whether this call ended it (it had
    /// not ended before).
    @discardableResult
    func fail(_ failure: ExchangeFailure) -> Bool { complete(.failure(failure)) }

    @discardableResult
    private func complete(_ outcome: Outcome) -> Bool {
        let taken: (head: SmallList<Waiter>, end: SmallList<EndWaiter>)? = state.withLockedValue { state in
            switch state {
            case .waiting(let head, let end):
                state = .ended(outcome, head: try? outcome.get().head)
                return (head, end)
            case .headed(let head, let end):
                // A head already handed on stays the head: a reset right after it (in the same read, before the
                // waiting task has run) fails the body, not the response the server gave.
                state = .ended(outcome, head: head)
                return (SmallList(), end)
            case .ended:
                return nil
            }
        }
        guard let taken else { return false }
        switch outcome {
        case .success: body?.finish()
        case .failure(let failure): body?.fail(failure)
        }
        taken.head.forEach { waiter in waiter.resume(with: outcome.map { _ in () }.mapError { $0 }) }
        taken.end.forEach { $0.resume(with: outcome) }
        return true
    }

    // MARK: Waiting

    /// Resumes `continuation` once the head is in (at once if it is), or with the failure; then read ``receivedHead()``.
    func awaitHead(_ continuation: Waiter) {
        let ready: Result<Void, ExchangeFailure>? = state.withLockedValue { state in
            switch state {
            case .waiting(var head, let end):
                head.append(continuation)
                state = .waiting(head: head, end: end)
                return nil
            case .headed, .ended(_, head: .some): return .success(())
            case .ended(let outcome, head: nil): return outcome.map { _ in () }
            }
        }
        if let ready { continuation.resume(with: ready.mapError { $0 }) }
    }

    /// Hands the end to `waiter` once it comes, at once if it has; a task then reads ``ended()``.
    func awaitEnd(_ waiter: EndWaiter) {
        let ready: Outcome? = state.withLockedValue { state in
            switch state {
            case .waiting(let head, var end):
                end.append(waiter)
                state = .waiting(head: head, end: end)
                return nil
            case .headed(let head, var end):
                end.append(waiter)
                state = .headed(head, end: end)
                return nil
            case .ended(let outcome, _): return outcome
            }
        }
        if let ready { waiter.resume(with: ready) }
    }

    /// The end of the response: at once when it is over, with no suspension.
    func end() async throws -> ExchangeEnd {
        if let outcome { return try outcome.get() }
        try await withUnsafeThrowingContinuation { awaitEnd(.task($0)) }
        return try ended()
    }

    /// The end, read under the lock once a waiter was resumed.
    func ended() throws(ExchangeFailure) -> ExchangeEnd {
        guard let outcome else { throw .error("the exchange was not over when its end was read", isTLS: false) }
        return try outcome.get()
    }

    /// The head, read under the lock once a head waiter was resumed.
    func receivedHead() throws(ExchangeFailure) -> HTTPResponseHead {
        if let head { return head }
        if case .failure(let failure)? = outcome { throw failure }
        throw .error("the response head was not in when it was read", isTLS: false)
    }

    /// Calls `callback` with the end once it comes, at once if it has.
    func whenEnded(_ callback: @escaping @Sendable (Outcome) -> Void) { awaitEnd(.callback(callback)) }

    /// How the exchange ended, if it has.
    var outcome: Outcome? {
        state.withLockedValue { state in
            if case .ended(let outcome, _) = state { return outcome }
            return nil
        }
    }

    /// The final head, once it is in.
    var head: HTTPResponseHead? {
        state.withLockedValue { state in
            switch state {
            case .waiting: return nil
            case .headed(let head, _), .ended(_, head: let head?): return head
            case .ended(_, head: nil): return nil
            }
        }
    }
}
