import Foundation

/// AFNetworking's `AFSecurityPolicy`, step for step, on every platform.
///
/// The algorithm of `evaluateServerTrust:forDomain:`:
/// 1. A domain, `allowInvalidCertificates` and `validatesDomainName` together, with pinning mode none or no
///    pinned certificates, is refused: self-signed certificates need pinning to validate a domain name.
/// 2. The SSL policy for the domain is used when `validatesDomainName`, otherwise basic X.509 without a name.
/// 3. Mode none: trusted when `allowInvalidCertificates` or the chain validates.
///    Other modes: an invalid chain is refused unless `allowInvalidCertificates`.
/// 4. Certificate mode makes the pinned certificates the only anchors, validates again, then requires a pinned
///    certificate in the built chain (searched from the root down).
/// 5. Public-key mode requires a key of the chain to equal a pinned key.
///
/// Unlike AFNetworking, keys are compared by their SubjectPublicKeyInfo DER, so every key type works, and a
/// refusal says which step refused and why.
public struct AFSecurityPolicy: ServerTrustEvaluating {
    /// `AFSSLPinningMode`.
    public enum SSLPinningMode: String, Sendable, Hashable, CaseIterable {
        /// `AFSSLPinningModeNone`: no pinning, only the evaluation.
        case none
        /// `AFSSLPinningModePublicKey`: a pinned certificate's public key must be in the chain.
        case publicKey
        /// `AFSSLPinningModeCertificate`: a pinned certificate must be in the chain.
        case certificate
    }

    /// What is pinned, as AFNetworking's `SSLPinningMode`.
    public var pinningMode: SSLPinningMode
    /// DER of the pinned certificates. In public-key mode, their keys are the pins.
    public var pinnedCertificates: Set<[UInt8]> {
        didSet { pinnedPublicKeys = Self.keys(of: pinnedCertificates) }
    }
    /// Whether to trust a chain that does not validate (self-signed, expired). Default false.
    public var allowInvalidCertificates: Bool = false
    /// Whether to check the certificate's name against the domain. Default true.
    public var validatesDomainName: Bool = true
    /// The engine that validates chains and caches validated paths.
    /// The engine that validates chains and caches validated paths.
    public var engine: TrustEngine

    private(set) var pinnedPublicKeys: Set<[UInt8]>

    /// `policyWithPinningMode:withPinnedCertificates:`.
    public init(pinningMode: SSLPinningMode, pinnedCertificates: [InputCertificate] = [], engine: TrustEngine = .shared) {
        self.pinningMode = pinningMode
        let ders = Set(pinnedCertificates.map(\.der))
        self.pinnedCertificates = ders
        self.pinnedPublicKeys = Self.keys(of: ders)
        self.engine = engine
    }

    /// `defaultPolicy`: no pinning, invalid certificates refused, domain name validated.
    public static var `default`: AFSecurityPolicy { AFSecurityPolicy(pinningMode: .none) }

