/// Every App Transport Security key, with where it belongs, its type and its default.
///
/// Source: Apple, "NSAppTransportSecurity" and its child pages
/// (https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity),
/// and the archived Information Property List Key Reference for the legacy `NSTemporaryException*` and
/// `NSThirdPartyException*` families.
public enum ATSKey: String, Sendable, Hashable, CaseIterable, Codable {
    // Top level.
    /// `NSAllowsArbitraryLoads`.
    case allowsArbitraryLoads = "NSAllowsArbitraryLoads"
    /// `NSAllowsArbitraryLoadsForMedia`.
    case allowsArbitraryLoadsForMedia = "NSAllowsArbitraryLoadsForMedia"
    /// `NSAllowsArbitraryLoadsInWebContent`.
    case allowsArbitraryLoadsInWebContent = "NSAllowsArbitraryLoadsInWebContent"
    /// `NSAllowsLocalNetworking`.
    case allowsLocalNetworking = "NSAllowsLocalNetworking"
    /// `NSExceptionDomains`.
    case exceptionDomains = "NSExceptionDomains"
    /// `NSPinnedDomains`.
    case pinnedDomains = "NSPinnedDomains"
    /// `NSRequiresNIAPTLSPackageVersion`.
    case requiresNIAPTLSPackageVersion = "NSRequiresNIAPTLSPackageVersion"
    // Per domain (exception and pinned).
    /// `NSIncludesSubdomains`.
    case includesSubdomains = "NSIncludesSubdomains"
    /// `NSExceptionAllowsInsecureHTTPLoads`.
    case exceptionAllowsInsecureHTTPLoads = "NSExceptionAllowsInsecureHTTPLoads"
    /// `NSExceptionMinimumTLSVersion`.
    case exceptionMinimumTLSVersion = "NSExceptionMinimumTLSVersion"
    /// `NSExceptionRequiresForwardSecrecy`.
    case exceptionRequiresForwardSecrecy = "NSExceptionRequiresForwardSecrecy"
    /// `NSRequiresCertificateTransparency`.
    case requiresCertificateTransparency = "NSRequiresCertificateTransparency"
    /// `NSExceptionRequiresNIAPTLSPackageVersion`.
    case exceptionRequiresNIAPTLSPackageVersion = "NSExceptionRequiresNIAPTLSPackageVersion"
    /// `NSTemporaryExceptionAllowsInsecureHTTPLoads`.
    case temporaryExceptionAllowsInsecureHTTPLoads = "NSTemporaryExceptionAllowsInsecureHTTPLoads"
    /// `NSTemporaryExceptionMinimumTLSVersion`.
    case temporaryExceptionMinimumTLSVersion = "NSTemporaryExceptionMinimumTLSVersion"
    /// `NSTemporaryExceptionRequiresForwardSecrecy`.
    case temporaryExceptionRequiresForwardSecrecy = "NSTemporaryExceptionRequiresForwardSecrecy"
    /// `NSThirdPartyExceptionAllowsInsecureHTTPLoads`.
    case thirdPartyExceptionAllowsInsecureHTTPLoads = "NSThirdPartyExceptionAllowsInsecureHTTPLoads"
    /// `NSThirdPartyExceptionMinimumTLSVersion`.
    case thirdPartyExceptionMinimumTLSVersion = "NSThirdPartyExceptionMinimumTLSVersion"
    /// `NSThirdPartyExceptionRequiresForwardSecrecy`.
    case thirdPartyExceptionRequiresForwardSecrecy = "NSThirdPartyExceptionRequiresForwardSecrecy"
    // Pinned domains.
    /// `NSPinnedCAIdentities`.
    case pinnedCAIdentities = "NSPinnedCAIdentities"
    /// `NSPinnedLeafIdentities`.
    case pinnedLeafIdentities = "NSPinnedLeafIdentities"
    /// `SPKI-SHA256-BASE64`.
    case spkiSHA256Base64 = "SPKI-SHA256-BASE64"

    /// The dictionary a key belongs in.
    public enum Level: String, Sendable, Hashable, Codable {
        /// The `NSAppTransportSecurity` dictionary itself.
        case topLevel = "NSAppTransportSecurity"
        /// An NSExceptionDomains entry.
        case exceptionDomain = "an NSExceptionDomains entry"
        /// An NSPinnedDomains entry.
        case pinnedDomain = "an NSPinnedDomains entry"
        /// A pinned identity.
        case pinnedIdentity = "a pinned identity"
    }

    /// The levels this key may appear at.
    public var levels: [Level] {
        switch self {
        case .allowsArbitraryLoads, .allowsArbitraryLoadsForMedia, .allowsArbitraryLoadsInWebContent,
             .allowsLocalNetworking, .exceptionDomains, .pinnedDomains, .requiresNIAPTLSPackageVersion:
            return [.topLevel]
        case .includesSubdomains:
            return [.exceptionDomain, .pinnedDomain]
        case .pinnedCAIdentities, .pinnedLeafIdentities:
            return [.pinnedDomain]
        case .spkiSHA256Base64:
            return [.pinnedIdentity]
        default:
            return [.exceptionDomain]
        }
    }

    /// The type the value must have.
    public var kind: PlistKind {
        switch self {
        case .exceptionDomains, .pinnedDomains: return .dictionary
        case .pinnedCAIdentities, .pinnedLeafIdentities: return .array
        case .exceptionMinimumTLSVersion, .temporaryExceptionMinimumTLSVersion, .thirdPartyExceptionMinimumTLSVersion,
             .requiresNIAPTLSPackageVersion, .exceptionRequiresNIAPTLSPackageVersion, .spkiSHA256Base64:
            return .string
        default: return .boolean
        }
    }

