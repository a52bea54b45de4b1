import TransportTrust

/// Resolves the effective ATS requirements for a URL under a platform profile, with Apple's precedence.
///
/// Order of decision (each step cites Apple's documentation):
/// 1. An NSExceptionDomains entry that matches the host governs it alone: "Domains you specify in that
///    dictionary aren't affected by this key's value" (NSAllowsArbitraryLoads). Keys the entry leaves out
///    take ATS defaults, never the global keys — even for an empty entry.
/// 2. Otherwise local hosts — unqualified names, `.local` names, IP literals — are exempt from ATS on iOS 10
///    and later, except IP literals on iOS 17 / macOS 14 and later, which need NSAllowsLocalNetworking
///    (NSAllowsLocalNetworking page). On iOS 9 nothing is exempt.
/// 3. Otherwise the global keys: on iOS 10 and later, "the value of NSAllowsArbitraryLoads is ignored … if
///    any of the following keys appear": NSAllowsArbitraryLoadsForMedia, NSAllowsArbitraryLoadsInWebContent,
///    NSAllowsLocalNetworking. iOS 9 knows none of those keys and honours NSAllowsArbitraryLoads.
///    The media and web-content keys apply only to their ``LoadContext``.
public struct RequirementsResolver: Sendable {
    /// How far NSIncludesSubdomains reaches.
    public enum SubdomainMatching: String, Sendable, Codable {
        /// Any number of extra labels (the long-standing behaviour; the default — see docs/ATS.md).
        case anyDepth
        /// One extra label only, as Apple's current NSIncludesSubdomains page words it.
        case oneLabel
    }

    /// The ATS dictionary requirements are resolved from.
    public var configuration: ATSConfiguration {
        didSet { (exceptionMatcher, pinnedMatcher) = Self.matchers(configuration, subdomainMatching) }
    }
    /// The release whose ATS rules apply.
    public var profile: PlatformProfile
    /// The exact release, for the one rule that changed inside a profile's range: the system requires Certificate
    /// Transparency from iOS 12.1.1 / macOS 10.14.2, in the middle of ``PlatformProfile/ios10``.
    public var platform: ApplePlatform
    /// How `NSIncludesSubdomains` reads: any depth, or one label.
    public var subdomainMatching: SubdomainMatching {
        didSet { (exceptionMatcher, pinnedMatcher) = Self.matchers(configuration, subdomainMatching) }
    }

    /// Resolves under `profile`'s rules, as its newest release applies them (``PlatformProfile/newestRelease``).
    public init(configuration: ATSConfiguration, profile: PlatformProfile = .newest, subdomainMatching: SubdomainMatching = .anyDepth) {
        self.init(configuration: configuration, profile: profile, platform: profile.newestRelease, subdomainMatching: subdomainMatching)
    }

    /// Resolves under the rules of the release `platform` (`ats --platform ios12.1`).
    public init(configuration: ATSConfiguration, platform: ApplePlatform, subdomainMatching: SubdomainMatching = .anyDepth) {
        self.init(configuration: configuration, profile: PlatformProfile(platform), platform: platform, subdomainMatching: subdomainMatching)
    }

    private init(configuration: ATSConfiguration, profile: PlatformProfile, platform: ApplePlatform, subdomainMatching: SubdomainMatching) {
        self.configuration = configuration
        (exceptionMatcher, pinnedMatcher) = Self.matchers(configuration, subdomainMatching)
        self.profile = profile
        self.platform = platform
        self.subdomainMatching = subdomainMatching
    }

    /// The requirements for loading `url` through `context`.
    /// - Throws: ``RequirementsError/invalidURL(_:reason:)`` when `url` has no http(s) scheme or no host.
    public func requirements(for url: String, context: LoadContext = .urlSession) throws(RequirementsError) -> ConnectionRequirements {
        let target = try ConnectionTarget(url: url)
        return requirements(for: target, url: url, context: context)
    }

