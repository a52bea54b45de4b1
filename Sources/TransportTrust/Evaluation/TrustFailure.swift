import X509

/// A stable, machine-readable reason why trust was refused.
///
/// The raw values are part of the JSON output and never change meaning.
public enum TrustFailureCode: String, Sendable, Codable, CaseIterable, Hashable {
    /// A certificate of the path is past its notAfter at the validation time.
    case expired
    /// A certificate of the path is not valid until after the validation time.
    case notYetValid
    /// No subjectAltName of the leaf matches the host; the common name is never used.
    case hostnameMismatch
    /// The issuer of a certificate was neither presented nor known; the message names it.
    case unknownIssuer
    /// The leaf signed itself and is not an anchor.
    case selfSignedLeaf
    /// The path ends at a root that is not an anchor, or that Apple's store restricts for this use.
    case untrustedRoot
    /// A key is too small: RSA under 2048 bits, or a curve Apple or ATS refuses.
    case weakKey
    /// A certificate below the anchor is signed with SHA-1 or MD5.
    case weakSignature
    /// A certificate issues others without being a CA, or its basicConstraints are invalid.
    case basicConstraints
    /// A CA's pathLenConstraint allows fewer CAs below it than the path has.
    case pathLength
    /// A name in the chain is outside what a CA's name constraints permit.
    case nameConstraints
    /// A keyUsage extension does not allow the use the certificate is put to.
    case keyUsage
    /// The leaf's extendedKeyUsage lacks the purpose required (serverAuth, clientAuth), or a CA's forbids it.
    case extendedKeyUsage
    /// A critical extension that no rule processes, which RFC 5280 requires refusing; under the Web PKI profile,
    /// also a critical certificatePolicies with a policy qualifier of unknown type.
    case unhandledCriticalExtension
    /// A key or signature algorithm this verifier cannot check; refused rather than trusted unchecked.
    case unsupportedAlgorithm
    /// A certificate, or one of its extensions, cannot be read, or its encoding breaks a rule.
    case malformedCertificate
    /// A verified OCSP response says a certificate of the path is revoked.
    case revoked
    /// Hard-fail revocation found no verified "good" response for a certificate that names a responder.
    case revocationUnknown
    /// Apple's Certificate Transparency policy is not met: too few valid SCTs, or none embedded.
    case certificateTransparency
    /// More intermediates than ``TrustPolicy/maximumIntermediates``.
    case chainTooLong
    /// The search for a path gave up after its budget; the input is hostile or pathological.
    case pathBuildingLimit
    /// An enforced pin set matched no certificate of the built chain in its scope; the message lists the chain's pins.
    case pinMismatch
    /// ``ServerTrustManager`` has no rule for the host and every host must be evaluated.
    case hostNotAllowed
    /// An evaluator's own configuration refuses (no pins given, no evaluator configured).
    case policy
    /// Something failed inside the evaluation; it fails closed.
    case internalError
    /// The leaf is valid for longer than Apple allows a TLS server certificate (825 or 398 days; `AppleValidityPeriodRule`).
    case validityPeriodTooLong
    /// RFC 5280 certificate policy processing refused the path: no acceptable policy where an explicit one is
    /// required (the anchor's own policy extensions, policyMappings included, count), anyPolicy mapped, or too much
    /// policy work (`CertificatePolicyRule`).
    case certificatePolicy
    /// A certificate on the path, or its key, is on a distrust list the caller gave (`DistrustRule`).
    case distrusted
}

/// One reason a chain is not trusted: a code, the certificate it concerns, and a sentence to act on.
public struct TrustFailure: Error, Sendable, Codable, Hashable, CustomStringConvertible {
    /// The kind of failure, to branch on.
    public var code: TrustFailureCode
    /// The index of the certificate concerned in the verdict's chain (0 is the leaf), when one applies.
    public var certificate: Int?
    /// A sentence for a person: the certificate concerned, what is wrong with it, and what would fix it.
    public var message: String
    /// Whether the refusal is only this verifier's limit: it cannot check what the certificate uses (an RSA-PSS
    /// signature, an RSA key under 2048 bits where the platform accepts one), so Apple's verifier may trust the chain.
    /// It is refused all the same, since nothing unchecked is trusted. `ats diagnose` reports such a load as not
    /// testable rather than failed. JSON carries `"verifierLimitation": true` only when it is set.
    public var isVerifierLimitation: Bool

    /// A failure of `code`, concerning the certificate at index `certificate` of the verdict's chain (nil when none).
    public init(_ code: TrustFailureCode, certificate: Int?, _ message: String) {
        self.init(code, certificate: certificate, message, isVerifierLimitation: false)
    }

    /// A failure that may also be only this verifier's limit (``isVerifierLimitation``).
    public init(_ code: TrustFailureCode, certificate: Int?, _ message: String, isVerifierLimitation: Bool) {
        self.code = code
        self.certificate = certificate
        self.message = message
        self.isVerifierLimitation = isVerifierLimitation
    }

    private enum CodingKeys: String, CodingKey {
        case code, certificate, message, verifierLimitation
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decode(TrustFailureCode.self, forKey: .code),
                  certificate: try container.decodeIfPresent(Int.self, forKey: .certificate),
                  try container.decode(String.self, forKey: .message),
                  isVerifierLimitation: try container.decodeIfPresent(Bool.self, forKey: .verifierLimitation) ?? false)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encodeIfPresent(certificate, forKey: .certificate)
        try container.encode(message, forKey: .message)
        if isVerifierLimitation { try container.encode(true, forKey: .verifierLimitation) }
    }

    public var description: String {
        if let certificate { return "[\(code.rawValue)] certificate \(certificate): \(message)" }
        return "[\(code.rawValue)] \(message)"
    }
}

extension TrustFailure {
    /// An extension of `cert` that does not parse. Several rules meet the same one, and the same failure from each
    /// lets the engine report it once.
    static func malformedExtension(_ name: String, of cert: Certificate, at index: Int) -> TrustFailure {
        TrustFailure(.malformedCertificate, certificate: index, "\(cert.label) has a malformed \(name) extension")
    }
}
