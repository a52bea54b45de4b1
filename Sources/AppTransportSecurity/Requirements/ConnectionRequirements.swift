/// What ATS requires of one connection, each requirement with the key and rule that decided it.
///
/// Produced by ``RequirementsResolver``; consumed by TLS clients (minimum version, cipher suites),
/// trust evaluators (`CertificateRequirements.trustPolicy(host:)`) and pinning evaluators (``pins``).
public struct ConnectionRequirements: Sendable, Equatable {
    /// The URL as given.
    public var url: String
    /// The URL parsed once: scheme, host and port.
    public var target: ConnectionTarget
    /// The release whose ATS rules applied.
    public var profile: PlatformProfile
    /// How the load is made (a plain request, a web view, media), which decides the keys that apply.
    public var context: LoadContext
    /// Whether ATS's extended checks apply at all (false when arbitrary loads or local networking exempt the host).
    public var atsEnforced: Decided<Bool>
    /// The NSExceptionDomains entry that governs the host, if any.
    public var exceptionDomain: String?
    /// Whether a plain `http://` load is allowed.
    public var allowsInsecureHTTP: Decided<Bool>
    /// The lowest TLS version allowed: TLS 1.2 unless an exception lowers it.
    public var minimumTLSVersion: Decided<TLSVersion>
    /// Whether only ECDHE suites are allowed: true unless an exception turns it off.
    public var requiresForwardSecrecy: Decided<Bool>
    /// The suites the connection may negotiate, by IANA name. When ``cipherSuitesRestricted`` is false ATS
    /// imposes no list and these are the suites a system client may offer.
    public var cipherSuites: Decided<[CipherSuite]>
    /// Whether ATS restricts the suites (its extended checks apply to this host).
    public var cipherSuitesRestricted: Bool
    /// What the server's certificate must meet: validation, key strength, SHA-2 signatures, CT.
    public var certificate: Decided<CertificateRequirements>
    /// The pins to enforce for `https` connections, or nil.
    public var pins: Decided<PinRequirement?>
    /// Remarks about choices made where Apple's documents are unclear.
    public var notes: [String]

    /// Whether the URL as given (its scheme) can be loaded at all: an `http` URL needs ``allowsInsecureHTTP``.
    public var schemeAllowed: Bool { target.scheme == "https" || allowsInsecureHTTP.value }
}