    /// The requirements for an already-parsed target.
    public func requirements(for target: ConnectionTarget, url: String, context: LoadContext = .urlSession) -> ConnectionRequirements {
        var notes: [String] = []
        let pins = pinRequirement(for: target)
        if let (entry, viaSubdomain) = matchingExceptionDomain(for: target) {
            return exceptionRequirements(entry, viaSubdomain: viaSubdomain, target: target, url: url, context: context, pins: pins, notes: notes)
        }
        if let exemption = localExemption(for: target) {
            return unrestricted(target: target, url: url, context: context, because: exemption, pins: pins, notes: notes)
        }
        if let off = globalExemption(context: context, notes: &notes) {
            return unrestricted(target: target, url: url, context: context, because: off, pins: pins, notes: notes)
        }
        var reason = arbitraryLoadsIgnoredReason().map { "ATS default; \($0)" } ?? "ATS default"
        var globalKeys: [ATSKey] = [.allowsArbitraryLoads]
        if context == .media { globalKeys.append(.allowsArbitraryLoadsForMedia) }
        if context == .webContent { globalKeys.append(.allowsArbitraryLoadsInWebContent) }
        if target.isIP || target.isUnqualifiedName || target.isDotLocalName { globalKeys.append(.allowsLocalNetworking) }
        for key in globalKeys {
            if let ignored = ignoredValue(of: key, in: PlistKeyPath([])) { reason += "; \(ignored.why)" }
        }
        return enforced(target: target, url: url, context: context, entry: nil, allowsHTTP: nil, minimumTLS: nil,
                        forwardSecrecy: nil, defaultRule: reason, entryRule: "", pins: pins, notes: notes)
    }

    // MARK: Matching

    /// The NSExceptionDomains entry governing `target`: an exact match, else the longest parent with
    /// NSIncludesSubdomains. Names never match IP connections and IP entries never match names; IP entries
    /// (and CIDR ranges) are honoured only from iOS 17 / macOS 14.
    package func matchingExceptionDomain(for target: ConnectionTarget) -> (ExceptionDomain, viaSubdomain: Bool)? {
        exceptionMatcher.best(for: target, addresses: profile.generation >= .ats3)
    }

    /// The NSPinnedDomains entry for `target`, by the same matching rules.
    package func matchingPinnedDomain(for target: ConnectionTarget) -> (PinnedDomain, viaSubdomain: Bool)? {
        pinnedMatcher.best(for: target, addresses: profile.generation >= .ats3)
    }

    private var exceptionMatcher: ATSDomainMatcher<ExceptionDomain>
    private var pinnedMatcher: ATSDomainMatcher<PinnedDomain>

    private static func matchers(_ configuration: ATSConfiguration, _ subdomains: SubdomainMatching)
        -> (ATSDomainMatcher<ExceptionDomain>, ATSDomainMatcher<PinnedDomain>) {
        let oneLabel = subdomains == .oneLabel
        return (ATSDomainMatcher(configuration.exceptionDomains, key: \.key, includesSubdomains: \.coversSubdomains, oneLabel: oneLabel),
                ATSDomainMatcher(configuration.pinnedDomains, key: \.key, includesSubdomains: \.coversSubdomains, oneLabel: oneLabel))
    }

    // MARK: Precedence

    /// Why NSAllowsArbitraryLoads is ignored under this profile, or nil when it is honoured.
    package func arbitraryLoadsIgnoredReason() -> String? {
        guard profile.generation >= .ats2 else { return nil }
        let overriding: [ATSKey] = [.allowsArbitraryLoadsForMedia, .allowsArbitraryLoadsInWebContent, .allowsLocalNetworking]
        let present = overriding.filter { configuration.presentKeys.contains($0) }
        guard !present.isEmpty, configuration.presentKeys.contains(.allowsArbitraryLoads) else { return nil }
        return "NSAllowsArbitraryLoads is ignored on \(profile) because \(present.map(\.rawValue).joined(separator: " and ")) \(present.count == 1 ? "is" : "are") present"
    }