    /// Every certificate in the `.cer`, `.crt`, `.der` and `.pem` files of a folder, like `certificatesInBundle:`.
    public static func certificates(inDirectory path: String) throws(PinConfigurationError) -> [InputCertificate] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw PinConfigurationError(.unreadableCertificate, source: path, "the folder cannot be read (\(error.localizedDescription))",
                fix: "Give a folder that holds .cer, .crt, .der or .pem files")
        }
        var result: [InputCertificate] = []
        for name in names.sorted() where ["cer", "crt", "der", "pem"].contains((name as NSString).pathExtension.lowercased()) {
            let file = (path as NSString).appendingPathComponent(name)
            do { result += try CertificateLoader.certificates(atPath: file) } catch {
                throw PinConfigurationError(.unreadableCertificate, source: file, "\(error)", fix: "Remove the file or replace it with a valid certificate")
            }
        }
        return result
    }

    /// `evaluateServerTrust:forDomain:` as a yes or no.
    public func evaluateServerTrust(_ trust: ServerTrust, forDomain domain: String?) async -> Bool {
        await evaluate(trust, forDomain: domain).isTrusted
    }

    /// Evaluates with the trust's host (if any) as the domain.
    public func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        await evaluate(trust, forDomain: trust.policy.host?.description)
    }

    /// `evaluateServerTrust:forDomain:`, with the reasons.
    public func evaluate(_ trust: ServerTrust, forDomain domain: String?) async -> TrustVerdict {
        // Step 1.
        if domain != nil && allowInvalidCertificates && validatesDomainName && (pinningMode == .none || pinnedCertificates.isEmpty) {
            return .refused(TrustFailure(.policy, certificate: nil,
                "in order to validate a domain name for self-signed certificates, you MUST use pinning: set a pinning mode and pinned certificates, or turn off validatesDomainName or allowInvalidCertificates"))
        }
        // Step 2.
        var trust = trust
        var policy: TrustPolicy
        if validatesDomainName {
            var peer: PeerName?
            if let domain {
                do { peer = try PeerName(domain) } catch {
                    return .refused(TrustFailure(.hostnameMismatch, certificate: nil, "the domain '\(domain)' is not a valid host name: \(error)"))
                }
            }
            policy = .ssl(host: peer)
        } else {
            policy = .basicX509
        }
        policy.profile = trust.policy.profile
        policy.requiresATSStrength = trust.policy.requiresATSStrength
        policy.platform = trust.policy.platform
        policy.maximumIntermediates = trust.policy.maximumIntermediates
        policy.revocation = trust.policy.revocation
        trust.policy = policy
        let verdict = await engine.evaluate(trust)

        // Step 3.
        if pinningMode == .none {
            if verdict.isTrusted { return verdict }
            return allowInvalidCertificates ? Self.allowingInvalid(verdict) : verdict
        }
        if !allowInvalidCertificates && !verdict.isTrusted { return verdict }

        switch pinningMode {
        case .certificate: return await certificatePinned(trust)
        case .publicKey: return publicKeyPinned(verdict, domain: domain)
        case .none: return verdict
        }
    }

    /// Step 4: the pinned certificates become the only anchors, and one of them must be in the validated chain.
    private func certificatePinned(_ trust: ServerTrust) async -> TrustVerdict {
        var trust = trust
        let pinned = pinnedCertificates.sorted { $0.lexicographicallyPrecedes($1) }.compactMap { try? InputCertificate(der: $0) }
        trust.anchors = TrustAnchors(custom: pinned, anchorsOnly: true)
        var anchored = await engine.evaluate(trust)
        guard anchored.isTrusted else {
            anchored.notes.append("certificate pinning mode trusts only the pinned certificates as anchors, and the chain does not lead to one of them")
            return anchored
        }
        for certificate in anchored.chain.reversed() where pinnedCertificates.contains(certificate.der) {
            return anchored
        }
        return .refused(TrustFailure(.pinMismatch, certificate: nil, "no pinned certificate is in the validated chain"), chain: anchored.chain)
    }

    /// Step 5: a pinned public key anywhere in the chain.
    private func publicKeyPinned(_ verdict: TrustVerdict, domain: String?) -> TrustVerdict {
        let signed = verdict.signedChain
        let keys = signed.compactMap { $0.raw?.subjectPublicKeyInfo }
        if keys.contains(where: pinnedPublicKeys.contains) {
            return verdict.isTrusted ? verdict : Self.allowingInvalid(verdict)
        }
        let chain = SPKIHashCache.shared.fingerprints(signed)
        let set = PinSet(pinnedPublicKeys.sorted { $0.lexicographicallyPrecedes($1) }.map(Pin.publicKey), scope: .any)
        var refused = TrustVerdict.refused(TrustFailure(.pinMismatch, certificate: nil,
            set.mismatchMessage(host: domain, chain: chain, unmatched: [.any])), chain: verdict.chain)
        refused.failures += verdict.failures
        return refused
    }

    /// A verdict that trusts an invalid chain because `allowInvalidCertificates` says so, keeping the reasons as notes.
    static func allowingInvalid(_ verdict: TrustVerdict) -> TrustVerdict {
        verdict.acceptingInvalid("allowInvalidCertificates ignored")
    }

    static func keys(of certificates: Set<[UInt8]>) -> Set<[UInt8]> {
        Set(certificates.compactMap { (try? RawCertificate(der: $0))?.subjectPublicKeyInfo })
    }
}
