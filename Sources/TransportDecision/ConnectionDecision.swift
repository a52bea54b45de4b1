import AppTransportSecurity
import TransportTrust

/// Whether a connection may carry requests, with everything that decided it.
public struct ConnectionDecision: Sendable {
    public var verdict: TrustVerdict
    public var evaluation: ConnectionEvaluation
    public var handshake: HandshakeSummary
    public var notes: [String]
    /// Nil when the connection is allowed.
    public var refusal: Refusal?

    public var isAllowed: Bool { refusal == nil }

    /// Why a connection was refused.
    public struct Refusal: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable, Hashable {
            /// The chain is not trusted.
            case serverTrustRefused
            /// The chain does not match the pins (ATS or the trust manager's).
            case pinMismatch
            /// The trust manager lists no evaluator for the host and every host must be evaluated.
            case hostNotAllowed
            /// The negotiated connection breaks an ATS rule (version, suite, key strength), or could not be read.
            case atsRefused
            /// The delegate cancelled the server-trust challenge, or answered it with the wrong credential.
            case authenticationCancelled
        }

        public var kind: Kind
        public var message: String
        public var description: String { message }
    }
}
