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

    /// What the connection is refused for when it is refused: the one classification of a refusal, read from the
    /// verdict's failure codes and the ATS checks here and nowhere else. Pins first, then the host list (no delegate
    /// may waive either), then the chain, then ATS's own rules. The decision, and every error and report made from
    /// it, take this kind as it is.
    package var refusalKind: ConnectionDecision.Refusal.Kind {
        let checks = Set(evaluation.blockingReasons.map(\.kind))
        if checks.contains(.pins) || verdict.failures.contains(where: { $0.code == .pinMismatch }) { return .pinMismatch }
        if verdict.failures.contains(where: { $0.code == .hostNotAllowed }) { return .hostNotAllowed }
        if checks.contains(.certificate) && !verdict.isTrusted { return .serverTrustRefused }
        return .atsRefused
    }

    /// What the delegate's server-trust challenge shows.
    public var challengeInfo: ServerTrustChallengeInfo {
        ServerTrustChallengeInfo(verdict: verdict, atsEvaluation: evaluation, handshake: handshake,
                                 presentedCertificates: presented, delegateMayLoosenTrust: delegateMayLoosenTrust)
    }
}
