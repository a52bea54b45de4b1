import NIOConcurrencyHelpers

/// The one trust evaluation a handshake's verification callback starts, held so that the connection can stop it when
/// nobody waits for it any more (the handshake limit passed, the peer left): a hostile chain then costs no CPU past
/// that. Used by the client's and the server's callbacks alike.
package final class HandshakeEvaluation: Sendable {
    private let state = NIOLockedValueBox(State.notStarted)

    private enum State {
        case notStarted
        case running(Task<Void, Never>)
        case cancelled
    }

    package init() {}

    /// Runs `body` as this handshake's evaluation; at once cancelled if ``cancel()`` came first.
    package func start(_ body: @escaping @Sendable () async -> Void) {
        state.withLockedValue { state in
            if case .cancelled = state {
                // Cancelled from its first instruction: cancelling the task after making it would race with its
                // start on another thread, and `body` could begin the whole evaluation before it saw the cancel.
                // It still runs, so that it answers whoever waits (swift-nio-ssl's promise), at no cost.
                Self.task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    await body()
                }
            } else {
                state = .running(Self.task(body))
            }
        }
    }

    /// `body` as a task on ``EvaluationExecutor``'s threads, where the system has one.
    @discardableResult
    private static func task(_ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) else { return Task(operation: body) }
        return Task(executorPreference: EvaluationExecutor.shared, operation: body)
    }

    /// Cancels the evaluation, if it still runs, and any started after.
    package func cancel() {
        state.withLockedValue { state in
            if case .running(let task) = state { task.cancel() }
            state = .cancelled
        }
    }
}
