import X509

/// A stable, machine-readable reason why trust was refused.
///
/// The raw values are part of the JSON output and never change meaning.
public enum TrustFailureCode: String, Sendable, Codable, CaseIterable, Hashable {
    case expired
    case notYetValid
    case hostnameMismatch
    case unknownIssuer
    case selfSignedLeaf
    case untrustedRoot
    case weakKey
    case weakSignature
    case basicConstraints
    case pathLength
    case nameConstraints
    case keyUsage
    case extendedKeyUsage
    case unhandledCriticalExtension
    case unsupportedAlgorithm
    case malformedCertificate
    case revoked
    case revocationUnknown
    /// Apple's Certificate Transparency policy is not met: too few valid SCTs, or none embedded.
    case certificateTransparency
    case chainTooLong
    /// The search for a path gave up after its budget; the input is hostile or pathological.
    case pathBuildingLimit
    /// An evaluator refused for a reason of its own (pinning, host lists).
    case pinMismatch
    case hostNotAllowed
    case policy
    case internalError
    /// The leaf is valid for longer than Apple allows a TLS server certificate (825 or 398 days; ``AppleValidityPeriodRule``).
    case validityPeriodTooLong
    /// RFC 5280 certificate policy processing refused the path: no acceptable policy where an explicit one is
    /// required, anyPolicy mapped, or too much policy work (``CertificatePolicyRule``).
    case certificatePolicy
    /// A certificate on the path, or its key, is on a distrust list the caller gave (``DistrustRule``).
    case distrusted
}

/// One reason a chain is not trusted: a code, the certificate it concerns, and a sentence to act on.
public struct TrustFailure: Error, Sendable, Codable, Hashable, CustomStringConvertible {
    public var code: TrustFailureCode
    /// The index of the certificate concerned in the verdict's chain (0 is the leaf), when one applies.
    public var certificate: Int?
    public var message: String

    public init(_ code: TrustFailureCode, certificate: Int?, _ message: String) {
        self.code = code
        self.certificate = certificate
        self.message = message
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
