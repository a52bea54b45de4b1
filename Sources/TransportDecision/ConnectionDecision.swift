import AppTransportSecurity
import TransportTrust

/// Whether a connection may carry requests, with everything that decided it.
public struct ConnectionDecision: Sendable {
    /// The chain validation and the trust manager's evaluators, as the assessment found them.
    public var verdict: TrustVerdict
    /// The connection checked against the ATS requirements: version, suite, certificate and pins.
    public var evaluation: ConnectionEvaluation
    /// The version and cipher suite the handshake negotiated.
    public var handshake: HandshakeSummary
    /// What was seen but decided nothing, in words.
    public var notes: [String]
    /// Nil when the connection is allowed.
    public var refusal: Refusal?

    /// Whether the connection may carry requests: there is no refusal.
    public var isAllowed: Bool { refusal == nil }

    /// Why a connection was refused.
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// Which rule refused it; stable, for code that reacts to one kind.
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

        /// Which rule refused the connection.
        public var kind: Kind
        /// Why, in words, naming the host and the rule.
        public var message: String
        /// The ``message``.
        public var description: String { message }
    }
}
