import Foundation

/// A host pattern and the pin set that applies to it: one entry of a pin configuration.
public struct PinnedHost: Sendable, Hashable {
    /// The hosts the entry covers.
    public var pattern: HostPattern
    /// The pins that apply to the pattern's hosts.
    public var pinSet: PinSet
    /// The hosts of the pattern are covered but not pinned: their chain is validated only. Being more specific, the
    /// entry shadows a broader pinned one: TrustKit's `kTSKExcludeSubdomainFromParentPolicy`, an Android
    /// `<domain-config>` whose pin set is empty or unset.
    public var isExempt: Bool

    /// An entry that pins the hosts of `pattern` with `pinSet`.
    public init(_ pattern: HostPattern, _ pinSet: PinSet) {
        self.pattern = pattern
        self.pinSet = pinSet
        self.isExempt = false
    }

    /// An entry that exempts the hosts of `pattern` from pinning, however broader entries pin them.
    public static func exempt(_ pattern: HostPattern) -> PinnedHost {
        var host = PinnedHost(pattern, PinSet())
        host.isExempt = true
        return host
    }

    /// Checks the entry, as errors rather than log lines. An exempt entry has nothing to check. Every format:
    /// - every hash must decode to the right length (32 bytes for SHA-256);
    /// - an expiration date in the past is a warning that names the date;
    /// - legacy SHA-1 pins are warnings.
    ///
    /// And as `rules` ask (all of them, TrustKit's, by default):
    /// - ``PinValidationRules/pinsRequired``: the set has a pin;
    /// - ``PinValidationRules/backupPin``: an enforced set has at least two pins, so that one can be a backup;
    /// - ``PinValidationRules/noSubdomainsOnPublicSuffix``: no includeSubdomains on a single label or a public suffix.
    /// - Parameters:
    ///   - now: the time to judge expiry against.
    ///   - source: the file the entry came from, for messages.
    ///   - rules: the checks of the system the entry is for.
    public func validate(now: Date = Date(), source: String? = nil, rules: PinValidationRules = .trustKit)
        throws(PinConfigurationError) -> [PinConfigurationWarning]
    {
        var warnings: [PinConfigurationWarning] = []
        if isExempt { return warnings }
        let all = pinSet.allPins
        if all.isEmpty && rules.contains(.pinsRequired) {
            throw PinConfigurationError(.emptyPinSet, source: source, "the pin set for \(pattern) has no pins",
                fix: "Add the SPKI SHA-256 of the key you use and of a backup key; `ats pins CERT.pem` prints them")
        }
        for pin in all {
            switch pin {
            case .spkiSHA256(let h) where h.count != 32:
                throw PinConfigurationError(.wrongHashLength, source: source,
                    "a pin for \(pattern) is \(h.count) bytes long, but a SHA-256 hash is 32", fix: "Recompute it with `ats pins CERT.pem`")
            case .spkiSHA1(let h) where h.count != 20:
                throw PinConfigurationError(.wrongHashLength, source: source,
                    "a sha1 pin for \(pattern) is \(h.count) bytes long, but a SHA-1 hash is 20", fix: "Replace it with a SHA-256 pin from `ats pins CERT.pem`")
            case .spkiSHA1:
                warnings.append(PinConfigurationWarning(.legacySHA1, source: source,
                    "\(pin) for \(pattern) is a legacy SHA-1 pin; replace it with the SHA-256 pin of the same key"))
            default:
                break
            }
        }
        if rules.contains(.backupPin) && pinSet.enforcePinning && Set(all).count < 2 {
            throw PinConfigurationError(.missingBackupPin, source: source,
                "the enforced pin set for \(pattern) has \(Set(all).count) pin, so there is no backup pin (TrustKit refuses such a set); losing that key would lock every client out",
                fix: "Add a second pin for a backup key kept offline (or for the CA above), or set the pin set to report only")
        }
        if rules.contains(.backupPin) && !pinSet.enforcePinning && Set(all).count < 2 {
            warnings.append(PinConfigurationWarning(.noBackupPin, source: source, "the report-only pin set for \(pattern) has no backup pin"))
        }
        if rules.contains(.noSubdomainsOnPublicSuffix) && pattern.coversSubdomains && PublicSuffixList.isPublicSuffix(pattern.name) {
            let what = pattern.name.contains(".") ? "the public suffix '\(pattern.name)'" : "the single label '\(pattern.name)'"
            throw PinConfigurationError(.subdomainsOnPublicSuffix, source: source,
                "\(pattern) sets includeSubdomains on \(what), which would pin every site registered under it (TrustKit refuses it)",
                fix: "Pin your own domain (for example example.\(pattern.name)) with includeSubdomains instead")
        }
        if let expiry = pinSet.expirationDate, expiry < now {
            warnings.append(PinConfigurationWarning(.expired, source: source,
                "the pin set for \(pattern) expired on \(RFC3339.day(expiry)) and no longer enforces anything; renew the pins and move the date forward"))
        }
        return warnings
    }
}
