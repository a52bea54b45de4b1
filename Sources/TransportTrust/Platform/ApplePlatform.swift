/// An Apple operating system release whose TLS server trust rules an evaluation follows.
///
/// Parsed from the names `ats --platform` takes (`ios17`, `ios13.2`, `macos10.15`, `macos14`, `iOS 12.1.1`). The
/// features below say which of Apple's TLS server rules a release enforces; the rules themselves are
/// `AppleKeySizeRule` and `AppleValidityPeriodRule`, which ``TrustPolicy`` adds under the SSL policy.
///
/// Sources: support.apple.com/103769 (iOS 13 and macOS 10.15 TLS server requirements), 102028 (398-day limit),
/// 103214 (Certificate Transparency policy).
public struct ApplePlatform: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Apple's operating systems, each with its own release numbers.
    public enum OS: String, Sendable, Hashable, CaseIterable {
        /// iOS (and iPadOS, which shares its release numbers).
        case iOS = "ios"
        /// macOS.
        case macOS = "macos"
    }

    /// The operating system.
    public var os: OS
    /// The major release number (13 in iOS 13.4.1).
    public var major: Int
    /// The minor release number (4 in iOS 13.4.1).
    public var minor: Int
    /// The patch number (1 in iOS 13.4.1).
    public var patch: Int

    /// The release `major.minor.patch` of `os`.
    public init(_ os: OS, _ major: Int, _ minor: Int = 0, _ patch: Int = 0) {
        self.os = os
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// The newest release whose rules we know: iOS 26 (trust store 2025072000).
    public static let newest = ApplePlatform(.iOS, 26)

    /// Parses `ios17`, `ios 13.2`, `iOS12.1.1`, `macos10.15`, `macos14`: an OS name and a version of one to three numbers.
    /// iOS from 9 and macOS from 10.11, as `--platform` has always accepted; nil for anything else.
    public init?(name: String) {
        let lower = name.lowercased().replacingOccurrences(of: " ", with: "")
        guard let os = OS.allCases.first(where: { lower.hasPrefix($0.rawValue) }) else { return nil }
        let numbers = lower.dropFirst(os.rawValue.count).split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(numbers.count), numbers.allSatisfy({ !$0.isEmpty && $0.count <= 4 && $0.allSatisfy(\.isASCII) }) else { return nil }
        let values = numbers.compactMap { Int($0) }
        guard values.count == numbers.count, values.allSatisfy({ $0 >= 0 }) else { return nil }
        self.init(os, values[0], values.count > 1 ? values[1] : 0, values.count > 2 ? values[2] : 0)
        switch os {
        case .iOS: guard major >= 9 && major <= 99 else { return nil }
        case .macOS: guard (major == 10 && minor >= 11) || (major >= 11 && major <= 99) else { return nil }
        }
    }

    public var description: String {
        let name = os == .iOS ? "iOS" : "macOS"
        var version = "\(major)"
        if minor != 0 || patch != 0 { version += ".\(minor)" }
        if patch != 0 { version += ".\(patch)" }
        return "\(name) \(version)"
    }

    /// Orders releases of one OS; across OSes, iOS sorts first (the order has no meaning there).
    public static func < (l: ApplePlatform, r: ApplePlatform) -> Bool {
        if l.os != r.os { return l.os == .iOS }
        return (l.major, l.minor, l.patch) < (r.major, r.minor, r.patch)
    }

    /// True from the given iOS or macOS release on.
    func isAtLeast(iOS: ApplePlatform, macOS: ApplePlatform) -> Bool {
        self >= (os == .iOS ? iOS : macOS)
    }

    /// RSA keys of at least 2048 bits in the leaf and every issuing CA of a TLS server chain, whatever the anchor:
    /// iOS 13 and macOS 10.15 (support.apple.com/103769).
    package var requiresRSA2048ForTLSServers: Bool {
        isAtLeast(iOS: ApplePlatform(.iOS, 13), macOS: ApplePlatform(.macOS, 10, 15))
    }

    /// At most 825 days (trustd: 825 × 86,400 s + 3,600 s) for TLS server leaves, whatever the anchor: iOS 13 and
    /// macOS 10.15 (support.apple.com/103769). For system-trusted leaves trustd counts from notBefore 2018-03-01, for
    /// other trust from 2019-07-01 (see `AppleValidityPeriodRule`).
    package var limitsLifetimeTo825Days: Bool { requiresRSA2048ForTLSServers }

    /// At most 398 days for TLS server leaves issued on or after 2020-09-01 that chain to a public root
    /// (support.apple.com/102028). Apple's article names no release; the rule shipped with the first releases after
    /// its date, iOS 14 and macOS 11 (2020-09 and 2020-11), so earlier releases are taken not to enforce it.
    package var limitsLifetimeTo398Days: Bool {
        isAtLeast(iOS: ApplePlatform(.iOS, 14), macOS: ApplePlatform(.macOS, 11))
    }

    /// Certificate Transparency for publicly trusted TLS server certificates issued after 2018-10-15
    /// (support.apple.com/103214): iOS 12.1.1 and macOS 10.14.2, the releases in which Apple's Certificate
    /// Transparency configuration payload, which turns the enforcement off for chosen hosts, first exists.
    public var enforcesCertificateTransparency: Bool {
        isAtLeast(iOS: ApplePlatform(.iOS, 12, 1, 1), macOS: ApplePlatform(.macOS, 10, 14, 2))
    }
}
