import Foundation

/// Pins for one host from two sources, a pin configuration (a file) and pins given directly, merged the way a
/// command line or an app combining the two expects.
///
/// - A host the configuration does not cover, or exempts, is left unpinned by it, as ATS, TrustKit, OkHttp and
///   Android all treat such a host: its chain is validated only, or only the direct pins are checked.
/// - The configuration's entry for the host gives the pattern, enforcement, expiry and report URIs.
/// - Direct pins join an enforced entry without an expiration date (any pin passes). Otherwise they form an
///   enforced set of their own, checked first, so that they never become report-only or expire with the file's.
///
/// The configuration is taken as given: validate it first (``PinConfiguration/validate(now:source:)``), as its
/// own system would at start-up.
package struct PinSources: Sendable {
    /// The pin file's configuration, if any.
    package var configuration: PinConfiguration?
    /// Where the configuration came from, for notices and errors.
    package var configurationSource: String
    /// Pins given directly: always enforced, never expiring.
    package var pins: PinSet

    /// A pin file, with the name its notices use for it, and pins given directly.
    ///
    ///  - Parameters:
    ///    - configuration: the pin file's configuration, if there is one.
    ///    - configurationSource: how notices name the file.
    ///    - pins: pins given directly, which apply to every host.
    package init(configuration: PinConfiguration? = nil, configurationSource: String = "the pin configuration", pins: PinSet = PinSet()) {
        self.configuration = configuration
        self.configurationSource = configurationSource
        self.pins = pins
    }

    /// What applies to one host.
    package struct Resolution: Sendable, Equatable {
        /// The pattern the pins were configured for; nil for direct pins alone without a host.
        package var pattern: HostPattern?
        /// The pins that apply.
        package var pinSet: PinSet
        /// Direct pins that could not join ``pinSet`` without being weakened, checked on their own.
        package var directPins: PinSet?
    }

    /// Something a user should know about how the sources were combined.
    package enum Notice: Sendable, Equatable, CustomStringConvertible {
        /// The configuration covers the host with none of its patterns.
        case notCovered(source: String, host: String, patterns: String, directPinsOnly: Bool)
        /// The configuration covers the host with an entry that exempts it from pinning.
        case exempt(source: String, host: String, pattern: HostPattern, directPinsOnly: Bool)

        package var description: String {
            switch self {
            case .notCovered(let source, let host, let patterns, let direct):
                return "warning: \(source) pins nothing for \(host): none of its patterns (\(patterns)) covers it, so \(Self.rest(direct))"
            case .exempt(let source, let host, let pattern, let direct):
                return "note: \(source) exempts \(host) from pinning (\(pattern)), so \(Self.rest(direct))"
            }
        }

        private static func rest(_ directPinsOnly: Bool) -> String {
            directPinsOnly ? "only the pins given directly are checked" : "its chain is validated only"
        }
    }

    /// What the sources pin for `host` (nil: the one host the configuration pins), or nil when they pin nothing for
    /// it, with the notices that explain why.
    /// - Throws: ``PinConfigurationError/Code/invalidHost`` when no host is given and the configuration pins several.
    package func resolve(for host: PeerName?) throws(PinConfigurationError) -> (resolution: Resolution?, notices: [Notice]) {
        let pattern = host.map { HostPattern(canonicalName: $0.description, kind: .exact) }
        let direct = pins.allPins.isEmpty ? nil : Resolution(pattern: pattern, pinSet: pins)
        guard let configuration else { return (direct, []) }
        let entry: PinnedHost?
        if let host { entry = configuration.entry(for: host.description) } else { entry = configuration.hosts.count == 1 ? configuration.hosts.first : nil }
        guard let entry else {
            guard let host else {
                throw PinConfigurationError(.invalidHost, source: configurationSource,
                    "it pins \(configuration.hosts.count) hosts (\(Self.patterns(configuration)))",
                    fix: "Name the host to check, to choose one")
            }
            return (direct, [.notCovered(source: configurationSource, host: host.description, patterns: Self.patterns(configuration),
                                         directPinsOnly: direct != nil)])
        }
        if entry.isExempt {
            return (direct, [.exempt(source: configurationSource, host: host?.description ?? entry.pattern.name, pattern: entry.pattern,
                                     directPinsOnly: direct != nil)])
        }
        let file = entry.pinSet
        guard direct != nil else { return (Resolution(pattern: entry.pattern, pinSet: file), []) }
        guard file.enforcePinning && file.expirationDate == nil else {
            return (Resolution(pattern: entry.pattern, pinSet: file, directPins: pins), [])
        }
        var merged = file
        for scope in PinScope.allCases { merged[scope] += pins[scope] }
        return (Resolution(pattern: entry.pattern, pinSet: merged), [])
    }

    /// A pin-set evaluator that runs `validation` first, or nil when the sources pin nothing for `host`. Direct pins
    /// that form a set of their own are checked between validation and the configuration's set.
    package func evaluator(for host: PeerName?, validation: any ServerTrustEvaluating = DefaultTrustEvaluator())
        throws(PinConfigurationError) -> (evaluator: PinSetEvaluator?, notices: [Notice])
    {
        let (resolution, notices) = try resolve(for: host)
        guard let resolution else { return (nil, notices) }
        let first: any ServerTrustEvaluating = resolution.directPins.map { PinSetEvaluator(pinSet: $0, validation: validation) } ?? validation
        let evaluator = resolution.pattern.map { PinSetEvaluator(PinnedHost($0, resolution.pinSet), validation: first) }
            ?? PinSetEvaluator(pinSet: resolution.pinSet, validation: first)
        return (evaluator, notices)
    }

    /// The patterns of `configuration` for a message, at most `limit` of them: a pin file can hold thousands.
    static func patterns(_ configuration: PinConfiguration, limit: Int = 8) -> String {
        let shown = configuration.hosts.prefix(limit).map(\.pattern.description).joined(separator: ", ")
        return configuration.hosts.count > limit ? "\(shown) and \(configuration.hosts.count - limit) more" : shown
    }
}
