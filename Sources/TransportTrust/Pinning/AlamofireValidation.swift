/// The validation steps Alamofire's pinning evaluators share.
enum AlamofireValidation {
    /// Default validation (SSL policy, no host), then host validation, each only when asked for. When neither
    /// is asked for, the chain is still built (pins are matched against it) but its failures are ignored, and a
    /// note says so.
    static func run(_ trust: ServerTrust, performDefaultValidation: Bool, validateHost: Bool, engine: TrustEngine) async -> TrustVerdict {
        var verdict: TrustVerdict?
        if performDefaultValidation {
            var t = trust
            if case .ssl = t.policy.kind { t.policy.kind = .ssl(nil) }
            let v = await engine.evaluate(t)
            guard v.isTrusted else { return v }
            verdict = v
        }
        if validateHost {
            let v = await engine.evaluate(trust)
            guard v.isTrusted else { return v }
            verdict = v
        }
        if let verdict { return verdict }
        return await engine.evaluate(trust).acceptingInvalid("validation is off (performDefaultValidation and validateHost are false); ignored")
    }
}
