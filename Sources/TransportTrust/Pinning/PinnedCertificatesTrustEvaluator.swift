/// Alamofire's `PinnedCertificatesTrustEvaluator`: the built chain must contain one of the pinned certificates.
///
/// - `acceptSelfSignedCertificates`: the pinned certificates become the only anchors, so a self-signed or
///   private-CA certificate that is pinned validates.
/// - `performDefaultValidation`: the chain must validate under the SSL policy without a host.
/// - `validateHost`: the chain must validate under the SSL policy with the trust's host.
///
/// The pinned certificates are looked for in the chain that evaluation built, never only in what the server sent.
public struct PinnedCertificatesTrustEvaluator: ServerTrustEvaluating {
    /// The pinned certificates; one of them must be in the chain.
    public let certificates: [InputCertificate]
    /// Whether a pinned self-signed leaf is trusted on its own, without a chain to an anchor.
    public let acceptSelfSignedCertificates: Bool
    /// Whether the chain is validated first (the default evaluation), as in Alamofire.
    public let performDefaultValidation: Bool
    /// Whether that validation also checks the host name.
    public let validateHost: Bool
    /// The engine that validates chains and caches validated paths.
    public let engine: TrustEngine
    private let pinned: Set<[UInt8]>
    private let anchors: TrustAnchors?

    /// Trusts a chain that holds one of `certificates`, after the default validation unless that is turned off.
    ///
    ///  - Parameters:
    ///    - certificates: the pinned certificates.
    ///    - acceptSelfSignedCertificates: whether a pinned self-signed leaf is trusted without a chain to an anchor.
    ///    - performDefaultValidation: whether the chain is validated first.
    ///    - validateHost: whether that validation checks the host name.
    ///    - engine: the engine that validates chains.
    public init(certificates: [InputCertificate], acceptSelfSignedCertificates: Bool = false,
                performDefaultValidation: Bool = true, validateHost: Bool = true, engine: TrustEngine = .shared) {
        self.certificates = certificates
        self.acceptSelfSignedCertificates = acceptSelfSignedCertificates
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
        self.engine = engine
        self.pinned = Set(certificates.map(\.der))
        self.anchors = acceptSelfSignedCertificates && !certificates.isEmpty ? TrustAnchors(custom: certificates, anchorsOnly: true) : nil
    }

    public func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        guard !certificates.isEmpty else {
            return .refused(TrustFailure(.policy, certificate: nil, "no pinned certificates were given (noCertificatesFound); give at least one"))
        }
        let trust = adjusting(trust)
        let verdict = await AlamofireValidation.run(trust, performDefaultValidation: performDefaultValidation, validateHost: validateHost, engine: engine)
        guard verdict.isTrusted else { return verdict }
        if verdict.chain.contains(where: { pinned.contains($0.der) }) { return verdict }
        let chain = SPKIHashCache.shared.fingerprints(verdict.chain)
        let set = PinSet(certificates.map { Pin.certificate($0.der) }, scope: .any)
        return .refused(TrustFailure(.pinMismatch, certificate: nil,
            "certificatePinningFailed: " + set.mismatchMessage(host: trust.policy.host?.description, chain: chain, unmatched: [.any])),
            chain: verdict.chain)
    }

    /// With `acceptSelfSignedCertificates`, the pinned certificates are the anchors, for this evaluator and the ones
    /// after it in a composite (Alamofire sets them on the shared `SecTrust`).
    public func adjusting(_ trust: ServerTrust) -> ServerTrust {
        guard let anchors else { return trust }
        var trust = trust
        trust.anchors = anchors
        return trust
    }
}
