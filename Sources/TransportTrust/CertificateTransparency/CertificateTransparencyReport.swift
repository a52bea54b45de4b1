import Foundation

/// What Certificate Transparency found on the leaf of a verdict's chain, and whether Apple's policy is met.
public struct CertificateTransparencyReport: Sendable, Hashable, Codable {
    /// Apple's verdict on the leaf's SCTs.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Enough valid SCTs from distinct logs, as Apple requires.
        case compliant
        /// CT applies and the embedded SCTs do not meet Apple's policy.
        case nonCompliant
        /// CT applies and the certificate embeds no SCT. An iPhone would still accept SCTs sent in the TLS
        /// handshake or a stapled OCSP response, which swift-nio-ssl does not expose: this cannot be decided here.
        case noEmbeddedSCTs
        /// Apple does not require CT for this chain (a user anchor, an old certificate, another policy).
        case notRequired
        /// CT would apply, but the log list is 60 days old or more, and Apple stops enforcing then.
        case listOutOfDate
    }

    /// Whether Apple's CT policy is met.
    public var status: Status
    /// SCTs from distinct logs that Apple requires for this certificate, when CT applies.
    public var requiredSCTs: Int?
    /// Distinct logs whose SCTs count.
    public var countedSCTs: Int
    /// Every embedded SCT, with its log and whether it counted.
    public var scts: [SCTReport]
    /// One sentence: the outcome and, when it fails, what to ask the CA for.
    public var explanation: String
    /// Which log list decided it, with its version and date.
    public var logList: String
    /// The same list as data: its source, version and the day it was last confirmed current.
    public var ctLogList: CTLogListReference? = nil

    /// True when an iPhone would refuse the chain for CT alone.
    public var refuses: Bool { status == .nonCompliant || status == .noEmbeddedSCTs }
}

/// One embedded SCT as the policy saw it.
public struct SCTReport: Sendable, Hashable, Codable {
    /// The log ID, base64, as log lists write it.
    public var logID: String
    /// The log's name in the list; nil when the list does not know it.
    public var log: String?
    /// The log's operator in the list; nil when the list does not know the log.
    public var `operator`: String?
    /// When the log promised to include the certificate; nil for an SCT version this package does not read.
    public var timestamp: Date?
    /// Whether the signature verifies over the precertificate entry; nil when it was not checked.
    public var verified: Bool?
    /// Whether it counts toward Apple's required number.
    public var counted: Bool
    /// Why it does not count, or a note on how it counts.
    public var reason: String?
}
