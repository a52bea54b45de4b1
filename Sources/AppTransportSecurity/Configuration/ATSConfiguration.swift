/// An app's `NSAppTransportSecurity` dictionary, every key typed, with the problems found reading it.
///
/// Absent keys are nil; ``RequirementsResolver`` applies the documented defaults. Values of the wrong type
/// are never coerced: they stay nil and an ``issues`` entry says so.
public struct ATSConfiguration: Sendable, Equatable {
    /// `NSAllowsArbitraryLoads`, when written.
    public var allowsArbitraryLoads: Setting<Bool>?
    /// `NSAllowsArbitraryLoadsForMedia`, when written.
    public var allowsArbitraryLoadsForMedia: Setting<Bool>?
    /// `NSAllowsArbitraryLoadsInWebContent`, when written.
    public var allowsArbitraryLoadsInWebContent: Setting<Bool>?
    /// `NSAllowsLocalNetworking`, when written.
    public var allowsLocalNetworking: Setting<Bool>?
    /// `NSRequiresNIAPTLSPackageVersion`, when written.
    public var requiresNIAPTLSPackageVersion: Setting<String>?
    /// Entries sorted by name.
    public var exceptionDomains: [ExceptionDomain]
    /// Entries sorted by name.
    public var pinnedDomains: [PinnedDomain]
    /// Top-level keys present, whatever their type: Apple's precedence rule looks at presence.
    public var presentKeys: Set<ATSKey>
    /// Keys ignored because of their type, value, spelling or place, each with where it is.
    public var issues: [ConfigurationIssue]

    /// An empty configuration: ATS with all defaults.
    public init() {
        exceptionDomains = []
        pinnedDomains = []
        presentKeys = []
        issues = []
    }

    /// Reads the `NSAppTransportSecurity` dictionary's contents.
    public init(dictionary: [String: PlistValue]) {
        var parser = ConfigurationParser()
        self = parser.parse(dictionary)
    }

    /// The exception entry with this exact name.
    public func exceptionDomain(named name: String) -> ExceptionDomain? { exceptionDomains.first { $0.name == name } }

    /// The pinned entry with this exact name.
    public func pinnedDomain(named name: String) -> PinnedDomain? { pinnedDomains.first { $0.name == name } }
}
