import Logging

/// Trusts any certificate. For tests against local servers only; never ship it.
///
/// Alamofire's `DisabledTrustEvaluator`, renamed so that its danger shows wherever it is used. Every evaluation
/// logs a warning and adds a note to the verdict.
public struct UnsafeDisabledTrustEvaluator: ServerTrustEvaluating {
    public let logger: Logger

    public init(logger: Logger = Logger(label: "TransportTrust.UnsafeDisabledTrustEvaluator")) {
        self.logger = logger
    }

    public func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        let host = trust.policy.host?.description ?? "a server"
        let message = "UNSAFE: trust evaluation is disabled; accepting the certificate of \(host) without any check. Use this only in tests."
        logger.warning("\(message)")
        let chain = trust.parsedCertificates ?? trust.certificates.compactMap { try? InputCertificate(der: $0) }
        return TrustVerdict(anchor: nil, chain: chain, failures: [], notes: [message])
    }
}
