import Crypto

/// What pins compare against for one certificate: its DER, its SubjectPublicKeyInfo and the SPKI hashes.
///
/// Computed from the DER alone (`RawCertificate`), so keys swift-certificates cannot parse (RSA-1024,
/// RSA-PSS, unknown curves) still have hashes.
package struct CertificateFingerprint: Sendable, Hashable {
    public let der: [UInt8]
    /// The SubjectPublicKeyInfo DER; empty when the certificate cannot be read at all.
    public let subjectPublicKeyInfo: [UInt8]
    public let spkiSHA256: [UInt8]
    public let spkiSHA1: [UInt8]
    /// The subject, for messages.
    public let subject: String

    public init(der: [UInt8]) {
        self.der = der
        if let raw = try? RawCertificate(der: der) {
            subjectPublicKeyInfo = raw.subjectPublicKeyInfo
            subject = raw.subject.text
        } else {
            subjectPublicKeyInfo = []
            subject = "an unreadable certificate"
        }
        spkiSHA256 = subjectPublicKeyInfo.isEmpty ? [] : Array(SHA256.hash(data: subjectPublicKeyInfo))
        spkiSHA1 = subjectPublicKeyInfo.isEmpty ? [] : Array(Insecure.SHA1.hash(data: subjectPublicKeyInfo))
    }

    /// `sha256/…`, the form OkHttp prints in its pinning failures.
    public var sha256Pin: String { spkiSHA256.isEmpty ? "sha256/?" : "sha256/" + Base64.encode(spkiSHA256) }
}
