/// One entry of `NSExceptionDomains`, with each key as written (nil when absent).
///
/// Where both a current key and a legacy one (`NSTemporaryException…`, `NSThirdPartyException…`) are given,
/// the current key wins, then the temporary one, then the third-party one. Apple does not document the
/// order; see docs/ATS.md.
public struct ExceptionDomain: Sendable, Equatable {
    /// The dictionary key, as written.
    public var name: String
    /// The entry's key read as ATS matches it, with any problem that keeps it from matching.
    public var key: ATSDomainKey
    /// `NSIncludesSubdomains`, when written.
    public var includesSubdomains: Setting<Bool>?
    /// `NSExceptionAllowsInsecureHTTPLoads`, or the legacy key that stands for it, when written.
    public var allowsInsecureHTTPLoads: Setting<Bool>?
    /// `NSExceptionMinimumTLSVersion`, or the legacy key that stands for it, when written.
    public var minimumTLSVersion: Setting<TLSVersion>?
    /// `NSExceptionRequiresForwardSecrecy`, or the legacy key that stands for it, when written.
    public var requiresForwardSecrecy: Setting<Bool>?
    /// Obsolete: certificate transparency is always required now.
    public var requiresCertificateTransparency: Setting<Bool>?
    /// `NSExceptionRequiresNIAPTLSPackageVersion`, when written.
    public var requiresNIAPTLSPackageVersion: Setting<String>?
    /// Legacy keys present in the entry, in the order written.
    public var legacyKeys: [ATSKey]
    /// The path of the entry from the `NSAppTransportSecurity` dictionary.
    public var keyPath: PlistKeyPath
    /// Legacy keys that the current key overrides here but that say something riskier: a device that read them first
    /// would be looser. The audit reports them (Apple does not document the order).
    package var shadowedRisks: [ShadowedRisk] = []

    /// A riskier legacy setting, the rule its value would trip, and the key that overrides it here.
    package struct ShadowedRisk: Sendable, Equatable {
        package var legacy: PlistKeyPath
        package var value: String
        package var winner: String
        package var rule: AuditRule
    }

    /// An entry named `name` at `keyPath`, with no key set yet.
    package init(name: String, keyPath: PlistKeyPath) {
        self.name = name
        self.key = ATSDomainKey(name)
        self.legacyKeys = []
        self.keyPath = keyPath
    }

    /// NSIncludesSubdomains, default NO.
    public var coversSubdomains: Bool { includesSubdomains?.value ?? false }
}
