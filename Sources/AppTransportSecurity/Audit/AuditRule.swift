/// The audit's rules. Ids are stable: tools may suppress or track findings by them.
public enum AuditRule: String, Sendable, Hashable, CaseIterable, Codable {
    /// ATS100: NSAllowsArbitraryLoads disables ATS for every domain not listed in NSExceptionDomains.
    case arbitraryLoads = "ATS100"
    /// ATS101: NSAllowsArbitraryLoadsForMedia disables ATS for AVFoundation media loads.
    case arbitraryLoadsForMedia = "ATS101"
    /// ATS102: NSAllowsArbitraryLoadsInWebContent disables ATS for web-view content.
    case arbitraryLoadsInWebContent = "ATS102"
    /// ATS103: NSAllowsLocalNetworking allows insecure loads from local hosts.
    case localNetworking = "ATS103"
    /// ATS104: NSAllowsArbitraryLoads is ignored on iOS 10 and later because a newer key is present.
    case arbitraryLoadsIgnored = "ATS104"
    /// ATS105: NSAppTransportSecurity is not a dictionary, so none of it applies.
    case configurationNotDictionary = "ATS105"
    /// ATS110: An exception domain allows plain HTTP (and looser server trust).
    case insecureHTTPException = "ATS110"
    /// ATS111: An exception domain accepts TLS 1.0 or 1.1.
    case weakMinimumTLS = "ATS111"
    /// ATS112: An exception domain sets the minimum TLS version explicitly.
    case explicitMinimumTLS = "ATS112"
    /// ATS113: An exception domain turns off forward secrecy, allowing RSA key exchange and weak keys.
    case forwardSecrecyDisabled = "ATS113"
    /// ATS114: A domain has its own ATS exceptions.
    case exceptionDomain = "ATS114"
    /// ATS115: An exception applies to all subdomains.
    case includesSubdomains = "ATS115"
    /// ATS120: A key has a value of the wrong type; ATS ignores it or reads it unpredictably.
    case wrongType = "ATS120"
    /// ATS121: A key ATS does not know, usually a misspelling; it has no effect.
    case unknownKey = "ATS121"
    /// ATS122: A key has a value outside the allowed set.
    case invalidValue = "ATS122"
    /// ATS123: A key is written twice in one dictionary; only the last takes effect.
    case duplicateKey = "ATS123"
    /// ATS124: A real ATS key is in the wrong dictionary, where it has no effect.
    case misplacedKey = "ATS124"
    /// ATS125: Two entries name one host (a U-label and its A-label); the device applies only the one written as the host is sent.
    case duplicateDomain = "ATS125"
    /// ATS130: An exception or pinned domain is written so that it can never match a host.
    case unmatchableDomain = "ATS130"
    /// ATS131: NSIncludesSubdomains has no effect on an IP address.
    case includesSubdomainsOnIP = "ATS131"
    /// ATS132: An IP address or range in NSExceptionDomains is honoured only from iOS 17 / macOS 14.
    case ipExceptionUnsupported = "ATS132"
    /// ATS140: A deprecated NSTemporaryException… or NSThirdPartyException… key.
    case legacyKey = "ATS140"
    /// ATS141: NSRequiresCertificateTransparency is obsolete; the system always requires CT.
    case obsoleteCertificateTransparencyKey = "ATS141"
    /// ATS150: A pinned domain has a single pin and no backup pin.
    case pinWithoutBackup = "ATS150"
    /// ATS151: A pin is not the base64 of a 32-byte SHA-256 digest, so it never matches.
    case malformedPin = "ATS151"
    /// ATS152: A pinned domain has an empty or missing identity list.
    case emptyPinnedDomain = "ATS152"
    /// ATS153: A pinned domain also allows plain HTTP, which pins cannot protect.
    case pinnedDomainAllowsHTTP = "ATS153"
    /// ATS154: NSPinnedDomains is ignored before iOS 14 / macOS 11, so connections there are not pinned.
    case pinnedDomainsUnsupported = "ATS154"
    /// ATS160: The app and an extension configure the same domain differently.
    case extensionContradiction = "ATS160"

