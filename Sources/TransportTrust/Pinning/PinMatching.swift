/// How a configuration combines the entries whose patterns all match one host.
package enum PinMatching: String, Sendable, Hashable, CaseIterable {
    /// The most specific entry alone applies (TrustKit, ATS, Android; Alamofire's exact lookup).
    case mostSpecific
    /// The pins of every matching entry apply together, and any one of them passes: OkHttp's
    /// `CertificatePinner.findMatchingPins`.
    case everyMatch
}
