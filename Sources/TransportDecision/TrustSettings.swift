import Foundation
import TransportTrust

/// How a client evaluates server trust, whatever the connection: anchors, the trust manager, the Apple release
/// whose rules apply, Certificate Transparency and revocation.
public struct TrustSettings: Sendable {
    public var anchors: TrustAnchors
    /// Per-host evaluators (pins, allow-lists); nil for chain validation under the connection's policy.
    public var trustManager: ServerTrustManager?
    public var platform: ApplePlatform
    public var certificateTransparency: CertificateTransparencyOptions
    public var revocation: RevocationOptions.Mode
    /// Where OCSP responses come from; handed to evaluators even when ``revocation`` is off, for those that check.
    public var ocspSource: (any OCSPResponseSource)?
    /// The time to evaluate at; nil for now.
    public var validationTime: Date?

    public init(anchors: TrustAnchors = .system, trustManager: ServerTrustManager? = nil, platform: ApplePlatform = .newest,
                certificateTransparency: CertificateTransparencyOptions = CertificateTransparencyOptions(),
                revocation: RevocationOptions.Mode = .off, ocspSource: (any OCSPResponseSource)? = nil, validationTime: Date? = nil) {
        self.anchors = anchors
        self.trustManager = trustManager
        self.platform = platform
        self.certificateTransparency = certificateTransparency
        self.revocation = revocation
        self.ocspSource = ocspSource
        self.validationTime = validationTime
    }
}
