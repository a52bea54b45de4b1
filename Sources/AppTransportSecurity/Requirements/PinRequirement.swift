/// The public-key pins a connection must match, from one NSPinnedDomains entry.
///
/// Apple: a CA identity matches any certificate authority in the chain, a leaf identity the leaf; when both
/// arrays are present, the chain must match one pin from each
/// (https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nspinneddomains).
/// Kept as plain values so a pinning evaluator can take them over.
public struct PinRequirement: Sendable, Equatable, Codable {
    /// The NSPinnedDomains entry that applies.
    public var domain: String
    public var includesSubdomains: Bool
    /// Nil when the entry has no NSPinnedCAIdentities.
    public var caIdentities: [PinnedIdentity]?
    /// Nil when the entry has no NSPinnedLeafIdentities.
    public var leafIdentities: [PinnedIdentity]?

    public init(domain: String, includesSubdomains: Bool, caIdentities: [PinnedIdentity]?, leafIdentities: [PinnedIdentity]?) {
        self.domain = domain
        self.includesSubdomains = includesSubdomains
        self.caIdentities = caIdentities
        self.leafIdentities = leafIdentities
    }

    /// Every pin, CA first.
    public var allIdentities: [PinnedIdentity] { (caIdentities ?? []) + (leafIdentities ?? []) }

    /// Whether a chain whose SPKI SHA-256 digests (base64) are `leaf` and `authorities` satisfies the pins.
    /// A pin that is not valid base64 or not 32 bytes never matches.
    public func isSatisfied(leafSPKISHA256 leaf: String, authoritySPKISHA256 authorities: [String]) -> Bool {
        func matches(_ pins: [PinnedIdentity], _ candidates: [String]) -> Bool {
            pins.contains { pin in pin.isWellFormed && candidates.contains(pin.base64) }
        }
        if caIdentities == nil && leafIdentities == nil { return false }
        if let ca = caIdentities, !matches(ca, authorities) { return false }
        if let l = leafIdentities, !matches(l, [leaf]) { return false }
        return true
    }
}
