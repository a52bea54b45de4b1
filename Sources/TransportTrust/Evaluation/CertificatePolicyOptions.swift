import SwiftASN1

/// The four initial inputs of RFC 5280 §6.1.1 to certificate policy processing (`CertificatePolicyRule`).
///
/// The defaults accept any policy and require none, which is what SecTrust's SSL and basic policies ask.
public struct CertificatePolicyOptions: Sendable, Hashable {
    /// The special policy that stands for every policy (2.5.29.32.0).
    public static let anyPolicy: ASN1ObjectIdentifier = [2, 5, 29, 32, 0]

    /// user-initial-policy-set: the policies, in the trust anchor's domain, the caller accepts. Default anyPolicy.
    public var acceptablePolicies: Set<ASN1ObjectIdentifier>
    /// initial-explicit-policy: the path must be valid for at least one of ``acceptablePolicies``.
    public var requireExplicitPolicy: Bool
    /// initial-policy-mapping-inhibit: policy mapping is not allowed.
    public var inhibitPolicyMapping: Bool
    /// initial-any-policy-inhibit: anyPolicy in a certificate does not stand for every policy.
    public var inhibitAnyPolicy: Bool

    /// RFC 5280's initial inputs; the defaults accept any policy and inhibit nothing, as a TLS client does.
    public init(acceptablePolicies: Set<ASN1ObjectIdentifier> = [Self.anyPolicy], requireExplicitPolicy: Bool = false,
                inhibitPolicyMapping: Bool = false, inhibitAnyPolicy: Bool = false) {
        self.acceptablePolicies = acceptablePolicies
        self.requireExplicitPolicy = requireExplicitPolicy
        self.inhibitPolicyMapping = inhibitPolicyMapping
        self.inhibitAnyPolicy = inhibitAnyPolicy
    }
}
