import AppTransportSecurity
import TransportTrust

/// A handshake's certificates and parameters checked against the plan, before the delegate is asked.
public struct ConnectionAssessment: Sendable {
    /// The chain validation and the trust manager's evaluators, ATS pins not included.
    public var verdict: TrustVerdict
    /// The connection checked against the ATS requirements: version, suite, certificate and pins.
    public var evaluation: ConnectionEvaluation
    /// The version and cipher suite the handshake negotiated.
    public var handshake: HandshakeSummary
    /// DER, leaf first, as the server sent them.
    public var presented: [[UInt8]]
    /// What was seen but decided nothing, in words (a suite ATS allows that cannot be offered here, say).
    public var notes: [String]
    /// Whether the requirements let a delegate accept a chain the evaluation refused.
    public var delegateMayLoosenTrust: Bool

    /// What the delegate's server-trust challenge shows.
    public var challengeInfo: ServerTrustChallengeInfo {
        ServerTrustChallengeInfo(verdict: verdict, atsEvaluation: evaluation, handshake: handshake,
                                 presentedCertificates: presented, delegateMayLoosenTrust: delegateMayLoosenTrust)
    }
}