    private func localExemption(for target: ConnectionTarget) -> Provenance? {
        guard profile.generation >= .ats2, target.isIP || target.isUnqualifiedName || target.isDotLocalName else { return nil }
        let local = configuration.allowsLocalNetworking
        if target.isIP && profile.generation >= .ats3 {
            guard let local, local.value else { return nil }
            return Provenance(keyPath: local.keyPath, rule: "IP literals are exempt from ATS on \(profile) only with NSAllowsLocalNetworking")
        }
        let kind = target.isIP ? "IP literals" : (target.isDotLocalName ? ".local names" : "unqualified names")
        if let local, local.value {
            return Provenance(keyPath: local.keyPath, rule: "local networking: \(kind) are exempt from ATS")
        }
        return Provenance(rule: "\(kind) are exempt from ATS by default on \(profile)")
    }

    private func globalExemption(context: LoadContext, notes: inout [String]) -> Provenance? {
        if profile.generation >= .ats2 {
            if context == .media, let media = configuration.allowsArbitraryLoadsForMedia, media.value {
                return Provenance(keyPath: media.keyPath, rule: "ATS disabled for AVFoundation media loads")
            }
            if context == .webContent, let web = configuration.allowsArbitraryLoadsInWebContent, web.value {
                return Provenance(keyPath: web.keyPath, rule: "ATS disabled for web-view content")
            }
        }
        guard let arbitrary = configuration.allowsArbitraryLoads, arbitrary.value else { return nil }
        if let ignored = arbitraryLoadsIgnoredReason() {
            notes.append(ignored)
            return nil
        }
        return Provenance(keyPath: arbitrary.keyPath, rule: "ATS disabled for domains not listed in NSExceptionDomains")
    }

    // MARK: Building

    private func exceptionRequirements(_ entry: ExceptionDomain, viaSubdomain: Bool, target: ConnectionTarget, url: String,
                                       context: LoadContext, pins: Decided<PinRequirement?>, notes: [String]) -> ConnectionRequirements {
        // The key path already names the entry; the rule says how the host matched it.
        let rule = viaSubdomain ? (entry.key.isIP ? "address range" : "includes subdomains") : "exact match"
        var notes = notes
        if viaSubdomain, !entry.key.isIP, subdomainMatching == .anyDepth,
           target.host.split(separator: ".").count - entry.name.split(separator: ".").count > 1 {
            notes.append("\(target.host) is more than one label below \(entry.name); Apple's current NSIncludesSubdomains page says the "
                + "entry covers subdomains with one additional label only, so a device may not apply it here (docs/ATS.md, choices; "
                + "a resolver with subdomainMatching .oneLabel checks that reading)")
        }
        return enforced(target: target, url: url, context: context, entry: entry, allowsHTTP: entry.allowsInsecureHTTPLoads,
                        minimumTLS: entry.minimumTLSVersion, forwardSecrecy: entry.requiresForwardSecrecy,
                        defaultRule: "ATS default; the entry \(entry.name) does not set it and global keys do not apply to listed domains",
                        entryRule: rule, pins: pins, notes: notes)
    }

