/// One entry of `NSPinnedDomains` (iOS 14, macOS 11).
///
/// Apple: when both CA and leaf identities are given, the chain must match one of each; an entry with
/// neither has nothing to match. (https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nspinneddomains)
public struct PinnedDomain: Sendable, Equatable {
    /// The domain as written in `NSPinnedDomains`.
    public var name: String
    /// The entry's key read as ATS matches it.
    public var key: ATSDomainKey
    /// `NSIncludesSubdomains`, when written.
    public var includesSubdomains: Setting<Bool>?
    /// NSPinnedCAIdentities, nil when absent.
    public var caIdentities: [PinnedIdentity]?
    /// NSPinnedLeafIdentities, nil when absent.
    public var leafIdentities: [PinnedIdentity]?
    /// Identities written without an `SPKI-SHA256-BASE64` (misspelt, or empty): reported as malformed pins, not as a
    /// domain with no pins at all.
    public var unreadIdentities = 0
    /// Where the entry is, from `NSAppTransportSecurity`.
    public var keyPath: PlistKeyPath

    /// An entry named `name` at `keyPath`, with no identity yet.
    package init(name: String, keyPath: PlistKeyPath) {
        self.name = name
        self.key = ATSDomainKey(name)
        self.keyPath = keyPath
    }

    /// Whether the pins also apply to subdomains of its name.
    public var coversSubdomains: Bool { includesSubdomains?.value ?? false }
}
