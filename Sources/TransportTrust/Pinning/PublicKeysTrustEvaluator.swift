/// Alamofire's `PublicKeysTrustEvaluator`: a key of the built chain must equal one of the pinned keys.
///
/// Keys are SubjectPublicKeyInfo DER, so every key type and size works, including keys swift-certificates
/// cannot use. `performDefaultValidation` and `validateHost` mean what they mean for
/// ``PinnedCertificatesTrustEvaluator``.
public struct PublicKeysTrustEvaluator: ServerTrustEvaluating {
    /// SubjectPublicKeyInfo DER of each pinned key.
    public let keys: [[UInt8]]
    /// Whether the chain is validated first (the default evaluation), as in Alamofire.
    public let performDefaultValidation: Bool
    /// Whether that validation also checks the host name.
    public let validateHost: Bool
    /// The engine that validates chains and caches validated paths.
    public let engine: TrustEngine
    private let pinned: Set<[UInt8]>

    /// Trusts a chain in which a certificate carries one of `keys`, after the default validation unless that is turned off.
    ///
    ///  - Parameters:
    ///    - keys: the pinned SubjectPublicKeyInfo structures, DER.
    ///    - performDefaultValidation: whether the chain is validated first.
    ///    - validateHost: whether that validation checks the host name.
    ///    - engine: the engine that validates chains.
    public init(keys: [[UInt8]], performDefaultValidation: Bool = true, validateHost: Bool = true, engine: TrustEngine = .shared) {
        self.keys = keys
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
        self.engine = engine
        self.pinned = Set(keys)
    }

    /// Pins the keys of `certificates` (Alamofire's default: the keys of the certificates in the bundle).
    public init(certificates: [InputCertificate], performDefaultValidation: Bool = true, validateHost: Bool = true, engine: TrustEngine = .shared) {
        self.init(keys: certificates.compactMap { $0.raw?.subjectPublicKeyInfo }, performDefaultValidation: performDefaultValidation,
                  validateHost: validateHost, engine: engine)
    }

    public func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        guard !keys.isEmpty else {
            return .refused(TrustFailure(.policy, certificate: nil, "no pinned public keys were given (noPublicKeysFound); give at least one"))
        }
        let verdict = await AlamofireValidation.run(trust, performDefaultValidation: performDefaultValidation, validateHost: validateHost, engine: engine)
        guard verdict.isTrusted else { return verdict }
        let chain = SPKIHashCache.shared.fingerprints(verdict.chain)
        if chain.contains(where: { pinned.contains($0.subjectPublicKeyInfo) }) { return verdict }
        let set = PinSet(keys.map(Pin.publicKey), scope: .any)
        return .refused(TrustFailure(.pinMismatch, certificate: nil,
            "publicKeyPinningFailed: " + set.mismatchMessage(host: trust.policy.host?.description, chain: chain, unmatched: [.any])),
            chain: verdict.chain)
    }
}