    private func enforced(target: ConnectionTarget, url: String, context: LoadContext, entry: ExceptionDomain?,
                          allowsHTTP: Setting<Bool>?, minimumTLS: Setting<TLSVersion>?, forwardSecrecy: Setting<Bool>?,
                          defaultRule: String, entryRule: String, pins: Decided<PinRequirement?>, notes: [String]) -> ConnectionRequirements {
        let defaultProvenance = Provenance(keyPath: entry?.keyPath, rule: defaultRule)
        func decided<T>(_ setting: Setting<T>?, default value: T, keys: [ATSKey]) -> Decided<T> {
            if let setting { return Decided(setting.value, Provenance(keyPath: setting.keyPath, rule: entryRule)) }
            // A key written with a wrong type or value is present, not absent: say so rather than "does not set it".
            if let entry, let ignored = keys.lazy.compactMap({ ignoredValue(of: $0, in: entry.keyPath) }).first {
                return Decided(value, Provenance(keyPath: ignored.keyPath, rule: "ATS default; \(ignored.why)"))
            }
            return Decided(value, defaultProvenance)
        }
        let http = decided(allowsHTTP, default: false, keys: [.exceptionAllowsInsecureHTTPLoads, .temporaryExceptionAllowsInsecureHTTPLoads,
                                                              .thirdPartyExceptionAllowsInsecureHTTPLoads])
        let tls = decided(minimumTLS, default: TLSVersion.atsDefault, keys: [.exceptionMinimumTLSVersion, .temporaryExceptionMinimumTLSVersion,
                                                                             .thirdPartyExceptionMinimumTLSVersion])
        let fs = decided(forwardSecrecy, default: true, keys: [.exceptionRequiresForwardSecrecy, .temporaryExceptionRequiresForwardSecrecy,
                                                               .thirdPartyExceptionRequiresForwardSecrecy])
        var suites = tls.value <= .tls12 ? CipherSuite.atsForwardSecrecy : []
        if !fs.value && tls.value <= .tls12 { suites += CipherSuite.atsRSAKeyExchange }
        suites += CipherSuite.tls13
        let suitesBecause = fs.value
            ? Provenance(keyPath: fs.because.keyPath, rule: "ATS forward-secrecy suites (ECDHE) plus TLS 1.3; \(fs.because.rule)")
            : tls.value > .tls12
            ? Provenance(keyPath: fs.because.keyPath,
                         rule: "TLS 1.3 only, whose suites all have forward secrecy, so NSExceptionRequiresForwardSecrecy = NO adds no suite; \(entryRule)")
            : Provenance(keyPath: fs.because.keyPath, rule: "NSExceptionRequiresForwardSecrecy = NO adds the RSA key-exchange suites; \(entryRule)")
        let relaxed = http.value
        // Apple, NSExceptionAllowsInsecureHTTPLoads: "Using this key doesn't by itself change default server trust
        // evaluation requirements for HTTPS connections": the key sizes stand, and the app may waive them in its own
        // trust handling (`validation == .relaxed`). Only forward secrecy = NO drops them.
        let keyStrength = fs.value
        let ct = certificateTransparency(entry: entry)
        let cert = CertificateRequirements(validation: relaxed ? .relaxed : .standard, requiresATSKeyStrength: keyStrength,
                                           requiresCertificateTransparency: ct.required, certificateTransparencyFromConfiguration: ct.byKey)
        var certRule: Provenance
        if relaxed {
            let rules = fs.value ? "the ATS certificate rules (RSA ≥ 2048 or EC ≥ 256 bits) still apply unless the app waives them"
                : "NSExceptionRequiresForwardSecrecy = NO removes the ATS key-size check"
            certRule = Provenance(keyPath: http.because.keyPath,
                                  rule: "NSExceptionAllowsInsecureHTTPLoads also lets the app loosen server trust evaluation in its own handling; \(rules); \(entryRule)")
        } else if !fs.value {
            certRule = Provenance(keyPath: fs.because.keyPath, rule: "NSExceptionRequiresForwardSecrecy = NO also removes the ATS key-size check; \(entryRule)")
        } else {
            certRule = Provenance(keyPath: entry?.keyPath, rule: "ATS certificate rules: RSA ≥ 2048 or EC ≥ 256 bits, SHA-2 signature")
        }
        if let key = entry?.requiresCertificateTransparency {
            if platform.enforcesCertificateTransparency {
                certRule.rule += "; \(key.key) is obsolete on \(platform) (the system requires Certificate Transparency from iOS 12.1.1 / macOS 10.14.2)"
            } else if key.value {
                certRule.rule += "; \(key.key) = YES requires Certificate Transparency, which \(platform) does not require by itself"
            }
        }
        return ConnectionRequirements(
            url: url, target: target, profile: profile, context: context,
            atsEnforced: Decided(true, entry.map { Provenance(keyPath: $0.keyPath, rule: entryRule) } ?? Provenance(rule: defaultRule)),
            exceptionDomain: entry?.name, allowsInsecureHTTP: http, minimumTLSVersion: tls, requiresForwardSecrecy: fs,
            cipherSuites: Decided(suites, suitesBecause), cipherSuitesRestricted: true,
            certificate: Decided(cert, certRule), pins: pins, notes: notes)
    }