    /// The rule's id, e.g. `ATS110`.
    public var id: String { rawValue }

    /// A short kebab-case name.
    public var name: String {
        switch self {
        case .arbitraryLoads: return "arbitrary-loads"
        case .arbitraryLoadsForMedia: return "arbitrary-loads-for-media"
        case .arbitraryLoadsInWebContent: return "arbitrary-loads-in-web-content"
        case .localNetworking: return "local-networking"
        case .arbitraryLoadsIgnored: return "arbitrary-loads-ignored"
        case .configurationNotDictionary: return "configuration-not-dictionary"
        case .insecureHTTPException: return "insecure-http-exception"
        case .weakMinimumTLS: return "weak-minimum-tls"
        case .explicitMinimumTLS: return "explicit-minimum-tls"
        case .forwardSecrecyDisabled: return "forward-secrecy-disabled"
        case .exceptionDomain: return "exception-domain"
        case .includesSubdomains: return "includes-subdomains"
        case .wrongType: return "wrong-type"
        case .unknownKey: return "unknown-key"
        case .invalidValue: return "invalid-value"
        case .duplicateKey: return "duplicate-key"
        case .duplicateDomain: return "duplicate-domain"
        case .misplacedKey: return "misplaced-key"
        case .unmatchableDomain: return "unmatchable-domain"
        case .includesSubdomainsOnIP: return "includes-subdomains-on-ip"
        case .ipExceptionUnsupported: return "ip-exception-unsupported"
        case .legacyKey: return "legacy-key"
        case .obsoleteCertificateTransparencyKey: return "obsolete-ct-key"
        case .pinWithoutBackup: return "pin-without-backup"
        case .malformedPin: return "malformed-pin"
        case .emptyPinnedDomain: return "empty-pinned-domain"
        case .pinnedDomainAllowsHTTP: return "pinned-domain-allows-http"
        case .pinnedDomainsUnsupported: return "pinned-domains-unsupported"
        case .extensionContradiction: return "extension-contradiction"
        }
    }

    /// The severity findings of this rule usually have.
    public var defaultSeverity: Severity {
        switch self {
        case .arbitraryLoads, .arbitraryLoadsForMedia, .arbitraryLoadsInWebContent, .localNetworking,
             .insecureHTTPException, .weakMinimumTLS, .forwardSecrecyDisabled:
            return .high
        case .wrongType, .invalidValue, .duplicateKey, .duplicateDomain, .misplacedKey, .unmatchableDomain, .pinWithoutBackup,
             .malformedPin, .emptyPinnedDomain, .pinnedDomainAllowsHTTP, .pinnedDomainsUnsupported, .extensionContradiction,
             .configurationNotDictionary:
            return .medium
        case .arbitraryLoadsIgnored, .unknownKey, .includesSubdomainsOnIP, .ipExceptionUnsupported, .legacyKey:
            return .low
        case .explicitMinimumTLS, .exceptionDomain, .includesSubdomains, .obsoleteCertificateTransparencyKey:
            return .info
        }
    }

