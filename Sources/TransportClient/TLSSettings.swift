import AppTransportSecurity
import NIOSSL
import TransportDecision

/// Turns a plan's ``TLSParameters`` into a swift-nio-ssl configuration.
///
/// Three traps in swift-nio-ssl are handled here: its default minimum is TLS 1.0 (we always set one); a cipher
/// string that matches nothing kills the process on a precondition (the parameters hold only suites BoringSSL
/// has); and its own hostname check would run beside ours (it is off: trust is decided by the plan).
enum TLSSettings {
    static func nioVersion(_ version: ATSTLSVersion) -> NIOSSL.TLSVersion {
        switch version {
        case .tls10: return .tlsv1
        case .tls11: return .tlsv11
        case .tls12: return .tlsv12
        case .tls13: return .tlsv13
        }
    }

    /// The configuration for connections with a plan's `parameters`.
    static func configuration(for parameters: TLSParameters, identity: ClientIdentity?) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = nioVersion(parameters.minimumVersion)
        tls.maximumTLSVersion = nioVersion(parameters.maximumVersion)
        let suites = parameters.suites
        // BoringSSL accepts IANA names in cipher strings. With no TLS 1.2 suite (TLS 1.3 only), give it one it
        // has so that the string matches something; the version range keeps it from being negotiated.
        let names = suites.isEmpty ? ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"] : suites.map(\.name)
        tls.cipherSuites = names.joined(separator: ":")
        // Never `.none`: swift-nio-ssl does not call the verification callback then. The callback replaces
        // BoringSSL's chain check, and the host check is ours alone.
        tls.certificateVerification = .noHostnameVerification
        // An empty store: the callback decides, so BoringSSL needs no roots. The default would parse the whole system
        // bundle into every new context on Linux, and on Darwin add a SecTrust check beside ours.
        tls.trustRoots = .certificates([])
        tls.renegotiationSupport = .none
        // Abandoned connections (timeouts, refusals) should not linger waiting for the peer's close_notify.
        tls.shutdownTimeout = .seconds(1)
        if let identity {
            tls.certificateChain = identity.certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(identity.privateKey)
        }
        return tls
    }

    /// The part of the key for sharing one `NIOSSLContext` that requirements decide, which a target works out once.
    static func requirementsKey(for requirements: ConnectionRequirements) -> String {
        "\(requirements.minimumTLSVersion.value)|\(requirements.cipherSuites.value.map { String($0.code) }.joined(separator: ","))"
    }

    static func cacheKey(requirementsKey: String, identity: ClientIdentity?) -> String {
        requirementsKey + "|" + (identity?.cacheKey ?? "-")
    }
}