    private func unrestricted(target: ConnectionTarget, url: String, context: LoadContext, because: Provenance,
                              pins: Decided<PinRequirement?>, notes: [String]) -> ConnectionRequirements {
        var notes = notes
        notes.append("without ATS the minimum TLS version and cipher suites are the system client's defaults (this tool assumes TLS 1.0 and the suites listed)")
        let suites = CipherSuite.known.filter { !$0.isRC4 }
        let cert = CertificateRequirements(validation: .standard, requiresATSKeyStrength: false,
                                           requiresCertificateTransparency: certificateTransparency(entry: nil).required)
        return ConnectionRequirements(
            url: url, target: target, profile: profile, context: context,
            atsEnforced: Decided(false, because), exceptionDomain: nil,
            allowsInsecureHTTP: Decided(true, because), minimumTLSVersion: Decided(.tls10, because),
            requiresForwardSecrecy: Decided(false, because), cipherSuites: Decided(suites, because), cipherSuitesRestricted: false,
            certificate: Decided(cert, Provenance(keyPath: because.keyPath, rule: "default server trust evaluation only (\(because.rule))")),
            pins: pins, notes: notes)
    }

    /// Why `key`, written in the dictionary at `parent`, has no value: its type or its value is wrong.
    private func ignoredValue(of key: ATSKey, in parent: PlistKeyPath) -> (keyPath: PlistKeyPath, why: String)? {
        let path = parent.appending(key.rawValue)
        for issue in configuration.issues where issue.keyPath == path {
            switch issue.kind {
            case .wrongType(_, let expected, let found):
                return (path, "\(key.rawValue) is present but is \(found.snippet), not a \(expected), so it is ignored")
            case .invalidValue(_, let value, _, _):
                return (path, "\(key.rawValue) is present but '\(value)' is not one of its values, so it is ignored")
            default:
                continue
            }
        }
        return nil
    }

    /// Certificate Transparency: required by the system from iOS 12.1.1 / macOS 10.14.2
    /// (`ApplePlatform.enforcesCertificateTransparency`) whatever the plist says, and before that only where
    /// NSRequiresCertificateTransparency is YES. `byKey` carries the key to the trust evaluation whatever the release,
    /// since a client's trust platform, not this resolver's, decides whether the system requires CT.
    private func certificateTransparency(entry: ExceptionDomain?) -> (required: Bool, byKey: Bool) {
        let byKey = entry?.requiresCertificateTransparency?.value ?? false
        return (platform.enforcesCertificateTransparency || byKey, byKey)
    }

    private func pinRequirement(for target: ConnectionTarget) -> Decided<PinRequirement?> {
        guard let (entry, sub) = matchingPinnedDomain(for: target) else {
            return Decided(nil, Provenance(rule: "no NSPinnedDomains entry matches"))
        }
        guard profile.supportsPinnedDomains else {
            return Decided(nil, Provenance(keyPath: entry.keyPath,
                                           rule: "NSPinnedDomains is ignored on \(profile); the system reads it from iOS 14 / macOS 11"))
        }
        let pins = PinRequirement(domain: entry.name, includesSubdomains: entry.coversSubdomains,
                                  caIdentities: entry.caIdentities, leafIdentities: entry.leafIdentities)
        return Decided(pins, Provenance(keyPath: entry.keyPath, rule: "pinned domain \(entry.name)\(sub ? " (includes subdomains)" : "")"))
    }
}
