import TransportTrust

/// The OS versions whose ATS rules apply. Each iOS profile has a macOS twin with the same rules.
///
/// - `ios9` / `macos10.11`: ATS as introduced; no local-networking, media or web-content keys.
/// - `ios10` / `macos10.12` (iOS 10 through 13, macOS 10.12 through 10.15): the newer keys exist and make
///   NSAllowsArbitraryLoads ignored; local hosts (unqualified names, `.local`, IP literals) are exempt.
/// - `ios14` / `macos11` (iOS 14 through 16, macOS 11 through 13): the same rules, plus NSPinnedDomains.
/// - `ios17` / `macos14` and later: IP literals are no longer exempt by default; NSExceptionDomains accepts
///   IP addresses and CIDR ranges.
///
/// Sources: Apple, NSAllowsLocalNetworking, NSExceptionDomains and NSPinnedDomains
/// (https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nsallowslocalnetworking,
/// https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nspinneddomains).
public enum PlatformProfile: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// iOS 9: ATS as introduced.
    case ios9
    /// iOS 10 through 13: the newer keys, which make NSAllowsArbitraryLoads ignored; local hosts exempt.
    case ios10
    /// iOS 14 through 16: as iOS 10, plus NSPinnedDomains.
    case ios14
    /// iOS 17 and later: IP literals no longer exempt; exceptions may name addresses and CIDR ranges.
    case ios17
    /// macOS 10.11, the twin of iOS 9.
    case macos10_11 = "macos10.11"
    /// macOS 10.12 through 10.15, the twin of iOS 10.
    case macos10_12 = "macos10.12"
    /// macOS 11 through 13, the twin of iOS 14.
    case macos11
    /// macOS 14 and later, the twin of iOS 17.
    case macos14

    /// The default: the newest rules.
    public static let newest: PlatformProfile = .ios17

    /// The rule generation, shared by the iOS and macOS twins.
    public enum Generation: Int, Sendable, Comparable, Codable {
        /// The rules of iOS 9 and macOS 10.11.
        case ats1 = 9
        /// The rules of iOS 10 to 16 and macOS 10.12 to 13.
        case ats2 = 10
        /// The rules of iOS 17 and macOS 14 and later.
        case ats3 = 17
        public static func < (l: Generation, r: Generation) -> Bool { l.rawValue < r.rawValue }
    }

    /// The rule generation this profile shares with its twin.
    public var generation: Generation {
        switch self {
        case .ios9, .macos10_11: return .ats1
        case .ios10, .ios14, .macos10_12, .macos11: return .ats2
        case .ios17, .macos14: return .ats3
        }
    }

    /// Whether the system reads NSPinnedDomains: "iOS 14.0+, macOS 11.0+" (NSPinnedDomains page).
    public var supportsPinnedDomains: Bool {
        switch self {
        case .ios9, .ios10, .macos10_11, .macos10_12: return false
        case .ios14, .ios17, .macos11, .macos14: return true
        }
    }

    public var description: String {
        switch self {
        case .ios9: return "iOS 9"
        case .ios10: return "iOS 10–13"
        case .ios14: return "iOS 14–16"
        case .ios17: return "iOS 17 and later"
        case .macos10_11: return "macOS 10.11"
        case .macos10_12: return "macOS 10.12–10.15"
        case .macos11: return "macOS 11–13"
        case .macos14: return "macOS 14 and later"
        }
    }

    /// The profile whose ATS rules `platform` follows.
    public init(_ platform: ApplePlatform) {
        switch platform.os {
        case .iOS:
            self = platform.major >= 17 ? .ios17 : platform.major >= 14 ? .ios14 : platform.major >= 10 ? .ios10 : .ios9
        case .macOS:
            self = platform.major >= 14 ? .macos14 : platform.major >= 11 ? .macos11
                : platform.major == 10 && platform.minor >= 12 ? .macos10_12 : .macos10_11
        }
    }

    /// The newest release this profile covers: what a rule that changed inside its range (Certificate Transparency,
    /// from iOS 12.1.1) is decided by when no exact release is given.
    public var newestRelease: ApplePlatform {
        switch self {
        case .ios9: return ApplePlatform(.iOS, 9, 3)
        case .ios10: return ApplePlatform(.iOS, 13, 7)
        case .ios14: return ApplePlatform(.iOS, 16, 7)
        case .ios17: return .newest
        case .macos10_11: return ApplePlatform(.macOS, 10, 11, 6)
        case .macos10_12: return ApplePlatform(.macOS, 10, 15, 7)
        case .macos11: return ApplePlatform(.macOS, 13, 7)
        case .macos14: return ApplePlatform(.macOS, 26)
        }
    }

    /// Parses a profile name or an OS version: `ios17`, `ios 12`, `iOS16`, `macos13`, `macos10.15`.
    public init?(name: String) {
        if let exact = PlatformProfile(rawValue: name.lowercased()) {
            self = exact
            return
        }
        let lower = name.lowercased().replacingOccurrences(of: " ", with: "")
        if lower.hasPrefix("ios"), let major = Int(lower.dropFirst(3).split(separator: ".").first ?? "") {
            guard major >= 9 else { return nil }
            self = major >= 17 ? .ios17 : (major >= 14 ? .ios14 : (major >= 10 ? .ios10 : .ios9))
            return
        }
        if lower.hasPrefix("macos") {
            let parts = lower.dropFirst(5).split(separator: ".").compactMap { Int($0) }
            guard let major = parts.first else { return nil }
            if major >= 14 { self = .macos14; return }
            if major >= 11 { self = .macos11; return }
            guard major == 10, parts.count > 1, parts[1] >= 11 else { return nil }
            self = parts[1] >= 12 ? .macos10_12 : .macos10_11
            return
        }
        return nil
    }
}
