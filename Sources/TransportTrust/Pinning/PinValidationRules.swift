/// Which configuration checks ``PinConfiguration/validate(now:source:)`` applies beyond those every format shares.
///
/// Each system has its own: TrustKit refuses an enforced set without a backup pin and includeSubdomains on a
/// public suffix, ATS requires at least one identity per pinned domain, and OkHttp and Android require neither.
/// A configuration read from a file gets the rules of its format (``PinConfigurationFormat/rules``), so a valid
/// Android or OkHttp file is never refused for a rule its system does not have. Every format has its hash lengths
/// checked, may not name the same pattern twice, and gets a warning naming the date when a set has expired.
public struct PinValidationRules: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A pin set must hold at least one pin (TrustKit; ATS: "you must include one or more" identities).
    public static let pinsRequired = PinValidationRules(rawValue: 1 << 0)
    /// An enforced set needs two distinct pins, one of them a backup; a report-only set with one pin gets a
    /// warning (TrustKit).
    public static let backupPin = PinValidationRules(rawValue: 1 << 1)
    /// includeSubdomains may not be set on a single label or a public suffix (TrustKit).
    public static let noSubdomainsOnPublicSuffix = PinValidationRules(rawValue: 1 << 2)

    /// TrustKit's checks: the default for configurations made in code.
    public static let trustKit: PinValidationRules = [.pinsRequired, .backupPin, .noSubdomainsOnPublicSuffix]
    /// ATS `NSPinnedDomains`: each domain names at least one CA or leaf identity.
    public static let ats: PinValidationRules = [.pinsRequired]
    /// OkHttp `CertificatePinner`: no checks beyond the shared ones.
    public static let okhttp: PinValidationRules = []
    /// Android Network Security Config: no checks beyond the shared ones (a backup pin is advised, not required).
    public static let android: PinValidationRules = []
}
