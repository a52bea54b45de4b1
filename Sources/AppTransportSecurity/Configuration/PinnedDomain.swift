/// One entry of `NSPinnedDomains` (iOS 14, macOS 11).
///
/// Apple: when both CA and leaf identities are given, the chain must match one of each; an entry with
/// neither has nothing to match. (https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nspinneddomains)
public struct PinnedDomain: Sendable, Equatable {
    public var name: String
    public var key: ATSDomainKey
    public var includesSubdomains: Setting<Bool>?
    /// NSPinnedCAIdentities, nil when absent.
    public var caIdentities: [PinnedIdentity]?
    /// NSPinnedLeafIdentities, nil when absent.
    public var leafIdentities: [PinnedIdentity]?
    /// Identities written without an `SPKI-SHA256-BASE64` (misspelt, or empty): reported as malformed pins, not as a
    /// domain with no pins at all.
    public var unreadIdentities = 0
    public var keyPath: PlistKeyPath

    public init(name: String, keyPath: PlistKeyPath) {
        self.name = name
        self.key = ATSDomainKey(name)
        self.keyPath = keyPath
    }

    public var coversSubdomains: Bool { includesSubdomains?.value ?? false }
}
