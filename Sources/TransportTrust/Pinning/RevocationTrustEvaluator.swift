/// Alamofire's `RevocationTrustEvaluator`: the chain must validate and must not be revoked.
///
/// Revocation is checked with OCSP, from stapled responses and, unless `networkAccessDisabled`, from the
/// responder through ``source``, or else the source the trust carries (TransportClient's `HTTPSClient` gives every trust one).
/// With neither, nothing can be asked: soft-fail notes that, hard-fail refuses. Without `requirePositiveResponse` the check is soft:
/// only a "revoked" answer fails. With it the check is hard: only a verified "good" answer passes.
public struct RevocationTrustEvaluator: ServerTrustEvaluating {
    /// Alamofire's `RevocationTrustEvaluator.Options`.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// CRLs. Not implemented here: with `.crl` alone the evaluator refuses, rather than passing unchecked.
        public static let crl = Options(rawValue: 1 << 0)
        public static let ocsp = Options(rawValue: 1 << 1)
        public static let preferCRL = Options(rawValue: 1 << 2)
        /// Hard fail: a certificate without a verified good response fails.
        public static let requirePositiveResponse = Options(rawValue: 1 << 3)
        /// Use only the responses handed in; never ask a responder.
        public static let networkAccessDisabled = Options(rawValue: 1 << 4)
        /// CRL or OCSP, Alamofire's default.
        public static let any: Options = [.crl, .ocsp]
    }

    public let options: Options
    public let performDefaultValidation: Bool
    public let validateHost: Bool
    /// Stapled or already fetched OCSP responses, DER.
    public let responses: [[UInt8]]
    public let source: (any OCSPResponseSource)?
    public let engine: TrustEngine

    public init(options: Options = .any, performDefaultValidation: Bool = true, validateHost: Bool = true,
                responses: [[UInt8]] = [], source: (any OCSPResponseSource)? = nil, engine: TrustEngine = .shared) {
        self.options = options
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
        self.responses = responses
        self.source = source
        self.engine = engine
    }

    /// Soft or hard, as the options say.
    public var mode: RevocationOptions.Mode { options.contains(.requirePositiveResponse) ? .hard : .soft }

    public func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        guard options.contains(.ocsp) else {
            return .refused(TrustFailure(.policy, certificate: nil,
                "revocation checking by CRL alone is not supported (revocationPolicyCreationFailed); add .ocsp to the options"))
        }
        var trust = trust
        if performDefaultValidation {
            var t = trust
            if !validateHost, case .ssl = t.policy.kind { t.policy.kind = .ssl(nil) }
            let v = await engine.evaluate(t)
            guard v.isTrusted else { return v }
        }
        if !validateHost, case .ssl = trust.policy.kind { trust.policy.kind = .ssl(nil) }
        // The trust may carry a source already (the HTTPS client's): keep it, as SecTrust keeps its network access.
        trust.policy.revocation = RevocationOptions(mode: mode, responses: responses + trust.policy.revocation.responses,
                                                    source: options.contains(.networkAccessDisabled) ? nil : source ?? trust.policy.revocation.source)
        var verdict = await engine.evaluate(trust)
        if options.contains(.crl) { verdict.notes.append("CRLs are not checked; revocation was checked with OCSP only") }
        return verdict
    }
}
