/// One step of a trust decision: a small value that looks at a server's trust and returns a verdict.
///
/// This mirrors Alamofire's `ServerTrustEvaluating`, but returns a verdict with reasons instead of throwing,
/// so that composed evaluators can report every failure at once. Chain validation, pinning, revocation and
/// host allow-lists are all evaluators; ``CompositeTrustEvaluator`` combines them.
public protocol ServerTrustEvaluating: Sendable {
    /// Evaluates `trust`. Implementations must fail closed: any error is a failure in the verdict.
    func evaluate(_ trust: ServerTrust) async -> TrustVerdict

    /// The trust as this evaluator leaves it for the evaluators after it in a ``CompositeTrustEvaluator``.
    ///
    /// Alamofire's evaluators share one `SecTrust`, and what one sets there stays for the next: the anchors that
    /// `PinnedCertificatesTrustEvaluator` installs for self-signed certificates, in particular. The default leaves
    /// the trust unchanged.
    func adjusting(_ trust: ServerTrust) -> ServerTrust
}

extension ServerTrustEvaluating {
    public func adjusting(_ trust: ServerTrust) -> ServerTrust { trust }
}

/// Chain validation under the trust's own policy: what `SecTrustEvaluateWithError` does.
public struct DefaultTrustEvaluator: ServerTrustEvaluating {
    /// When false, the SSL policy keeps its TLS rules but does not check the host name.
    public var validateHost: Bool
    /// The engine that evaluates; its validated-path cache serves every evaluation that shares it.
    public var engine: TrustEngine

    /// Alamofire's `DefaultTrustEvaluator(validateHost:)`.
    public init(validateHost: Bool = true, engine: TrustEngine = .shared) {
        self.validateHost = validateHost
        self.engine = engine
    }

    public func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        var trust = trust
        if !validateHost, case .ssl = trust.policy.kind { trust.policy.kind = .ssl(nil) }
        return await engine.evaluate(trust)
    }
}

/// Runs evaluators in order; trust needs every one of them. The verdict's chain and anchor are the first
/// evaluator's, and failures and notes from all are kept, so a refusal lists every reason. Each evaluator sees
/// the trust as the ones before it left it (``ServerTrustEvaluating/adjusting(_:)``), as on one `SecTrust`.
public struct CompositeTrustEvaluator: ServerTrustEvaluating {
    /// The evaluators, each run on the trust as the ones before it left it; every failure is kept.
    public var evaluators: [any ServerTrustEvaluating]

    /// A composition of `evaluators`, run in order; with none, every evaluation is refused.
    public init(_ evaluators: [any ServerTrustEvaluating]) { self.evaluators = evaluators }

    public func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        guard let first = evaluators.first else {
            return .refused(TrustFailure(.policy, certificate: nil, "no trust evaluator was configured; refusing rather than trusting by default"))
        }
        var verdict = await first.evaluate(trust)
        var trust = first.adjusting(trust)
        for evaluator in evaluators.dropFirst() {
            let next = await evaluator.evaluate(trust)
            trust = evaluator.adjusting(trust)
            verdict = verdict.adding(next.failures, notes: next.notes)
            if verdict.chain.isEmpty { verdict.chain = next.chain }
        }
        return verdict
    }

    public func adjusting(_ trust: ServerTrust) -> ServerTrust {
        evaluators.reduce(trust) { $1.adjusting($0) }
    }
}
