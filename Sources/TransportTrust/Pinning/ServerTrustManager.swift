import Foundation

/// Maps hosts to evaluators, like Alamofire's `ServerTrustManager`, with the host patterns Alamofire lacks.
///
/// - Exact names, names with includeSubdomains (any depth), and OkHttp patterns: `*.example.com` is exactly one
///   extra label, `**.example.com` is any depth including none. See ``HostPattern``.
/// - The most specific match wins: more labels beat fewer, and at equal length exact beats `*.` beats `**.`.
/// - `allHostsMustBeEvaluated` refuses unlisted hosts with a reason; otherwise they get ``defaultEvaluator``.
/// - Hosts compare case-insensitively, without one trailing dot, and as A-labels.
public struct ServerTrustManager: Sendable {
    /// One host pattern and its evaluator.
    public struct Rule: Sendable {
        /// The hosts the rule covers.
        public var pattern: HostPattern
        /// What evaluates the trust of those hosts.
        public var evaluator: any ServerTrustEvaluating

        /// A rule that evaluates the hosts of `pattern` with `evaluator`.
        public init(_ pattern: HostPattern, _ evaluator: any ServerTrustEvaluating) {
            self.pattern = pattern
            self.evaluator = evaluator
        }
    }

    /// When true, a host no rule covers is refused with ``TrustFailureCode/hostNotAllowed``; when false, it gets ``defaultEvaluator``.
    public var allHostsMustBeEvaluated: Bool
    /// The rules; for a host, the one with the most specific matching pattern applies.
    public var rules: [Rule] { didSet { matcher = Self.matcher(rules) } }
    private var matcher: HostMatcher<Rule>
    /// What unlisted hosts get when not every host must be evaluated: system-style chain validation.
    public var defaultEvaluator: any ServerTrustEvaluating

    /// A manager with these rules; by default every host must have one.
    public init(allHostsMustBeEvaluated: Bool = true, rules: [Rule],
                defaultEvaluator: any ServerTrustEvaluating = DefaultTrustEvaluator()) {
        self.allHostsMustBeEvaluated = allHostsMustBeEvaluated
        self.rules = rules
        self.matcher = Self.matcher(rules)
        self.defaultEvaluator = defaultEvaluator
    }

    private static func matcher(_ rules: [Rule]) -> HostMatcher<Rule> { HostMatcher(rules.map { ($0.pattern, $0) }) }

    /// Alamofire's initialiser: keys are host names or patterns (`*.example.com`, `**.example.com`).
    public init(allHostsMustBeEvaluated: Bool = true, evaluators: [String: any ServerTrustEvaluating]) throws(PinConfigurationError) {
        var rules: [Rule] = []
        var seen: [HostPattern: String] = [:]
        for (key, evaluator) in evaluators.sorted(by: { $0.key < $1.key }) {
            let pattern = try HostPattern(key)
            if let other = seen[pattern] {
                throw PinConfigurationError(.invalidHost, "'\(key)' and '\(other)' are the same host pattern (\(pattern))",
                    fix: "Keep one of them: host names compare case-insensitively, without a trailing dot, as A-labels")
            }
            seen[pattern] = key
            rules.append(Rule(pattern, evaluator))
        }
        self.init(allHostsMustBeEvaluated: allHostsMustBeEvaluated, rules: rules)
    }

    /// A manager that pins each configured host with a ``PinSetEvaluator``, after validating the configuration.
    /// Unlisted hosts get chain validation only, unless `allHostsMustBeEvaluated`. A configuration read from an OkHttp
    /// file checks the pins of every pattern that matches the host, as OkHttp does.
    public init(configuration: PinConfiguration, allHostsMustBeEvaluated: Bool = false,
                validation: any ServerTrustEvaluating = DefaultTrustEvaluator(),
                reporter: (any PinFailureReporting)? = nil, app: PinFailureReport.AppInfo = .unknown,
                now: Date = Date()) throws(PinConfigurationError) {
        _ = try configuration.validate(now: now)
        self.init(validatedConfiguration: configuration, allHostsMustBeEvaluated: allHostsMustBeEvaluated, validation: validation,
                  reporter: reporter, app: app)
    }

    /// A manager for a configuration its reader has already validated (``PinConfiguration/validate(now:source:)``),
    /// so that a pin file is validated once.
    package init(validatedConfiguration configuration: PinConfiguration, allHostsMustBeEvaluated: Bool = false,
                 validation: any ServerTrustEvaluating = DefaultTrustEvaluator(),
                 reporter: (any PinFailureReporting)? = nil, app: PinFailureReport.AppInfo = .unknown) {
        let rules = configuration.hosts.map { host in
            let own = PinSetEvaluator(host, validation: validation, reporter: reporter, app: app)
            guard configuration.matching == .everyMatch else { return Rule(host.pattern, own) }
            return Rule(host.pattern, EveryMatchEvaluator(configuration: configuration, own: own))
        }
        self.init(allHostsMustBeEvaluated: allHostsMustBeEvaluated, rules: rules, defaultEvaluator: validation)
    }

