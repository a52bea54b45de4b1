import AppTransportSecurity
import TransportTrust

/// Where a request's ATS requirements come from.
public enum ATSPolicy: Sendable {
    /// An app's `NSAppTransportSecurity` configuration, under a platform profile.
    case configuration(ATSConfiguration, profile: PlatformProfile = .newest)
    /// ATS with no keys set: what an app without an ATS dictionary gets.
    case `default`(profile: PlatformProfile = .newest)
    /// No ATS: TLS 1.0 and later, any suite the client knows, and standard server trust evaluation.
    /// Trust and pins still apply; only ATS's extra connection rules are off.
    case disabled

    /// The resolver for this policy.
    var resolver: RequirementsResolver {
        switch self {
        case .configuration(let configuration, let profile):
            return RequirementsResolver(configuration: configuration, profile: profile)
        case .default(let profile):
            return RequirementsResolver(configuration: ATSConfiguration(), profile: profile)
        case .disabled:
            return RequirementsResolver(configuration: ATSConfiguration(dictionary: ["NSAllowsArbitraryLoads": .boolean(true)]))
        }
    }

    /// The requirements for `url`, resolved by AppTransportSecurity, so that `ats check` and the client agree.
    public func requirements(for url: String) throws(RequirementsError) -> ConnectionRequirements {
        try resolver.requirements(for: url)
    }

    /// The requirements for `url` on the exact `platform` when it is a release of the policy's profile: what changes
    /// inside a profile (CT from iOS 12.1.1) is then decided by the release, as `ats check --platform` decides it.
    /// A profile alone stands for its newest release.
    func requirements(for url: String, on platform: ApplePlatform) throws(RequirementsError) -> ConnectionRequirements {
        switch self {
        case .configuration(let configuration, let profile) where PlatformProfile(platform) == profile:
            return try RequirementsResolver(configuration: configuration, platform: platform).requirements(for: url)
        case .default(let profile) where PlatformProfile(platform) == profile:
            return try RequirementsResolver(configuration: ATSConfiguration(), platform: platform).requirements(for: url)
        default:
            return try requirements(for: url)
        }
    }
}
