import Foundation

/// Trusts any certificate. For tests against local servers only; never ship it.
///
/// Alamofire's `DisabledTrustEvaluator`, renamed so that its danger shows wherever it is used. Every evaluation
/// emits a warning and adds a note to the verdict.
public struct UnsafeDisabledTrustEvaluator: ServerTrustEvaluating {
    /// Where each warning goes: standard error by default; a logger's `warning` in an app that has one.
    public let warn: @Sendable (String) -> Void

    /// Trusts every chain, and says so through `warn` each time.
    ///
    ///  - Parameter warn: where the warning goes; standard error by default.
    public init(warn: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(("warning: " + $0 + "\n").utf8)) }) {
        self.warn = warn
    }

    public func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        let host = trust.policy.host?.description ?? "a server"
        let message = "UNSAFE: trust evaluation is disabled; accepting the certificate of \(host) without any check. Use this only in tests."
        warn(message)
        let chain = trust.inputCertificates
        return TrustVerdict(anchor: nil, chain: chain, failures: [], notes: [message])
    }
}
