/// Alamofire's `RevocationTrustEvaluator`: the chain must validate and must not be revoked.
///
/// Revocation is checked with OCSP (`.ocsp`), from stapled responses and, unless `networkAccessDisabled`, from the
/// responder through ``source``, or else the source the trust carries (TransportClient's `HTTPSClient` gives every trust one), and
/// with CRLs (`.crl`, RFC 5280 §6.3), handed in or fetched from the distribution points through ``crlSource`` or the
/// trust's. `.preferCRL` asks for a CRL first. With no source and nothing handed in, nothing can be asked: soft-fail
/// notes that, hard-fail refuses. Without `requirePositiveResponse` the check is soft:
/// only a "revoked" answer fails. With it the check is hard: only a verified "good" answer passes, for every
/// certificate that offers a way to its status by one of the enabled methods.
public struct RevocationTrustEvaluator: ServerTrustEvaluating {
    /// Alamofire's `RevocationTrustEvaluator.Options`.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// CRLs (RFC 5280 §6.3).
        public static let crl = Options(rawValue: 1 << 0)
        /// OCSP, from stapled or handed-in responses and, unless `networkAccessDisabled`, the responder.
        public static let ocsp = Options(rawValue: 1 << 1)
        /// Ask for a CRL before OCSP when both are enabled.
        public static let preferCRL = Options(rawValue: 1 << 2)
        /// Hard fail: a certificate that offers a way to its status by an enabled method (an OCSP responder with
        /// `.ocsp`, a CRL distribution point with `.crl`) and has no verified good answer by one fails.
        public static let requirePositiveResponse = Options(rawValue: 1 << 3)
        /// Use only the responses handed in; never ask a responder.
        public static let networkAccessDisabled = Options(rawValue: 1 << 4)
        /// CRL or OCSP, Alamofire's default.
        public static let any: Options = [.crl, .ocsp]
    }

    /// Which methods count, and whether a positive answer is required (Alamofire's options).
    public let options: Options
    /// Whether the chain is validated first (the default evaluation), as in Alamofire.
    public let performDefaultValidation: Bool
    /// Whether that validation also checks the host name.
    public let validateHost: Bool
    /// Stapled or already fetched OCSP responses, DER.
    public let responses: [[UInt8]]
    /// Where OCSP responses come from.
    public let source: (any OCSPResponseSource)?
    /// CRLs already at hand, complete or delta.
    public let crls: [CertificateRevocationList]
    /// Where CRLs come from.
    public let crlSource: (any CRLSource)?
    /// The engine that validates chains and caches validated paths.
    public let engine: TrustEngine

    /// Alamofire's revocation evaluator: the chain must validate and no certificate in it may be revoked.
    ///
    ///  - Parameters:
    ///    - options: which methods count, and whether a positive answer is required.
    ///    - performDefaultValidation: whether the chain is validated first.
    ///    - validateHost: whether that validation checks the host name.
    ///    - responses: stapled or already fetched OCSP responses, DER.
    ///    - source: where OCSP responses come from; nil for the source the trust carries.
    ///    - crls: CRLs already at hand, complete or delta.
    ///    - crlSource: where CRLs come from; nil for the source the trust carries.
    ///    - engine: the engine that validates chains.
    public init(options: Options = .any, performDefaultValidation: Bool = true, validateHost: Bool = true,
                responses: [[UInt8]] = [], source: (any OCSPResponseSource)? = nil, crls: [CertificateRevocationList] = [],
                crlSource: (any CRLSource)? = nil, engine: TrustEngine = .shared) {
        self.options = options
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
        self.responses = responses
        self.source = source
        self.crls = crls
        self.crlSource = crlSource
        self.engine = engine
    }

    /// Soft or hard, as the options say.
    public var mode: RevocationOptions.Mode { options.contains(.requirePositiveResponse) ? .hard : .soft }

    public func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        var methods: RevocationOptions.Methods = []
        if options.contains(.ocsp) { methods.insert(.ocsp) }
        if options.contains(.crl) { methods.insert(.crl) }
        guard !methods.isEmpty else {
            return .refused(TrustFailure(.policy, certificate: nil,
                "the revocation options name no method (revocationPolicyCreationFailed); add .ocsp, .crl or both"))
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
        let offline = options.contains(.networkAccessDisabled)
        let carried = trust.policy.revocation
        trust.policy.revocation = RevocationOptions(mode: mode, responses: responses + carried.responses,
                                                    source: offline ? nil : source ?? carried.source,
                                                    crls: crls + carried.crls, crlSource: offline ? nil : crlSource ?? carried.crlSource,
                                                    methods: methods, preferCRL: options.contains(.preferCRL))
        return await engine.evaluate(trust)
    }
}
