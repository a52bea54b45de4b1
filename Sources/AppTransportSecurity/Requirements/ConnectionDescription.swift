/// A connection as observed: what was negotiated and what trust evaluation concluded.
public struct ConnectionDescription: Sendable, Equatable {
    /// The outcome of server trust evaluation.
    public enum Trust: Sendable, Equatable {
        /// Not evaluated (or unknown): certificate rules are not checked.
        case notEvaluated
        /// The chain is trusted. `keyMeetsATSStrength` is false for an RSA key under 2048 bits or EC under 256.
        case trusted(keyMeetsATSStrength: Bool)
        /// The chain is not trusted, for the reason given.
        case untrusted(reason: String)
    }

    /// `http` or `https`.
    public var scheme: String
    /// The negotiated version (nil when unknown or for `http`).
    public var tlsVersion: TLSVersion?
    /// The negotiated suite's IANA name or `0x` code (nil when unknown).
    public var cipherSuite: String?
    /// Whether the chain was evaluated, and the outcome.
    public var trust: Trust
    /// Whether the chain matched the pins, when pins were checked.
    public var pinsMatched: Bool?

    /// A connection as observed; what is not known stays nil.
    public init(scheme: String, tlsVersion: TLSVersion? = nil, cipherSuite: String? = nil, trust: Trust = .notEvaluated, pinsMatched: Bool? = nil) {
        self.scheme = scheme.lowercased()
        self.tlsVersion = tlsVersion
        self.cipherSuite = cipherSuite
        self.trust = trust
        self.pinsMatched = pinsMatched
    }
}
