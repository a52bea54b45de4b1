import AppTransportSecurity
import ArgumentParser

/// `--platform`, shared by every command that resolves ATS rules.
struct PlatformOption: ParsableArguments {
    @Option(help: "Platform rules: ios9, ios10 (10–13), ios14 (14–16), ios17 (default), macos10.11, macos10.12 (10.12–10.15), macos11 (11–13), macos14, or a version such as ios15.")
    var platform: String?

    func validate() throws {
        if let platform, PlatformProfile(name: platform) == nil {
            throw ValidationError("unknown --platform '\(platform)'; use one of \(PlatformProfile.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// The profile named, or the newest.
    var profile: PlatformProfile { platform.flatMap(PlatformProfile.init(name:)) ?? .newest }
}
