import AppTransportSecurity
import ArgumentParser
import TransportTrust

/// `--platform`, shared by every command that resolves ATS rules or evaluates a TLS server chain.
struct PlatformOption: ParsableArguments {
    @Option(help: """
        The Apple release whose rules apply: ios9 … ios26, macos10.11 … macos26, with a minor version if you like (ios13.2, \
        macos10.15); default ios26. It chooses the ATS rules (ios9, ios10 for 10–13, ios14 for 14–16, ios17 and later) and Apple's \
        TLS server rules for the chain (RSA ≥ 2048 bits and the 825-day limit from iOS 13 / macOS 10.15, the 398-day limit \
        for public roots from iOS 14 / macOS 11).
        """)
    var platform: String?

    func validate() throws {
        if let platform, PlatformProfile(name: platform) == nil || ApplePlatform(name: platform) == nil {
            throw ValidationError("unknown --platform '\(platform)'; use an OS and version such as ios17, ios13.2, macos10.15 or macos14 (or one of \(PlatformProfile.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
    }

    /// The ATS profile named, or the newest.
    var profile: PlatformProfile { platform.flatMap(PlatformProfile.init(name:)) ?? .newest }

    /// The release named, or the newest (iOS 26), whose TLS server rules trust evaluation applies.
    var applePlatform: ApplePlatform { platform.flatMap(ApplePlatform.init(name:)) ?? .newest }
}
