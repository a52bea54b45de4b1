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

    /// The resolver for this policy: on the exact `platform` when it is a release of the policy's profile, since what
    /// changes inside a profile (CT from iOS 12.1.1) is decided by the release, as `ats check --platform` decides it;
    /// otherwise, or without a platform, for the profile's newest release.
    private func resolver(on platform: ApplePlatform?) -> RequirementsResolver {
        func resolver(_ configuration: ATSConfiguration, _ profile: PlatformProfile) -> RequirementsResolver {
            guard let platform, PlatformProfile(platform) == profile else { return RequirementsResolver(configuration: configuration, profile: profile) }
            return RequirementsResolver(configuration: configuration, platform: platform)
        }
        switch self {
        case .configuration(let configuration, let profile): return resolver(configuration, profile)
        case .default(let profile): return resolver(ATSConfiguration(), profile)
        case .disabled: return RequirementsResolver(configuration: ATSConfiguration(dictionary: ["NSAllowsArbitraryLoads": .boolean(true)]))
        }
    }

    /// The requirements for `url`, resolved by AppTransportSecurity, so that `ats check` and the client agree.
    public func requirements(for url: String) throws(RequirementsError) -> ConnectionRequirements {
        try resolver(on: nil).requirements(for: url)
    }

    /// The requirements for `target`, already parsed from `url`, on `platform`, as ``resolver(on:)`` resolves them.
    package func requirements(for target: ConnectionTarget, url: String, on platform: ApplePlatform) -> ConnectionRequirements {
        resolver(on: platform).requirements(for: target, url: url)
    }
}
