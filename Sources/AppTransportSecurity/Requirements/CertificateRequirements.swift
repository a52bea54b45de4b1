import TransportTrust

/// What the server's certificate must satisfy for one connection.
public struct CertificateRequirements: Sendable, Equatable, Codable {
    /// How server trust is evaluated.
    public enum Validation: String, Sendable, Equatable, Codable {
        /// Default server trust evaluation (SecTrust's SSL policy); the app cannot loosen it.
        case standard
        /// NSExceptionAllowsInsecureHTTPLoads lets the app loosen server trust evaluation itself (Apple:
        /// "…or to be able to loosen the server trust evaluation requirements for HTTPS connections to the domain").
        case relaxed
    }

    /// How the chain is validated: strictly, or relaxed where an exception lets the app loosen trust.
    public var validation: Validation
    /// ATS key sizes: RSA ≥ 2048 bits, EC ≥ 256 bits. Dropped by NSExceptionRequiresForwardSecrecy = NO.
    public var requiresATSKeyStrength: Bool
    /// A SHA-2 signature (SHA-256 or stronger); SecTrust also refuses SHA-1, so this holds even without ATS.
    public var requiresSHA2Signature: Bool
    /// Certificate Transparency for certificates issued after 2018-10-15 (iOS 12.1.1, macOS 10.14.2; `ApplePlatform.enforcesCertificateTransparency`).
    public var requiresCertificateTransparency: Bool
    /// NSRequiresCertificateTransparency = YES: CT is required even on releases whose system does not require it for
    /// every connection (before iOS 12.1.1 / macOS 10.14.2), and for certificates issued before 2018-10-16.
    public var certificateTransparencyFromConfiguration: Bool

    /// The requirements one resolution decided.
    package init(validation: Validation, requiresATSKeyStrength: Bool, requiresSHA2Signature: Bool = true,
                requiresCertificateTransparency: Bool, certificateTransparencyFromConfiguration: Bool = false) {
        self.validation = validation
        self.requiresATSKeyStrength = requiresATSKeyStrength
        self.requiresSHA2Signature = requiresSHA2Signature
        self.requiresCertificateTransparency = requiresCertificateTransparency
        self.certificateTransparencyFromConfiguration = certificateTransparencyFromConfiguration
    }

    /// The TransportTrust policy that checks these rules for `host`: the SSL policy, plus ATS key strength when
    /// required, and `transparency` unless the platform requires no Certificate Transparency at all.
    public func trustPolicy(host: PeerName?, transparency: CertificateTransparencyOptions = CertificateTransparencyOptions()) -> TrustPolicy {
        var policy = TrustPolicy.ssl(host: host)
        policy.requiresATSStrength = requiresATSKeyStrength
        policy.certificateTransparency = transparency
        if !requiresCertificateTransparency { policy.certificateTransparency.mode = .off }
        if certificateTransparencyFromConfiguration { policy.certificateTransparency.requiredByConfiguration = true }
        return policy
    }
}
