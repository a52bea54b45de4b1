import AppTransportSecurity
import NIOConcurrencyHelpers
import TransportDecision
import TransportTrust

/// One connection's decision, kept so that a failed handshake can be reported with its verdict instead of
/// swift-nio-ssl's generic error, with its refusal already in the client's error type.
struct VerificationOutcome: Sendable {
    var decision: ConnectionDecision
    /// Nil when the connection is allowed.
    var refusal: TransportError?
}

/// Runs a ``ConnectionPlan``'s decision from swift-nio-ssl's verification callback, once per new connection: it
/// reads the ServerHello the observer saw, asks the delegate's server-trust challenge, and keeps the outcome.
final class HandshakeVerifier: Sendable {
    let plan: ConnectionPlan
    let challengeHandler: ChallengeHandler?
    let observation: HandshakeObservation
    private let outcomeBox = NIOLockedValueBox<VerificationOutcome?>(nil)
    private let evaluation = HandshakeEvaluation()
    /// The request's step counter: the evaluation runs in a task of its own, started from swift-nio-ssl's callback,
    /// which would not inherit it, so what the handshake does would go uncounted.
    private let counts = CallCounts.current

    init(plan: ConnectionPlan, challengeHandler: ChallengeHandler?, observation: HandshakeObservation) {
        self.plan = plan
        self.challengeHandler = challengeHandler
        self.observation = observation
    }

    var host: String { plan.peer.description }
    var port: Int { plan.port }
    var outcome: VerificationOutcome? { outcomeBox.withLockedValue { $0 } }

    var handshakeSummary: HandshakeSummary {
        let hello = observation.serverHello
        return HandshakeSummary(tlsVersion: hello?.version, cipherSuite: hello?.cipherSuiteName, cipherSuiteCode: hello?.cipherSuiteCode)
    }

    /// Runs `body` (the verification callback's work) as this connection's evaluation, so that ``cancel()`` can stop it.
    func start(_ body: @escaping @Sendable () async -> Void) {
        let counts = self.counts
        evaluation.start { await CallCounts.$current.withValue(counts, operation: body) }
    }

    /// Stops the evaluation when nobody waits for it any more (the handshake limit passed, or the connection closed).
    /// What a cancelled evaluation found is not kept.
    func cancel() { evaluation.cancel() }

    /// Decides on the presented chain (DER, leaf first) and returns whether the handshake may continue.
    func verify(presented: [[UInt8]]) async -> Bool {
        // Cancelled while it waited for a thread: nobody waits for the answer, so it costs nothing.
        guard !Task.isCancelled else { return false }
        let assessment = await plan.assess(presented: presented, handshake: handshakeSummary)
        // Fail closed without an outcome: the connection reports why it ended (its time limit), not a verdict cut short.
        guard !Task.isCancelled else { return false }
        var answer = ServerTrustAnswer.evaluationStands
        if let challengeHandler {
            let space = ProtectionSpace(host: host, port: port, protocol: "https", realm: nil, authenticationMethod: .serverTrust)
            let disposition = await challengeHandler(AuthenticationChallenge(protectionSpace: space, previousFailureCount: 0,
                                                                             serverTrust: assessment.challengeInfo))
            answer = Self.answer(disposition)
        }
        let decision = plan.decide(assessment, answer: answer)
        let outcome = VerificationOutcome(decision: decision, refusal: decision.refusal.map { transportError($0, decision) })
        outcomeBox.withLockedValue { $0 = outcome }
        return decision.isAllowed
    }

    static func answer(_ disposition: ChallengeDisposition) -> ServerTrustAnswer {
        switch disposition {
        case .cancelAuthenticationChallenge: return .cancel
        case .performDefaultHandling, .rejectProtectionSpace: return .evaluationStands
        case .useCredential(let credential):
            if case .serverTrust = credential.kind { return .acceptServerTrust }
            return .wrongCredential
        }
    }

    private func transportError(_ refusal: ConnectionDecision.Refusal, _ decision: ConnectionDecision) -> TransportError {
        let kind: TransportError.Kind
        switch refusal.kind {
        case .serverTrustRefused: kind = .serverTrustRefused
        case .pinMismatch: kind = .pinMismatch
        case .hostNotAllowed: kind = .hostNotAllowed
        case .atsRefused: kind = .atsRefused
        case .authenticationCancelled: kind = .authenticationCancelled
        }
        var message = refusal.message
        if refusal.kind == .atsRefused && !decision.handshake.isComplete {
            message = "the ServerHello could not be read (\(observation.first.map { "\($0)" } ?? "nothing seen")), so the TLS version and cipher suite cannot be checked; refusing"
        }
        return TransportError(kind, phase: .handshake, host: host, port: port, message, verdict: decision.verdict,
                              atsEvaluation: decision.evaluation, handshake: decision.handshake)
    }
}
