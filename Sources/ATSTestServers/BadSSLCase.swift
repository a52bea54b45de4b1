/// The known cases `ats serve` runs, each on its own port of 127.0.0.1, with what a diagnosis must find.
public enum BadSSLCase: String, CaseIterable, Sendable, Codable {
    /// Valid chain, TLS 1.2–1.3, ECDHE.
    case good
    /// Leaf expired 30 days ago.
    case expired
    /// Leaf valid from 30 days ahead.
    case notYetValid = "not-yet-valid"
    /// Leaf names wrong.host.example only.
    case wrongHost = "wrong-host"
    /// Self-signed leaf.
    case selfSigned = "self-signed"
    /// Chain to a root not in the CA file.
    case untrustedRoot = "untrusted-root"
    /// Leaf sent without its intermediate.
    case incompleteChain = "incomplete-chain"
    /// TLS 1.0 only.
    case tls10Only = "tls1.0-only"
    /// TLS 1.1 only.
    case tls11Only = "tls1.1-only"
    /// TLS_RSA_WITH_AES_128_GCM_SHA256 only (no forward secrecy).
    case staticRSA = "static-rsa"
    /// Leaf signed with SHA-1 (RSA).
    case sha1Signature = "sha1-signature"
    /// RSA-1024 leaf key.
    case rsa1024 = "rsa-1024"
    /// Requires a client certificate.
    case clientCertificateRequired = "client-cert-required"
    /// HTTP Basic auth (user:passwd) on every page.
    case basicAuth = "basic-auth"
    /// 302 to a plain http:// URL.
    case redirectToHTTP = "redirect-to-http"
    /// Chains to the local root as a public root (as through `SSL_CERT_FILE`), under the log list `ats serve` writes.
    case ctTooFewSCTs = "ct-too-few-scts"
    /// 400-day leaf with 3 valid SCTs; Apple allows 398 days (public root, local CT log list).
    case ct400Days = "ct-400-days"

    /// The cases whose root must count as a public root, with the local CT log list: Apple requires CT and the
    /// 398-day limit only there.
    public var needsPublicRoot: Bool { self == .ctTooFewSCTs || self == .ct400Days }

    /// What the server does, in a few words.
    public var summary: String {
        switch self {
        case .good: return "valid chain, TLS 1.2–1.3, ECDHE"
        case .expired: return "leaf expired 30 days ago"
        case .notYetValid: return "leaf valid from 30 days ahead"
        case .wrongHost: return "leaf names wrong.host.example only"
        case .selfSigned: return "self-signed leaf"
        case .untrustedRoot: return "chain to a root not in the CA file"
        case .incompleteChain: return "leaf sent without its intermediate"
        case .tls10Only: return "TLS 1.0 only"
        case .tls11Only: return "TLS 1.1 only"
        case .staticRSA: return "TLS_RSA_WITH_AES_128_GCM_SHA256 only (no forward secrecy)"
        case .sha1Signature: return "leaf signed with SHA-1 (RSA)"
        case .rsa1024: return "RSA-1024 leaf key"
        case .clientCertificateRequired: return "requires a client certificate"
        case .basicAuth: return "HTTP Basic auth (user:passwd) on every page"
        case .redirectToHTTP: return "302 to a plain http:// URL"
        case .ctTooFewSCTs: return "90-day leaf with 1 embedded SCT; Apple requires 2 (public root, local CT log list)"
        case .ct400Days: return "400-day leaf with 3 valid SCTs; Apple allows 398 days (public root, local CT log list)"
        }
    }

    /// The expected result of each of nscurl's 16 tests, in `ATSTestCase.nscurl` order: `P` pass, `F` fail.
    public var expectedMatrix: String {
        let allPass = String(repeating: "P", count: 16)
        let allFail = String(repeating: "F", count: 16)
        switch self {
        case .good, .basicAuth: return allPass
        case .expired, .notYetValid, .wrongHost, .selfSigned, .untrustedRoot, .incompleteChain, .sha1Signature, .rsa1024,
             .clientCertificateRequired, .ctTooFewSCTs, .ct400Days:
            return allFail
        // default, arbitrary loads, TLS 1.3…1.0, PFS, PFS + HTTP, TLS 1.3…1.0 without PFS, the same with HTTP.
        case .tls10Only: return "FP" + "FFFP" + "F" + "F" + "FFFP" + "FFFP"
        case .tls11Only: return "FP" + "FFPP" + "F" + "F" + "FFPP" + "FFPP"
        case .staticRSA: return "FP" + "FFFF" + "P" + "P" + "FPPP" + "FPPP"
        case .redirectToHTTP: return "FP" + "FFFF" + "F" + "P" + "FFFF" + "PPPP"
        }
    }

    /// The id of the test whose dictionary is recommended, when an exception is.
    public var expectedConfiguration: String? {
        switch self {
        case .tls10Only: return "tls1.0"
        case .tls11Only: return "tls1.1"
        case .staticRSA: return "pfs"
        case .redirectToHTTP: return "http"
        case .good, .basicAuth: return "default"
        default: return nil
        }
    }

    /// What `ats fetch` with default ATS and the local CA must report: an HTTP status, or the refusal kind.
    public var expectedFetch: String {
        switch self {
        case .good: return "200"
        case .basicAuth: return "401"
        case .expired, .notYetValid, .wrongHost, .selfSigned, .untrustedRoot, .incompleteChain, .sha1Signature, .rsa1024,
             .ctTooFewSCTs, .ct400Days:
            return "serverTrustRefused"
        case .tls10Only, .tls11Only, .staticRSA: return "atsRefused"
        case .clientCertificateRequired: return "clientCertificateRejected"
        case .redirectToHTTP: return "redirectRefused"
        }
    }
}
