import NIOConcurrencyHelpers

/// One connection's verdict, written by the verification callback (off the event loop) and read by its
/// ``ClientVerdictHandler`` after the handshake. It also owns the verification's task, so that a connection that
/// ends first (the client left, the handshake limit passed) stops it: a hostile chain costs no CPU past that.
final class ConnectionVerdict: Sendable {
    private let state = NIOLockedValueBox(State())

    private struct State {
        var verdict: ClientCertificateVerdict?
        var task: Task<Void, Never>?
        var cancelled = false
    }

    var value: ClientCertificateVerdict? { state.withLockedValue { $0.verdict } }

    func set(_ verdict: ClientCertificateVerdict) { state.withLockedValue { $0.verdict = verdict } }

    /// Runs `body` as this connection's verification.
    func start(_ body: @escaping @Sendable () async -> Void) {
        state.withLockedValue { state in
            let task = Task(operation: body)
            if state.cancelled { task.cancel() } else { state.task = task }
        }
    }

    /// Stops the verification, if it still runs; called when the connection ends.
    func cancel() {
        state.withLockedValue { state in
            state.task?.cancel()
            state.task = nil
            state.cancelled = true
        }
    }
}
