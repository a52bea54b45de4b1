import NIOConcurrencyHelpers

/// One connection's verdict, written by the verification callback (off the event loop) and read by its
/// ``ClientVerdictHandler`` after the handshake.
final class ConnectionVerdict: Sendable {
    private let box = NIOLockedValueBox<ClientCertificateVerdict?>(nil)

    var value: ClientCertificateVerdict? { box.withLockedValue { $0 } }

    func set(_ verdict: ClientCertificateVerdict) { box.withLockedValue { $0 = verdict } }
}
