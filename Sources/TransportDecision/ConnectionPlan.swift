import AppTransportSecurity
import TransportTrust

/// Everything decided about one connection before a byte is sent, and the decision made after its handshake.
///
/// A plan joins what ATS requires of the peer (`ConnectionRequirements`) with how the client evaluates trust
/// (``TrustSettings``). It answers every question the handshake asks, the TLS versions and suites, the server
/// name, the trust policy and its evaluators, and then turns the handshake's certificates and negotiated
/// parameters into one ``ConnectionDecision``. It does no I/O: the client, the diagnostics and the tests all
/// run the same decision, and none needs a socket to do so.
///
/// ```swift
/// let plan = ConnectionPlan(peer: try PeerName("www.example.com"), port: 443,
///                           requirements: try ATSPolicy.default().requirements(for: "https://www.example.com/"),
///                           settings: TrustSettings())
/// let assessment = await plan.assess(presented: chainDER, handshake: negotiated)
/// let decision = plan.decide(assessment, answer: .evaluationStands)
/// ```
public struct ConnectionPlan: Sendable {
    /// The host connected to, parsed once: the name the certificate must match and the SNI sent.
    public let peer: PeerName
    /// The TCP port, for messages and for the trust manager's host rules.
    public let port: Int
    /// What ATS requires of this URL: versions, suites, certificate rules and pins.
    public let requirements: ConnectionRequirements
    /// How trust is evaluated: anchors, the trust manager, the Apple release, CT and revocation.
    public let settings: TrustSettings

    /// The evaluator the settings' trust manager chose for ``peer``, when the caller has asked it already (the client
    /// does, once per URL, to refuse a host it may not connect to): the handshake then does not choose again.
    package var chosenEvaluator: (any ServerTrustEvaluating)?

    /// The policy the chain is evaluated under: the requirements' certificate rules for this peer, with the
    /// settings' platform, CT and revocation.
    public let trustPolicy: TrustPolicy
    /// The versions and suites the ClientHello offers, or why nothing can be offered.
    private let parameters: Result<TLSParameters, ConnectionPlanError>

    /// A plan for one connection to `peer` on `port`, under `requirements` and `settings`.
    public init(peer: PeerName, port: Int, requirements: ConnectionRequirements, settings: TrustSettings) {
        self.peer = peer
        self.port = port
        self.requirements = requirements
        self.settings = settings
        var policy = requirements.certificate.value.trustPolicy(host: peer, transparency: settings.certificateTransparency)
        policy.platform = settings.platform
        // The source goes with the trust even when the client checks nothing, for evaluators that do.
        policy.revocation = RevocationOptions(mode: settings.revocation, source: settings.ocspSource, crlSource: settings.crlSource)
        trustPolicy = policy
        parameters = Result { () throws(ConnectionPlanError) in try TLSParameters(requirements) }
    }

    /// The plan for `target`, with everything that applies to it resolved together and once (issue #37): the ATS
    /// requirements on `platform`, the trust manager's evaluator for the host (chosen by the package's one host
    /// matcher), the trust policy and the TLS parameters. A client keeps it per URL and opens every connection to the
    /// target with it.
    /// - Returns: the plan, or the refusal when the trust manager covers no such host and every host must be evaluated.
    package static func resolving(_ target: ConnectionTarget, url: String, ats: ATSPolicy, platform: ApplePlatform,
                                  settings: TrustSettings) -> Result<ConnectionPlan, ConnectionDecision.Refusal> {
        var plan = ConnectionPlan(peer: target.peer, port: target.port, requirements: ats.requirements(for: target, url: url, on: platform),
                                  settings: settings)
        if target.scheme == "https", let manager = settings.trustManager {
            do throws(ServerTrustManagerError) { plan.chosenEvaluator = try manager.chosenEvaluator(forHost: target.peer) } catch {
                return .failure(.init(kind: .hostNotAllowed, message: error.description))
            }
        }
        return .success(plan)
    }

    /// The name sent as SNI: DNS names only, never an IP literal (RFC 6066 §3).
    public var serverName: String? {
        if case .dns(let name) = peer { return name }
        return nil
    }

    /// The versions and suites the ClientHello offers.
    public func tlsParameters() throws(ConnectionPlanError) -> TLSParameters { try parameters.get() }

    /// Whether the delegate may accept a chain the evaluation refused: where the requirements relax validation
    /// (NSExceptionAllowsInsecureHTTPLoads), or where ATS does not apply at all (NSAllowsArbitraryLoads, an exempt
    /// local host), since outside ATS URLSession lets a delegate decide server trust. Pins and host lists still hold.
    public var delegateMayLoosenTrust: Bool {
        requirements.certificate.value.validation == .relaxed || !requirements.atsEnforced.value
    }