    /// The documented default, as written in a plist.
    public var defaultValue: String {
        switch self {
        case .exceptionRequiresForwardSecrecy, .temporaryExceptionRequiresForwardSecrecy,
             .thirdPartyExceptionRequiresForwardSecrecy:
            return "YES"
        case .exceptionMinimumTLSVersion, .temporaryExceptionMinimumTLSVersion, .thirdPartyExceptionMinimumTLSVersion:
            return "TLSv1.2"
        case .requiresNIAPTLSPackageVersion, .exceptionRequiresNIAPTLSPackageVersion:
            return "none"
        case .exceptionDomains, .pinnedDomains: return "empty"
        case .pinnedCAIdentities, .pinnedLeafIdentities: return "absent"
        case .spkiSHA256Base64: return "none (required)"
        default: return "NO"
        }
    }

    /// The current key that replaces a legacy one (`NSTemporaryException…`, `NSThirdPartyException…`).
    public var modernReplacement: ATSKey? {
        switch self {
        case .temporaryExceptionAllowsInsecureHTTPLoads, .thirdPartyExceptionAllowsInsecureHTTPLoads:
            return .exceptionAllowsInsecureHTTPLoads
        case .temporaryExceptionMinimumTLSVersion, .thirdPartyExceptionMinimumTLSVersion:
            return .exceptionMinimumTLSVersion
        case .temporaryExceptionRequiresForwardSecrecy, .thirdPartyExceptionRequiresForwardSecrecy:
            return .exceptionRequiresForwardSecrecy
        default: return nil
        }
    }

    /// Apple's page for the key.
    public var documentationURL: String {
        let base = "https://developer.apple.com/documentation/bundleresources/information-property-list/"
        switch self {
        case .allowsArbitraryLoads, .allowsArbitraryLoadsForMedia, .allowsArbitraryLoadsInWebContent,
             .allowsLocalNetworking, .exceptionDomains, .pinnedDomains:
            return base + "nsapptransportsecurity/" + rawValue.lowercased()
        case .pinnedCAIdentities, .pinnedLeafIdentities, .spkiSHA256Base64:
            return base + "nsapptransportsecurity/nspinneddomains"
        case .temporaryExceptionAllowsInsecureHTTPLoads, .temporaryExceptionMinimumTLSVersion,
             .temporaryExceptionRequiresForwardSecrecy, .thirdPartyExceptionAllowsInsecureHTTPLoads,
             .thirdPartyExceptionMinimumTLSVersion, .thirdPartyExceptionRequiresForwardSecrecy,
             .requiresNIAPTLSPackageVersion, .exceptionRequiresNIAPTLSPackageVersion:
            return base + "nsapptransportsecurity"
        default:
            return base + rawValue.lowercased()
        }
    }

    /// The keys allowed at `level`.
    public static func keys(at level: Level) -> [ATSKey] { allCases.filter { $0.levels.contains(level) } }
}

extension ATSKey {
    /// What this key would switch on with `value`, in words, when that loosens ATS; nil when it would not (or the value
    /// says nothing). Read loosely, as a careless reader would: `<string>TRUE</string>` counts as YES. Advice never
    /// leads with a rename or a move that would do this.
    func loosening(_ value: PlistValue?) -> String? {
        guard let value else { return nil }
        let yes = FindingCollector.intendedBoolean(value) ?? { if case .boolean(let b) = value { return b } else { return nil } }()
        switch self {
        case .allowsArbitraryLoads:
            return yes == true ? "turn ATS off for every domain not in NSExceptionDomains" : nil
        case .allowsArbitraryLoadsForMedia:
            return yes == true ? "let AVFoundation load media over plain HTTP and weak TLS" : nil
        case .allowsArbitraryLoadsInWebContent:
            return yes == true ? "let web views load any content over plain HTTP" : nil
        case .allowsLocalNetworking:
            return yes == true ? "exempt local names and IP addresses from ATS" : nil
        case .exceptionAllowsInsecureHTTPLoads, .temporaryExceptionAllowsInsecureHTTPLoads, .thirdPartyExceptionAllowsInsecureHTTPLoads:
            return yes == true ? "allow plain HTTP for the domain" : nil
        case .exceptionRequiresForwardSecrecy, .temporaryExceptionRequiresForwardSecrecy, .thirdPartyExceptionRequiresForwardSecrecy:
            return yes == false ? "allow key exchange without forward secrecy for the domain" : nil
        case .exceptionMinimumTLSVersion, .temporaryExceptionMinimumTLSVersion, .thirdPartyExceptionMinimumTLSVersion:
            guard case .string(let s) = value, let version = TLSVersion(loose: s), version < .tls12 else { return nil }
            return "allow \(version) for the domain"
        case .exceptionDomains:
            // The exceptions it lists, which take effect once it is where ATS reads it.
            guard case .dictionary(let domains) = value else { return nil }
            let loosened = domains.keys.sorted().filter { name in
                guard case .dictionary(let entry)? = domains[name] else { return false }
                return entry.contains { ATSKey(rawValue: $0.key)?.loosening($0.value) != nil }
            }
            guard !loosened.isEmpty else { return nil }
            return "apply the exceptions it lists, loosening ATS for \(loosened.prefix(3).joined(separator: ", "))\(loosened.count > 3 ? " and \(loosened.count - 3) more" : "")"
        default:
            return nil
        }
    }
}
