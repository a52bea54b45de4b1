import NIOConcurrencyHelpers
import TransportTrust

/// One connection's verdict, written by the verification callback (off the event loop) and read by its
/// ``ClientVerdictHandler`` after the handshake. It also holds the verification's task, so that a connection that
/// ends first (the client left, the handshake limit passed) stops it.
final class ConnectionVerdict: Sendable {
    private let box = NIOLockedValueBox<ClientCertificateVerdict?>(nil)
    private let evaluation = HandshakeEvaluation()

    var value: ClientCertificateVerdict? { box.withLockedValue { $0 } }

    func set(_ verdict: ClientCertificateVerdict) { box.withLockedValue { $0 = verdict } }

    /// Runs `body` as this connection's verification.
    func start(_ body: @escaping @Sendable () async -> Void) { evaluation.start(body) }

    /// Stops the verification, if it still runs; called when the connection ends.
    func cancel() { evaluation.cancel() }
}
