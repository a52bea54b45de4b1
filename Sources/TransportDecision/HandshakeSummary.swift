import AppTransportSecurity

/// What the handshake negotiated, as observed by the client.
public struct HandshakeSummary: Sendable, Equatable {
    /// The negotiated version, read from the ServerHello.
    public var tlsVersion: TLSVersion?
    /// The negotiated cipher suite (IANA name, or `0x…` when unknown), read from the ServerHello.
    public var cipherSuite: String?
    /// The cipher suite's code point.
    public var cipherSuiteCode: UInt16?

    /// What a handshake negotiated; nil for what could not be read.
    public init(tlsVersion: TLSVersion?, cipherSuite: String?, cipherSuiteCode: UInt16?) {
        self.tlsVersion = tlsVersion
        self.cipherSuite = cipherSuite
        self.cipherSuiteCode = cipherSuiteCode
    }

    /// Whether the ServerHello was read: without it the version and suite rules cannot be checked.
    package var isComplete: Bool { tlsVersion != nil && cipherSuite != nil }
}