    /// OkHttp's matching: the pins of every pattern that matches the trust's host apply, so the set depends on the
    /// host, not only on the pattern that chose this rule. Without a host (basic X.509), the pattern's own set.
    struct EveryMatchEvaluator: ServerTrustEvaluating {
        var configuration: PinConfiguration
        var own: PinSetEvaluator

        func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
            var evaluator = own
            if let host = trust.policy.host, let entry = configuration.entry(for: host.description) { evaluator.pinnedHost = entry }
            return await evaluator.evaluate(trust)
        }
    }

    /// The "medium security" allow-list: CA validation for the listed hosts, and every other host refused
    /// before any data is sent.
    public static func allowList(_ hosts: [String], validation: any ServerTrustEvaluating = DefaultTrustEvaluator()) throws(PinConfigurationError) -> ServerTrustManager {
        var rules: [Rule] = []
        for host in hosts { rules.append(Rule(try HostPattern(host), validation)) }
        return ServerTrustManager(allHostsMustBeEvaluated: true, rules: rules, defaultEvaluator: validation)
    }

    /// The rule that applies to `host`: the most specific match.
    public func rule(forHost host: PeerName) throws(ServerTrustManagerError) -> Rule? {
        CallCounts.count(.hostRule)
        let best = matcher.best(host)?.entry
        if best == nil && allHostsMustBeEvaluated { throw .noRequiredEvaluator(host: host.description) }
        return best
    }

    /// Alamofire's `serverTrustEvaluator(forHost:)`: the evaluator for `host`, nil to use default handling, or an
    /// error when the host is not listed and every host must be evaluated.
    public func serverTrustEvaluator(forHost host: PeerName) throws(ServerTrustManagerError) -> (any ServerTrustEvaluating)? {
        try rule(forHost: host)?.evaluator
    }

    /// What evaluates `host`'s trust: its rule's evaluator, else ``defaultEvaluator``; throws when no rule covers it and
    /// every host must be evaluated. A client chooses it once per host, before connecting, and the handshake uses it.
    package func chosenEvaluator(forHost host: PeerName) throws(ServerTrustManagerError) -> any ServerTrustEvaluating {
        try rule(forHost: host)?.evaluator ?? defaultEvaluator
    }

    /// Whether a connection to `host` may be attempted at all. A client asks this before connecting.
    public func permits(host: PeerName) -> Bool {
        do { return try rule(forHost: host) != nil || !allHostsMustBeEvaluated } catch { return false }
    }

    /// Evaluates `trust` for `host` with the evaluator that applies, refusing unlisted hosts with
    /// ``TrustFailureCode/hostNotAllowed`` when every host must be evaluated. The SSL policy's host is set to `host`.
    public func evaluate(_ trust: ServerTrust, forHost host: PeerName) async -> TrustVerdict {
        let evaluator: any ServerTrustEvaluating
        do { evaluator = try chosenEvaluator(forHost: host) } catch {
            return .refused(TrustFailure(.hostNotAllowed, certificate: nil, error.description))
        }
        var trust = trust
        if case .ssl = trust.policy.kind { trust.policy.kind = .ssl(host) }
        return await evaluator.evaluate(trust)
    }

    // The same, for a host as text: parsed once here, and refused when it is not a host name or address. Package:
    // a user parses the host once, at the boundary, as `PeerName`.

    /// The rule for `host` written as text; throws ``ServerTrustManagerError`` when it is no host name or address,
    /// or when no rule covers it and every host must be evaluated.
    package func rule(forHost host: String) throws(ServerTrustManagerError) -> Rule? {
        try rule(forHost: Self.peer(host))
    }

    /// The evaluator for `host` written as text: its rule's, or ``defaultEvaluator``; as `rule(forHost:)`
    /// it throws for a host that cannot be one or that no rule covers when every host must be evaluated.
    package func serverTrustEvaluator(forHost host: String) throws(ServerTrustManagerError) -> (any ServerTrustEvaluating)? {
        try serverTrustEvaluator(forHost: Self.peer(host))
    }

    /// Whether a connection to `host`, written as text, may go ahead at all: false for text that is no host, and for
    /// a host no rule covers when every host must be evaluated.
    package func permits(host: String) -> Bool {
        guard let peer = try? PeerName(host) else { return false }
        return permits(host: peer)
    }

    /// Evaluates `trust` with the evaluator for `host`, written as text; a host that cannot be one, or that is not
    /// allowed, is a refusal with ``TrustFailureCode/hostNotAllowed``.
    package func evaluate(_ trust: ServerTrust, forHost host: String) async -> TrustVerdict {
        do throws(ServerTrustManagerError) { return await evaluate(trust, forHost: try Self.peer(host)) } catch {
            return .refused(TrustFailure(.hostNotAllowed, certificate: nil, error.description))
        }
    }

    private static func peer(_ host: String) throws(ServerTrustManagerError) -> PeerName {
        do { return try PeerName(host) } catch { throw .invalidHost(host, reason: "\(error)") }
    }
}
