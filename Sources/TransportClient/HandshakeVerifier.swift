import AppTransportSecurity
import NIOConcurrencyHelpers
import TransportTrust

/// The outcome of one connection's server-trust decision, kept so that a failed handshake can be reported
/// with its verdict instead of swift-nio-ssl's generic error.
struct VerificationOutcome: Sendable {
    var verdict: TrustVerdict
    var evaluation: ConnectionEvaluation
    var handshake: HandshakeSummary
    var notes: [String]
    /// Nil when the connection is allowed.
    var refusal: TransportError?
}

/// Decides server trust during the handshake: the trust manager's evaluator (or chain validation), ATS pins,
/// the ATS evaluation of the negotiated connection, and the delegate's server-trust challenge. Runs once per
/// new connection, from swift-nio-ssl's verification callback.
final class HandshakeVerifier: Sendable {
    let requirements: ConnectionRequirements
    let configuration: HTTPSClientConfiguration
    let host: String
    let port: Int
    let observation: HandshakeObservation
    private let outcomeBox = NIOLockedValueBox<VerificationOutcome?>(nil)

    init(requirements: ConnectionRequirements, configuration: HTTPSClientConfiguration, host: String, port: Int,
         observation: HandshakeObservation) {
        self.requirements = requirements
        self.configuration = configuration
        self.host = host
        self.port = port
        self.observation = observation
    }

    var outcome: VerificationOutcome? { outcomeBox.withLockedValue { $0 } }

    var handshakeSummary: HandshakeSummary {
        let hello = observation.serverHello
        return HandshakeSummary(tlsVersion: hello?.version, cipherSuite: hello?.cipherSuiteName, cipherSuiteCode: hello?.cipherSuiteCode)
    }

    /// Evaluates the presented chain (DER, leaf first) and returns whether the handshake may continue.
    /// Fails closed: every path that is not a positive decision refuses.
    func verify(presented: [[UInt8]]) async -> Bool {
        let outcome = await decide(presented: presented)
        outcomeBox.withLockedValue { $0 = outcome }
        return outcome.refusal == nil
    }

    private func refusal(_ kind: TransportError.Kind, _ message: String, _ verdict: TrustVerdict, _ evaluation: ConnectionEvaluation?,
                         _ handshake: HandshakeSummary) -> TransportError {
        TransportError(kind, phase: .handshake, host: host, port: port, message, verdict: verdict,
                       atsEvaluation: evaluation, handshake: handshake)
    }

