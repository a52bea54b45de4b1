import AppTransportSecurity
import NIOSSL

/// Turns connection requirements into a swift-nio-ssl configuration.
///
/// Three traps in swift-nio-ssl are handled here: its default minimum is TLS 1.0 (we always set one); a cipher
/// string that matches nothing kills the process on a precondition (we hand it only suites BoringSSL is known
/// to have); and its own hostname check would run beside ours (it is off: trust is decided by our evaluators).
enum TLSSettings {
    /// The TLS 1.0–1.2 suites BoringSSL in swift-nio-ssl 2.37.6 implements (its `kCiphers` table, PSK left
    /// out). TLS 1.3 suites are not configurable and always on.
    static let boringSSLSuites: Set<UInt16> = [
        0x000A, 0x002F, 0x0035, 0x009C, 0x009D,
        0xC009, 0xC00A, 0xC013, 0xC014, 0xC023, 0xC027,
        0xC02B, 0xC02C, 0xC02F, 0xC030, 0xCCA8, 0xCCA9,
    ]

    static func nioVersion(_ version: ATSTLSVersion) -> NIOSSL.TLSVersion {
        switch version {
        case .tls10: return .tlsv1
        case .tls11: return .tlsv11
        case .tls12: return .tlsv12
        case .tls13: return .tlsv13
        }
    }

    /// The suites to offer for TLS 1.2 and below: the requirements' list, kept to what BoringSSL has.
    static func offeredSuites(_ requirements: ConnectionRequirements) -> [CipherSuite] {
        requirements.cipherSuites.value.filter { !$0.isTLS13 && boringSSLSuites.contains($0.code) }
    }

    /// The configuration for one connection.
    /// - Throws: a message when no suite can be offered at all.
    static func configuration(for requirements: ConnectionRequirements, identity: ClientIdentity?) throws(TLSSettingsError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        var minimum = requirements.minimumTLSVersion.value
        let suites = offeredSuites(requirements)
        let allowsTLS13 = requirements.cipherSuites.value.contains { $0.isTLS13 }
        if suites.isEmpty && minimum < .tls13 {
            // Nothing below TLS 1.3 can be offered: only TLS 1.3 remains, if it is allowed at all.
            guard allowsTLS13 else {
                throw TLSSettingsError(message: "none of the allowed cipher suites (\(requirements.cipherSuites.value.map(\.name).joined(separator: ", "))) is implemented by this TLS library")
            }
            minimum = .tls13
        }
        tls.minimumTLSVersion = nioVersion(minimum)
        tls.maximumTLSVersion = allowsTLS13 ? .tlsv13 : .tlsv12
        if !allowsTLS13 && minimum == .tls13 {
            throw TLSSettingsError(message: "the minimum version is TLS 1.3 but no TLS 1.3 suite is allowed")
        }
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

    /// A key for sharing one `NIOSSLContext` between connections with the same settings.
    static func cacheKey(for requirements: ConnectionRequirements, identity: ClientIdentity?) -> String {
        "\(requirements.minimumTLSVersion.value)|\(requirements.cipherSuites.value.map { String($0.code) }.joined(separator: ","))|\(identity?.cacheKey ?? "-")"
    }
}

struct TLSSettingsError: Error {
    var message: String
}
