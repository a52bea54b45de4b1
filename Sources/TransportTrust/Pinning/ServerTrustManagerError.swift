/// Why a trust manager has no evaluator for a host.
public enum ServerTrustManagerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host is not listed and every host must be evaluated (Alamofire's `noRequiredEvaluator`).
    case noRequiredEvaluator(host: String)
    /// The host is not a valid name or address.
    case invalidHost(String, reason: String)

    public var description: String {
        switch self {
        case .noRequiredEvaluator(let host):
            return "no trust evaluator is configured for '\(host)' and every host must be evaluated, so the connection is refused before any data is sent; add the host (or a pattern such as *.\(host) or **.\(host)) to the trust manager, or set allHostsMustBeEvaluated to false"
        case .invalidHost(let host, let reason):
            return "'\(host)' is not a valid host: \(reason)"
        }
    }
}