    private func decide(presented: [[UInt8]]) async -> VerificationOutcome {
        let handshake = handshakeSummary
        let peer = try? PeerName(host)
        var notes: [String] = []
        guard let peer else {
            let verdict = TrustVerdict.refused(TrustFailure(.hostnameMismatch, certificate: nil, "'\(host)' is not a valid host name or address"))
            let evaluation = requirements.evaluate(ConnectionDescription(scheme: "https", trust: .untrusted(reason: "invalid host")))
            return VerificationOutcome(verdict: verdict, evaluation: evaluation, handshake: handshake, notes: [],
                                       refusal: refusal(.serverTrustRefused, "'\(host)' is not a valid host", verdict, evaluation, handshake))
        }
        var policy = requirements.certificate.value.trustPolicy(host: peer, transparency: configuration.certificateTransparency)
        policy.platform = configuration.platform
        // The source goes with the trust even when the client checks nothing, for evaluators that do.
        policy.revocation = RevocationOptions(mode: configuration.revocation, source: configuration.ocspSource, crlSource: configuration.crlSource)
        let trust = ServerTrust(certificates: presented, anchors: configuration.anchors, policy: policy,
                                validationTime: configuration.validationTime)
        let verdict: TrustVerdict
        if let manager = configuration.trustManager {
            verdict = await manager.evaluate(trust, forHost: host)
        } else {
            verdict = await DefaultTrustEvaluator().evaluate(trust)
        }
        notes += verdict.notes

        // ATS NSPinnedDomains: matched against the chain as built (the anchor too), as SecTrust does.
        var pinsMatched: Bool?
        if let pins = requirements.pins.value {
            let chain = verdict.chain.isEmpty ? presented.compactMap { try? InputCertificate(der: $0) } : verdict.chain
            if let leaf = chain.first?.spkiSHA256Base64 {
                pinsMatched = pins.isSatisfied(leafSPKISHA256: leaf, authoritySPKISHA256: chain.dropFirst().compactMap(\.spkiSHA256Base64))
            } else {
                pinsMatched = false
            }
        }
        let trustState: ConnectionDescription.Trust = verdict.isTrusted
            ? .trusted(keyMeetsATSStrength: !verdict.failures.contains { $0.code == .weakKey })
            : .untrusted(reason: verdict.failures.map(\.message).joined(separator: "; "))
        let description = ConnectionDescription(scheme: "https", tlsVersion: handshake.tlsVersion,
                                                cipherSuite: handshake.cipherSuite, trust: trustState, pinsMatched: pinsMatched)
        let evaluation = requirements.evaluate(description)
        // Fail closed: without the ServerHello the version and suite rules cannot be checked.
        let helloMissing = handshake.tlsVersion == nil || handshake.cipherSuite == nil
        var allowed = evaluation.isAllowed && !helloMissing

        // The delegate's server-trust challenge: it may tighten (cancel), never loosen beyond the requirements.
        if let handler = configuration.challengeHandler {
            let loosenable = requirements.certificate.value.validation == .relaxed
            let info = ServerTrustChallengeInfo(verdict: verdict, atsEvaluation: evaluation, handshake: handshake,
                                                presentedCertificates: presented, delegateMayLoosenTrust: loosenable)
            let space = ProtectionSpace(host: host, port: port, protocol: "https", realm: nil, authenticationMethod: .serverTrust)
            let disposition = await handler(AuthenticationChallenge(protectionSpace: space, previousFailureCount: 0, serverTrust: info))
            switch disposition {
            case .cancelAuthenticationChallenge:
                return VerificationOutcome(verdict: verdict, evaluation: evaluation, handshake: handshake, notes: notes,
                    refusal: refusal(.authenticationCancelled, "the challenge handler cancelled the server-trust challenge", verdict, evaluation, handshake))
            case .performDefaultHandling, .rejectProtectionSpace:
                break
            case .useCredential(let credential):
                guard case .serverTrust = credential.kind else {
                    return VerificationOutcome(verdict: verdict, evaluation: evaluation, handshake: handshake, notes: notes,
                        refusal: refusal(.authenticationCancelled, "a server-trust challenge can only be answered with a server-trust credential", verdict, evaluation, handshake))
                }
                // Only the certificate check may be waived, only where the requirements let the app loosen
                // trust, and never for pins or host lists.
                let blocking = evaluation.blockingReasons
                let onlyCertificate = !blocking.isEmpty && blocking.allSatisfy { $0.check == "certificate" }
                let hardFailure = verdict.failures.contains { [.pinMismatch, .hostNotAllowed].contains($0.code) }
                if !allowed && loosenable && onlyCertificate && !hardFailure {
                    allowed = true
                    notes.append("the challenge handler accepted a chain that failed evaluation; \(requirements.certificate.because) permits this")
                } else if !allowed {
                    notes.append("the challenge handler's server-trust credential was ignored: it cannot accept what the requirements refuse")
                }
            }
        }
        if helloMissing {
            return VerificationOutcome(verdict: verdict, evaluation: evaluation, handshake: handshake, notes: notes,
                refusal: refusal(.atsRefused, "the ServerHello could not be read (\(observation.first.map { "\($0)" } ?? "nothing seen")), so the TLS version and cipher suite cannot be checked; refusing", verdict, evaluation, handshake))
        }
        guard !allowed else {
            return VerificationOutcome(verdict: verdict, evaluation: evaluation, handshake: handshake, notes: notes, refusal: nil)
        }
        return VerificationOutcome(verdict: verdict, evaluation: evaluation, handshake: handshake, notes: notes,
                                   refusal: makeRefusal(verdict: verdict, evaluation: evaluation, handshake: handshake))
    }

    private func makeRefusal(verdict: TrustVerdict, evaluation: ConnectionEvaluation, handshake: HandshakeSummary) -> TransportError {
        let blocking = evaluation.blockingReasons
        let checks = Set(blocking.map(\.check))
        let kind: TransportError.Kind
        if checks.contains("pins") || verdict.failures.contains(where: { $0.code == .pinMismatch }) {
            kind = .pinMismatch
        } else if verdict.failures.contains(where: { $0.code == .hostNotAllowed }) {
            kind = .hostNotAllowed
        } else if checks.contains("certificate") && !verdict.isTrusted {
            kind = .serverTrustRefused
        } else {
            kind = .atsRefused
        }
        let reasons = blocking.map { "\($0.message) [\($0.because)]" }.joined(separator: "; ")
        return refusal(kind, reasons, verdict, evaluation, handshake)
    }
}
