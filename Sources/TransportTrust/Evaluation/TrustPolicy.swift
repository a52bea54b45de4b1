import X509

/// What a chain must satisfy: the SSL policy (with a host) or the basic X.509 policy, plus options.
///
/// `.ssl(host:)` mirrors `SecPolicyCreateSSL(true, host)`, `.basicX509` mirrors `SecPolicyCreateBasicX509()`.
/// Both include the RFC 5280 path checks and refuse signatures weaker than SHA-256.
public struct TrustPolicy: Sendable {
    /// Which of Apple's two policies applies.
    public enum Kind: Sendable, Hashable {
        /// A TLS server certificate for the host (`SecPolicyCreateSSL`); nil checks everything but the name.
        case ssl(PeerName?)
        /// RFC 5280 path validation without a name or TLS rules (`SecPolicyCreateBasicX509`).
        case basicX509
    }

    /// How strictly certificates must conform, beyond what makes a path unsafe.
    public enum Profile: String, Sendable, Hashable, CaseIterable {
        /// What SecTrust checks: RFC 5280 path validation and Apple's TLS server rules.
        case standard
        /// Also the CA/Browser Forum Baseline Requirements and RFC 5280 conforming-CA rules (pyca, webpki), and
        /// x509-limbo's pedantic reading of wildcards: none over any public suffix, PRIVATE section included.
        case webPKI = "webpki"
    }

    /// The SSL or the basic policy.
    public var kind: Kind
    /// How strictly certificates must conform; ``Profile/standard`` is what SecTrust checks.
    public var profile: Profile = .standard
    /// Adds ATS certificate strength: RSA ≥ 2048 bits, EC ≥ 256 bits.
    public var requiresATSStrength = false
    /// The most logical intermediates allowed between leaf and anchor.
    public var maximumIntermediates: Int? = 8
    /// The purposes the leaf must be valid for (`ExtendedKeyUsageRule`): its EKU, if it carries one, lists each, and
    /// every CA's EKU allows each. Defaults to serverAuth under the SSL policy, none under basic.
    public var requiredExtendedKeyUsages: [ExtendedKeyUsage.Usage]
    /// OCSP revocation checking of the built path; off by default, as in URLSession.
    public var revocation: RevocationOptions = .off
    /// Apple's CT policy, applied under the SSL policy to chains that end at a public root.
    public var certificateTransparency = CertificateTransparencyOptions()
    /// The Apple release whose TLS server rules apply under the SSL policy, whether or not ATS is on:
    /// `AppleKeySizeRule` and `AppleValidityPeriodRule`. The basic policy ignores it.
    public var platform: ApplePlatform = .newest
    /// RFC 5280's initial inputs to certificate policy processing (`CertificatePolicyRule`); by default any policy
    /// is acceptable and none is required.
    public var certificatePolicies = CertificatePolicyOptions()
    /// Certificates and keys no path may go through (`DistrustRule`, one per list).
    public var distrusted: [DistrustList] = []

    /// The SSL server policy. A nil host checks everything but the name.
    public static func ssl(host: PeerName?) -> TrustPolicy { TrustPolicy(kind: .ssl(host)) }

    /// The basic X.509 policy: path validation without a host or a TLS purpose.
    public static var basicX509: TrustPolicy { TrustPolicy(kind: .basicX509) }

    /// A policy of `kind` with every option at its default.
    public init(kind: Kind) {
        self.kind = kind
        if case .ssl = kind { self.requiredExtendedKeyUsages = [.serverAuth] } else { self.requiredExtendedKeyUsages = [] }
    }

    /// The host the SSL policy checks the leaf's names against; nil under the basic policy.
    public var host: PeerName? {
        if case .ssl(let h) = kind { return h }
        return nil
    }

    /// The rules this policy checks on every candidate path, in order.
    @ChainRuleBuilder
    package var rules: [any ChainRule] {
        // First: a distrusted path is refused for that, whatever else is wrong with it.
        for list in distrusted { DistrustRule(list: list) }
        ValidityRule()
        // Before RFC5280Rule: it bounds name-constraint work that rule would otherwise do unbounded.
        StructureRule()
        RFC5280Rule(anchorNeedNotBeCA: profile != .webPKI)
        CertificatePolicyRule(options: certificatePolicies)
        if profile == .webPKI { WebPKIProfileRule(tlsServer: isSSL) }
        if let maximumIntermediates { ChainDepthRule(maximumIntermediates: maximumIntermediates) }
        KeyUsageRule(checksAnchor: profile == .webPKI)
        if !requiredExtendedKeyUsages.isEmpty || isSSL {
            ExtendedKeyUsageRule(required: requiredExtendedKeyUsages, leafMustCarryEKU: isSSL)
        }
        AppleRootConstraintsRule(sslServer: isSSL)
        SignatureStrengthRule()
        if requiresATSStrength { KeyStrengthRule() }
        if isSSL {
            if platform.requiresRSA2048ForTLSServers { AppleKeySizeRule(platform: platform) }
            AppleValidityPeriodRule(platform: platform)
        }
        if let host { HostnameRule(peer: host, refusesWildcardsOverPrivateSuffixes: profile == .webPKI) }
    }

    var isSSL: Bool { if case .ssl = kind { return true } else { return false } }

    /// The CT step of this policy; nil when it has none (the basic policy, or CT off).
    var transparencyCheck: CertificateTransparencyCheck? {
        guard isSSL, certificateTransparency.mode != .off else { return nil }
        return CertificateTransparencyCheck(options: certificateTransparency, platformRequiresCT: platform.enforcesCertificateTransparency)
    }
}
