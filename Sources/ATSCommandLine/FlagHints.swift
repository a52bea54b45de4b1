import TransportClient
import TransportTrust

/// The option of `ats` that changes an outcome the library reports in its own words. The library says what is wrong;
/// only the command line knows its flags, so it adds them here, once, for every command that shows the outcome.
enum FlagHints {
    /// The flag for a trust failure, shown beside it by `ats verify` and `ats fetch --verbose`.
    static func hint(for code: TrustFailureCode) -> String? {
        switch code {
        case .selfSignedLeaf, .untrustedRoot:
            return "--anchors FILE trusts a root of your own; --pin pins a key"
        case .expired, .notYetValid, .hostnameMismatch, .unknownIssuer, .weakKey, .weakSignature, .basicConstraints, .pathLength,
             .nameConstraints, .keyUsage, .extendedKeyUsage, .unhandledCriticalExtension, .unsupportedAlgorithm, .malformedCertificate,
             .revoked, .revocationUnknown, .certificateTransparency, .chainTooLong, .pathBuildingLimit, .pinMismatch, .hostNotAllowed,
             .policy, .internalError, .validityPeriodTooLong, .certificatePolicy, .distrusted:
            return nil
        }
    }

    /// The flag for a request `ats fetch` could not make.
    static func hint(for error: TransportError, verbose: Bool) -> String? {
        switch error.kind {
        case .http2NotNegotiated:
            return "drop --http2 to let the server choose HTTP/1.1"
        case .tlsFailure where error.tlsReason == nil && error.underlying != nil && !verbose:
            return "--verbose shows the TLS library's own text"
        default:
            return nil
        }
    }

    /// The flag for an error a command stops on.
    static func hint(for error: any Error) -> String? {
        if case .bundledListMissing? = error as? CTLogListError { return "--ct-log-list FILE gives a list of your own" }
        return nil
    }

    /// `text` with `hint` after it, in parentheses, when there is one.
    static func adding(_ hint: String?, to text: String) -> String {
        hint.map { "\(text) (\($0))" } ?? text
    }
}
