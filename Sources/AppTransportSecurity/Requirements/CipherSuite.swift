/// A TLS cipher suite by its IANA name and code point.
public struct CipherSuite: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The IANA registry name, e.g. `TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`.
    public var name: String
    /// The two-byte code point sent in the handshake.
    public var code: UInt16

    /// A suite with its IANA name and code point.
    public init(name: String, code: UInt16) {
        self.name = name
        self.code = code
    }

    public var description: String { name }

    /// Whether the key exchange is ephemeral (ECDHE, or any TLS 1.3 suite).
    public var hasForwardSecrecy: Bool { name.hasPrefix("TLS_ECDHE_") || name.hasPrefix("TLS_DHE_") || isTLS13 }
    /// A TLS 1.3 suite (`TLS_AES_…`, `TLS_CHACHA20_…`): negotiated only with TLS 1.3.
    public var isTLS13: Bool { code >> 8 == 0x13 }
    /// An RC4 suite: Apple's TLS client has offered none since iOS 10 and macOS 10.12, with or without ATS.
    package var isRC4: Bool { name.contains("_RC4_") }

    /// The oldest TLS version that can negotiate the suite: 1.3 for the TLS 1.3 suites; 1.2 for AEAD suites
    /// (AES-GCM, RFC 5288 and 5289; ChaCha20-Poly1305, RFC 7905) and for HMAC-SHA256/384 suites (RFC 5246,
    /// 5289), which earlier versions do not define; 1.0 for the rest.
    public var minimumTLSVersion: TLSVersion {
        if isTLS13 { return .tls13 }
        if name.contains("_GCM_") || name.contains("_CHACHA20_POLY1305_") || name.hasSuffix("_SHA256") || name.hasSuffix("_SHA384") {
            return .tls12
        }
        return .tls10
    }

    /// ATS's forward-secrecy suites. First the eleven Apple lists, in its order: "The negotiated TLS connection
    /// cipher suite must support perfect forward secrecy (PFS) through Elliptic Curve Diffie-Hellman Ephemeral
    /// (ECDHE) key exchange, and must be one of the following" (Preventing Insecure Network Connections,
    /// https://developer.apple.com/documentation/security/preventing-insecure-network-connections).
    ///
    /// Then three the page does not list but Apple's implementation accepts: the ATS group of the Security
    /// framework's open source (`tls_ciphersuite_group_ats` = `CiphersuitesTLS13` + `CiphersuitesPFS`,
    /// protocol/SecProtocolInternal.h) has TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA and both ECDHE ChaCha20-Poly1305
    /// suites in every version. Where the page and the code differ, an iPhone does what the code does.
    public static let atsForwardSecrecy: [CipherSuite] = [
        CipherSuite(name: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", code: 0xC02C),
        CipherSuite(name: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", code: 0xC02B),
        CipherSuite(name: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384", code: 0xC024),
        CipherSuite(name: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", code: 0xC00A),
        CipherSuite(name: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", code: 0xC023),
        CipherSuite(name: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", code: 0xC009),
        CipherSuite(name: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", code: 0xC030),
        CipherSuite(name: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", code: 0xC02F),
        CipherSuite(name: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384", code: 0xC028),
        CipherSuite(name: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", code: 0xC027),
        CipherSuite(name: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", code: 0xC013),
        CipherSuite(name: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", code: 0xC014),
        CipherSuite(name: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", code: 0xCCA9),
        CipherSuite(name: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", code: 0xCCA8),
    ]

    /// The RSA key-exchange suites that NSExceptionRequiresForwardSecrecy = NO adds (archived Information
    /// Property List Key Reference, NSExceptionRequiresForwardSecrecy).
    public static let atsRSAKeyExchange: [CipherSuite] = [
        CipherSuite(name: "TLS_RSA_WITH_AES_256_GCM_SHA384", code: 0x009D),
        CipherSuite(name: "TLS_RSA_WITH_AES_128_GCM_SHA256", code: 0x009C),
        CipherSuite(name: "TLS_RSA_WITH_AES_256_CBC_SHA256", code: 0x003D),
        CipherSuite(name: "TLS_RSA_WITH_AES_256_CBC_SHA", code: 0x0035),
        CipherSuite(name: "TLS_RSA_WITH_AES_128_CBC_SHA256", code: 0x003C),
        CipherSuite(name: "TLS_RSA_WITH_AES_128_CBC_SHA", code: 0x002F),
    ]

    /// The TLS 1.3 suites (RFC 8446), all forward-secret; ATS lists none because TLS 1.3 has no others.
    public static let tls13: [CipherSuite] = [
        CipherSuite(name: "TLS_AES_128_GCM_SHA256", code: 0x1301),
        CipherSuite(name: "TLS_AES_256_GCM_SHA384", code: 0x1302),
        CipherSuite(name: "TLS_CHACHA20_POLY1305_SHA256", code: 0x1303),
    ]

    /// Suites outside ATS's lists that servers still negotiate, so a name can be recognised and refused.
    public static let others: [CipherSuite] = [
        CipherSuite(name: "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", code: 0xC012),
        CipherSuite(name: "TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA", code: 0xC008),
        CipherSuite(name: "TLS_RSA_WITH_3DES_EDE_CBC_SHA", code: 0x000A),
        CipherSuite(name: "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", code: 0x009E),
        CipherSuite(name: "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", code: 0x009F),
        CipherSuite(name: "TLS_RSA_WITH_RC4_128_SHA", code: 0x0005),
        CipherSuite(name: "TLS_RSA_WITH_RC4_128_MD5", code: 0x0004),
    ]

    /// Every suite this module can name.
    public static let known: [CipherSuite] = atsForwardSecrecy + atsRSAKeyExchange + tls13 + others

    /// The known suites whose names are closest to `text` (a misspelt name), nearest first: at most `limit`,
    /// each within a third of its name's length in edits (optimal string alignment, ignoring case).
    public static func closest(to text: String, limit: Int = 3) -> [CipherSuite] {
        // No suite name is near one this long, and the distance costs its length times each name's.
        guard text.count <= 64 else { return [] }
        let t = text.uppercased()
        let typed = Array((t.hasPrefix("TLS_") ? t : "TLS_" + t).unicodeScalars)
        let scored = known.map { ($0, KeySuggester.distance(typed, Array($0.name.unicodeScalars))) }
        return scored.filter { $0.1 <= $0.0.name.count / 3 }.sorted { $0.1 < $1.1 }.prefix(limit).map(\.0)
    }

    /// Looks up an IANA name (case-insensitive; the `TLS_` prefix may be left out) or a hex code (`0xC02F`).
    public init?(lookup text: String) {
        let t = text.uppercased()
        if t.hasPrefix("0X"), let code = UInt16(t.dropFirst(2), radix: 16) {
            self = CipherSuite.known.first { $0.code == code } ?? CipherSuite(name: "0x" + String(code, radix: 16, uppercase: true), code: code)
            return
        }
        let name = t.hasPrefix("TLS_") ? t : "TLS_" + t
        guard let found = CipherSuite.known.first(where: { $0.name == name }) else { return nil }
        self = found
    }
}
