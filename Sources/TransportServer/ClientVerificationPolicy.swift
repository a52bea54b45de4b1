import Foundation
import TransportTrust

/// What a server requires of its clients' certificates.
///
/// The chain is checked by the trust engine under the basic X.509 policy with clientAuth required: a path to one
/// of ``anchors``, every RFC 5280 path rule, and the extendedKeyUsage of the leaf and of every CA that carries
/// one. On top of that, as configured: pins on the client's key or CA (the pin model of `PinSet`), revocation
/// (`RevocationOptions`), and name rules.
public struct ClientVerificationPolicy: Sendable {
    /// The anchors client chains must reach. Only these: never the system roots, which would let any public
    /// certificate in.
    public var anchors: TrustAnchors
    /// Whether a client certificate is required, optional or not asked for.
    public var mode: ClientCertificateMode
    /// Pins the built chain must match (leaf scope: an allow-list of client keys; CA scope: of issuing CAs).
    /// nil checks no pins.
    public var pins: PinSet?
    /// Revocation checking of the client's chain; OCSP responses are handed in or fetched by the source given.
    public var revocation: RevocationOptions
    /// Names that may connect; a client must match one. Empty admits every name.
    public var nameRules: [ClientNameRule]
    /// True (the default): the leaf must carry an extendedKeyUsage that lists clientAuth. False admits a leaf
    /// without the extension, as RFC 5280 reads an absent EKU; a leaf that has one must still list clientAuth.
    public var leafMustListClientAuth: Bool
    /// The most certificates a client may send. Beyond it the client is refused before any parsing.
    public var maximumPresentedCertificates: Int
    /// The time to validate at; nil means now.
    public var validationTime: Date?

    /// A policy that admits clients whose chains reach one of `anchors`, and no other root.
    public init(
        anchors: [InputCertificate],
        mode: ClientCertificateMode = .required,
        pins: PinSet? = nil,
        revocation: RevocationOptions = .off,
        nameRules: [ClientNameRule] = [],
        leafMustListClientAuth: Bool = true,
        maximumPresentedCertificates: Int = 16,
        validationTime: Date? = nil
    ) {
        self.anchors = TrustAnchors(custom: anchors, anchorsOnly: true)
        self.mode = mode
        self.pins = pins
        self.revocation = revocation
        self.nameRules = nameRules
        self.leafMustListClientAuth = leafMustListClientAuth
        self.maximumPresentedCertificates = maximumPresentedCertificates
        self.validationTime = validationTime
    }

    /// The engine's policy for client chains: basic X.509 with clientAuth, and this policy's revocation.
    public var trustPolicy: TrustPolicy {
        var policy = TrustPolicy.basicX509
        policy.requiredExtendedKeyUsages = [.clientAuth]
        policy.revocation = revocation
        return policy
    }
}