    /// One sentence on what the rule finds.
    public var summary: String {
        switch self {
        case .arbitraryLoads: return "NSAllowsArbitraryLoads disables ATS for every domain not listed in NSExceptionDomains."
        case .arbitraryLoadsForMedia: return "NSAllowsArbitraryLoadsForMedia disables ATS for AVFoundation media loads."
        case .arbitraryLoadsInWebContent: return "NSAllowsArbitraryLoadsInWebContent disables ATS for web-view content."
        case .localNetworking: return "NSAllowsLocalNetworking allows insecure loads from local hosts."
        case .arbitraryLoadsIgnored: return "NSAllowsArbitraryLoads is ignored on iOS 10 and later because a newer key is present."
        case .configurationNotDictionary: return "NSAppTransportSecurity is not a dictionary, so none of it applies."
        case .insecureHTTPException: return "An exception domain allows plain HTTP (and looser server trust)."
        case .weakMinimumTLS: return "An exception domain accepts TLS 1.0 or 1.1."
        case .explicitMinimumTLS: return "An exception domain sets the minimum TLS version explicitly."
        case .forwardSecrecyDisabled: return "An exception domain turns off forward secrecy, allowing RSA key exchange and weak keys."
        case .exceptionDomain: return "A domain has its own ATS exceptions."
        case .includesSubdomains: return "An exception applies to all subdomains."
        case .wrongType: return "A key has a value of the wrong type; ATS ignores it or reads it unpredictably."
        case .unknownKey: return "A key ATS does not know, usually a misspelling; it has no effect."
        case .invalidValue: return "A key has a value outside the allowed set."
        case .duplicateKey: return "A key is written twice in one dictionary; only the last takes effect."
        case .duplicateDomain: return "Two entries name one host (a U-label and its A-label); the device applies only the one written as the host is sent."
        case .misplacedKey: return "A real ATS key is in the wrong dictionary, where it has no effect."
        case .unmatchableDomain: return "An exception or pinned domain is written so that it can never match a host."
        case .includesSubdomainsOnIP: return "NSIncludesSubdomains has no effect on an IP address."
        case .ipExceptionUnsupported: return "An IP address or range in NSExceptionDomains is honoured only from iOS 17 / macOS 14."
        case .legacyKey: return "A deprecated NSTemporaryException… or NSThirdPartyException… key."
        case .obsoleteCertificateTransparencyKey: return "NSRequiresCertificateTransparency is obsolete; the system always requires CT."
        case .pinWithoutBackup: return "A pinned domain has a single pin and no backup pin."
        case .malformedPin: return "A pin is not the base64 of a 32-byte SHA-256 digest, so it never matches."
        case .emptyPinnedDomain: return "A pinned domain has an empty or missing identity list."
        case .pinnedDomainAllowsHTTP: return "A pinned domain also allows plain HTTP, which pins cannot protect."
        case .pinnedDomainsUnsupported: return "NSPinnedDomains is ignored before iOS 14 / macOS 11, so connections there are not pinned."
        case .extensionContradiction: return "The app and an extension configure the same domain differently."
        }
    }

    /// Apple's page behind the rule.
    public var helpURL: String {
        switch self {
        case .arbitraryLoads, .arbitraryLoadsIgnored: return ATSKey.allowsArbitraryLoads.documentationURL
        case .arbitraryLoadsForMedia: return ATSKey.allowsArbitraryLoadsForMedia.documentationURL
        case .arbitraryLoadsInWebContent: return ATSKey.allowsArbitraryLoadsInWebContent.documentationURL
        case .localNetworking: return ATSKey.allowsLocalNetworking.documentationURL
        case .insecureHTTPException, .pinnedDomainAllowsHTTP: return ATSKey.exceptionAllowsInsecureHTTPLoads.documentationURL
        case .weakMinimumTLS, .explicitMinimumTLS: return ATSKey.exceptionMinimumTLSVersion.documentationURL
        case .forwardSecrecyDisabled: return ATSKey.exceptionRequiresForwardSecrecy.documentationURL
        case .includesSubdomains, .includesSubdomainsOnIP: return ATSKey.includesSubdomains.documentationURL
        case .obsoleteCertificateTransparencyKey: return ATSKey.requiresCertificateTransparency.documentationURL
        case .pinWithoutBackup, .malformedPin, .emptyPinnedDomain, .pinnedDomainsUnsupported: return ATSKey.pinnedDomains.documentationURL
        case .exceptionDomain, .unmatchableDomain, .ipExceptionUnsupported: return ATSKey.exceptionDomains.documentationURL
        default: return "https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity"
        }
    }
}
