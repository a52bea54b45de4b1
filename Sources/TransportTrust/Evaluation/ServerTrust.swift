import Foundation

/// Everything one evaluation needs, as `SecTrust` holds it: the certificates the server presented, the
/// anchors, the policy and the time.
public struct ServerTrust: Sendable {
    /// DER certificates as presented, leaf first. The order of the rest does not matter, and some may be
    /// missing or superfluous.
    public var certificates: [[UInt8]] { didSet { parsedCertificates = nil } }
    /// Further intermediates to consider (for example `--intermediates`), as DER.
    public var additionalIntermediates: [[UInt8]] { didSet { parsedIntermediates = nil } }
    /// The parses the caller already made, so the engine does not parse the same DER again. Parsing is an
    /// eighth of a cold evaluation. Dropped when the DER they came from is replaced.
    var parsedCertificates: [InputCertificate]?
    /// The presented certificates that parse, in the order sent.
    package var inputCertificates: [InputCertificate] { parsedCertificates ?? certificates.compactMap { try? InputCertificate(der: $0) } }
    /// The additional intermediates that parse.
    var inputIntermediates: [InputCertificate] { parsedIntermediates ?? additionalIntermediates.compactMap { try? InputCertificate(der: $0) } }
    var parsedIntermediates: [InputCertificate]?
    /// The roots a path must end at.
    public var anchors: TrustAnchors
    /// What the path must satisfy: the SSL policy for a host, or the basic X.509 policy, with their options.
    public var policy: TrustPolicy
    /// nil means now.
    public var validationTime: Date?

    /// The certificates as DER, leaf first, and what to evaluate them against.
    public init(
        certificates: [[UInt8]],
        additionalIntermediates: [[UInt8]] = [],
        anchors: TrustAnchors = .system,
        policy: TrustPolicy,
        validationTime: Date? = nil
    ) {
        self.certificates = certificates
        self.additionalIntermediates = additionalIntermediates
        self.anchors = anchors
        self.policy = policy
        self.validationTime = validationTime
    }

    /// Convenience for already-loaded certificates.
    public init(
        chain: [InputCertificate],
        additionalIntermediates: [InputCertificate] = [],
        anchors: TrustAnchors = .system,
        policy: TrustPolicy,
        validationTime: Date? = nil
    ) {
        self.init(certificates: chain.map(\.der), additionalIntermediates: additionalIntermediates.map(\.der),
                  anchors: anchors, policy: policy, validationTime: validationTime)
        parsedCertificates = chain
        parsedIntermediates = additionalIntermediates
    }

    /// Evaluates with the shared engine.
    public func evaluate() async -> TrustVerdict { await TrustEngine.shared.evaluate(self) }
}