    /// Evaluates the presented chain (DER, leaf first) and the negotiated parameters against the plan.
    public func assess(presented: [[UInt8]], handshake: HandshakeSummary) async -> ConnectionAssessment {
        let trust = ServerTrust(certificates: presented, anchors: settings.anchors, policy: trustPolicy,
                                validationTime: settings.validationTime)
        let verdict: TrustVerdict
        if let chosenEvaluator {
            verdict = await chosenEvaluator.evaluate(trust)
        } else if let manager = settings.trustManager {
            verdict = await manager.evaluate(trust, forHost: peer)
        } else {
            verdict = await DefaultTrustEvaluator().evaluate(trust)
        }
        var notes = verdict.notes

        // ATS NSPinnedDomains: checked by the same evaluator as every pin format, against the chain as built.
        var pinsMatched: Bool?
        if let pins = requirements.pins.value {
            let pinned = await PinSetEvaluator(pins.pinnedHost, validation: Evaluated(verdict: verdict)).evaluate(trust)
            pinsMatched = !pinned.failures.dropFirst(verdict.failures.count).contains { $0.code == .pinMismatch }
            notes += pinned.notes.dropFirst(verdict.notes.count)
        }
        // ATS key strength is a rule of the trust policy (`requiresATSStrength`): a weak key already made the verdict
        // untrusted, so a trusted chain's keys meet it.
        let trustState: ConnectionDescription.Trust = verdict.isTrusted
            ? .trusted(keyMeetsATSStrength: true)
            : .untrusted(reason: verdict.failures.map(\.message).joined(separator: "; "))
        let description = ConnectionDescription(scheme: "https", tlsVersion: handshake.tlsVersion,
                                                cipherSuite: handshake.cipherSuite, trust: trustState, pinsMatched: pinsMatched)
        return ConnectionAssessment(verdict: verdict, evaluation: requirements.evaluate(description), handshake: handshake,
                                    presented: presented, notes: notes, delegateMayLoosenTrust: delegateMayLoosenTrust)
    }

    /// The decision, once the delegate (if any) has answered. Fails closed: everything that is not a positive
    /// decision refuses, and a handshake whose ServerHello could not be read is refused whatever else held.
    public func decide(_ assessment: ConnectionAssessment, answer: ServerTrustAnswer) -> ConnectionDecision {
        let verdict = assessment.verdict
        let evaluation = assessment.evaluation
        var notes = assessment.notes
        func decision(_ refusal: ConnectionDecision.Refusal?) -> ConnectionDecision {
            ConnectionDecision(verdict: verdict, evaluation: evaluation, handshake: assessment.handshake, notes: notes, refusal: refusal)
        }
        var allowed = evaluation.isAllowed && assessment.handshake.isComplete
        switch answer {
        case .evaluationStands:
            break
        case .cancel:
            return decision(.init(kind: .authenticationCancelled, message: "the challenge handler cancelled the server-trust challenge"))
        case .wrongCredential:
            return decision(.init(kind: .authenticationCancelled,
                                  message: "a server-trust challenge can only be answered with a server-trust credential"))
        case .acceptServerTrust:
            // Only the certificate check may be waived, only where the requirements let the app loosen trust,
            // and never for pins or host lists.
            let blocking = evaluation.blockingReasons
            let onlyCertificate = !blocking.isEmpty && blocking.allSatisfy { $0.kind == .certificate }
            let waivable = assessment.refusalKind == .serverTrustRefused
            if !allowed && assessment.delegateMayLoosenTrust && onlyCertificate && waivable {
                allowed = true
                let permits = requirements.atsEnforced.value ? "\(requirements.certificate.because) permits this"
                    : "ATS does not apply here (\(requirements.atsEnforced.because)), so the app decides server trust"
                notes.append("the challenge handler accepted a chain that failed evaluation; \(permits)")
            } else if !allowed {
                notes.append("the challenge handler's server-trust credential was ignored: it cannot accept what the requirements refuse")
            }
        }
        if !assessment.handshake.isComplete {
            return decision(.init(kind: .atsRefused, message: "the ServerHello could not be read, so the TLS version and cipher suite cannot be checked; refusing"))
        }
        return decision(allowed ? nil : .init(kind: assessment.refusalKind, message: Self.message(evaluation)))
    }

    /// The refusal for a handshake that completed without this plan's evaluation (a resumed session, say).
    package static var unevaluatedHandshake: ConnectionDecision.Refusal {
        .init(kind: .serverTrustRefused,
              message: "the TLS handshake completed without server trust evaluation (was a session resumed?); refusing")
    }

    /// Every failed ATS check, with the key and rule behind it.
    private static func message(_ evaluation: ConnectionEvaluation) -> String {
        evaluation.blockingReasons.map { "\($0.message) [\($0.because)]" }.joined(separator: "; ")
    }
}

/// A verdict already reached, as the validation step of a ``PinSetEvaluator``: pins are checked once more
/// without evaluating the chain twice.
private struct Evaluated: ServerTrustEvaluating {
    let verdict: TrustVerdict
    func evaluate(_ trust: ServerTrust) async -> TrustVerdict { verdict }
}
