import AppTransportSecurity

/// What the TLS handshake may offer, derived from the connection requirements: the version range and the suites.
///
/// Two facts about the TLS library are decided here rather than left to it: swift-nio-ssl's BoringSSL implements
/// only some TLS 1.0–1.2 suites (offering one it lacks is a precondition failure in swift-nio-ssl), and TLS 1.3
/// suites are not configurable there, so they are on whenever TLS 1.3 is.
public struct TLSParameters: Sendable, Hashable {
    /// The lowest version offered.
    public var minimumVersion: TLSVersion
    /// The highest version offered: TLS 1.3 when any TLS 1.3 suite is allowed, else TLS 1.2.
    public var maximumVersion: TLSVersion
    /// The TLS 1.0–1.2 suites to offer, in the requirements' order. Empty when only TLS 1.3 remains.
    public var suites: [CipherSuite]

    /// The TLS 1.0–1.2 suites BoringSSL in swift-nio-ssl 2.37.6 implements (its `kCiphers` table, PSK left out).
    package static let implementedSuites: Set<UInt16> = [
        0x000A, 0x002F, 0x0035, 0x009C, 0x009D,
        0xC009, 0xC00A, 0xC013, 0xC014, 0xC023, 0xC027,
        0xC02B, 0xC02C, 0xC02F, 0xC030, 0xCCA8, 0xCCA9,
    ]

    /// Whether a ClientHello from this library can offer `suite`: TLS 1.3 suites always, older ones when BoringSSL
    /// implements them.
    package static func canOffer(_ suite: CipherSuite) -> Bool {
        suite.isTLS13 || implementedSuites.contains(suite.code)
    }

    /// The parameters `requirements` allow.
    /// - Throws: ``ConnectionPlanError`` when nothing the requirements allow can be offered.
    public init(_ requirements: ConnectionRequirements) throws(ConnectionPlanError) {
        let allowed = requirements.cipherSuites.value
        let suites = allowed.filter { !$0.isTLS13 && Self.implementedSuites.contains($0.code) }
        let allowsTLS13 = allowed.contains { $0.isTLS13 }
        var minimum = requirements.minimumTLSVersion.value
        if suites.isEmpty && minimum < .tls13 {
            // Nothing below TLS 1.3 can be offered: only TLS 1.3 remains, if it is allowed at all.
            guard allowsTLS13 else {
                throw ConnectionPlanError("none of the allowed cipher suites (\(allowed.map(\.name).joined(separator: ", "))) is implemented by this TLS library")
            }
            minimum = .tls13
        }
        if !allowsTLS13 && minimum == .tls13 {
            throw ConnectionPlanError("the minimum version is TLS 1.3 but no TLS 1.3 suite is allowed")
        }
        self.minimumVersion = minimum
        self.maximumVersion = allowsTLS13 ? .tls13 : .tls12
        self.suites = suites
    }
}

/// Why no connection can be planned for the requirements given.
public struct ConnectionPlanError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
