import Foundation
import TransportTrust

/// How a client evaluates server trust, whatever the connection: anchors, the trust manager, the Apple release
/// whose rules apply, Certificate Transparency and revocation.
public struct TrustSettings: Sendable {
    /// The roots that count: this machine's, Apple's store, or custom ones.
    public var anchors: TrustAnchors
    /// Per-host evaluators (pins, allow-lists); nil for chain validation under the connection's policy.
    public var trustManager: ServerTrustManager?
    /// The Apple release whose TLS server rules apply (key sizes, lifetimes).
    public var platform: ApplePlatform
    /// Whether and how Certificate Transparency is checked, and with which log list.
    public var certificateTransparency: CertificateTransparencyOptions
    /// Whether revocation is checked, and what an unavailable answer means.
    public var revocation: RevocationOptions.Mode
    /// Where OCSP responses come from; handed to evaluators even when ``revocation`` is off, for those that check.
    public var ocspSource: (any OCSPResponseSource)?
    /// Where CRLs come from (the distribution points), handed to evaluators as ``ocspSource`` is.
    public var crlSource: (any CRLSource)?
    /// The time to evaluate at; nil for now.
    public var validationTime: Date?

    /// Settings for every connection of a client; the defaults are the system roots and the newest Apple release.
    public init(anchors: TrustAnchors = .system, trustManager: ServerTrustManager? = nil, platform: ApplePlatform = .newest,
                certificateTransparency: CertificateTransparencyOptions = CertificateTransparencyOptions(),
                revocation: RevocationOptions.Mode = .off, ocspSource: (any OCSPResponseSource)? = nil,
                crlSource: (any CRLSource)? = nil, validationTime: Date? = nil) {
        self.anchors = anchors
        self.trustManager = trustManager
        self.platform = platform
        self.certificateTransparency = certificateTransparency
        self.revocation = revocation
        self.ocspSource = ocspSource
        self.crlSource = crlSource
        self.validationTime = validationTime
    }
}
