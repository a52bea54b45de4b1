import Foundation
import TransportTrust

/// The public-key pins a connection must match, from one NSPinnedDomains entry.
///
/// Apple: a CA identity matches any certificate authority in the chain, a leaf identity the leaf; when both
/// arrays are present, the chain must match one pin from each
/// (https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nspinneddomains).
/// Kept as plain values so a pinning evaluator can take them over.
public struct PinRequirement: Sendable, Equatable, Codable {
    /// The NSPinnedDomains entry that applies.
    public var domain: String
    /// Whether the pins also apply to subdomains of ``domain``.
    public var includesSubdomains: Bool
    /// Nil when the entry has no NSPinnedCAIdentities.
    public var caIdentities: [PinnedIdentity]?
    /// Nil when the entry has no NSPinnedLeafIdentities.
    public var leafIdentities: [PinnedIdentity]?

    /// Pins for `domain` (and its subdomains when `includesSubdomains`), CA and leaf identities as the entry lists them.
    public init(domain: String, includesSubdomains: Bool, caIdentities: [PinnedIdentity]?, leafIdentities: [PinnedIdentity]?) {
        self.domain = domain
        self.includesSubdomains = includesSubdomains
        self.caIdentities = caIdentities
        self.leafIdentities = leafIdentities
    }

    /// Every pin, CA first.
    public var allIdentities: [PinnedIdentity] { (caIdentities ?? []) + (leafIdentities ?? []) }

    /// The entry as a pinned host, so that ATS pins are checked by `PinSetEvaluator` like every other format:
    /// CA identities in the CA scope, leaf identities in the leaf scope, always enforced, never expiring.
    ///
    /// A present array must match even when none of its hashes is well formed (such a hash never matches), so a
    /// malformed or empty array becomes a scope whose only pin matches no certificate: fail closed, never unpinned.
    public var pinnedHost: PinnedHost {
        func pins(_ identities: [PinnedIdentity]?) -> [Pin] {
            guard let identities else { return [] }
            let pins = identities.map { Pin.spkiSHA256($0.isWellFormed ? Array($0.digest ?? Data()) : []) }
            return pins.isEmpty ? [.spkiSHA256([])] : pins
        }
        let pattern = HostPattern(canonicalName: domain, kind: includesSubdomains ? .subdomains : .exact)
        return PinnedHost(pattern, PinSet(caPins: pins(caIdentities), leafPins: pins(leafIdentities)))
    }
}
