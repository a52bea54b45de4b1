import Foundation

/// Validates the chain, then checks a pin set against the chain that validation built: TrustKit's pinning
/// validator, with ATS's CA/leaf scopes.
///
/// - Enforced sets refuse trust on a mismatch with ``TrustFailureCode/pinMismatch``; the message lists the
///   built chain's actual `sha256/` hashes.
/// - Report-only sets keep the verdict and add a note.
/// - After the set's expiration date nothing is enforced, and a note says so.
/// - An exempt entry (``PinnedHost/isExempt``) checks no pins, and a note says so.
/// - Every failure (a mismatch, or a chain that does not validate) builds a ``PinFailureReport`` for the
///   reporter, when one is given and the set has report URIs.
public struct PinSetEvaluator: ServerTrustEvaluating {
    /// The host pattern the set was configured for (the report's noted-hostname) and the set.
    public var pinnedHost: PinnedHost
    /// The chain validation that runs first and builds the chain the pins are matched against.
    public var validation: any ServerTrustEvaluating
    /// Where pin failures are reported, TrustKit-style; nil for none.
    public var reporter: (any PinFailureReporting)?
    /// The app the reports name.
    public var app: PinFailureReport.AppInfo
    /// The port, for reports.
    public var port: Int
    /// Shared by default; a benchmark or test may give its own.
    package var hashCache: SPKIHashCache = .shared

    /// Gives this evaluator a hash cache of its own with `capacity` entries (0: none), instead of the shared one, so
    /// that a benchmark measures hashing cold or warm on purpose (the Benchmarks package).
    @_spi(Benchmarks) public mutating func useOwnHashCache(capacity: Int) { hashCache = SPKIHashCache(capacity: capacity) }
    /// The time used when the trust has no validation time.
    public var clock: @Sendable () -> Date

    /// Checks `pinnedHost`'s pin set after `validation`, reporting failures to `reporter`.
    ///
    ///  - Parameters:
    ///    - pinnedHost: the host pattern and its pin set.
    ///    - validation: the chain validation that runs first; the default evaluation by default.
    ///    - reporter: where pin failures are reported; nil for none.
    ///    - app: the app the reports name.
    ///    - port: the port the reports name.
    ///    - clock: the time used when the trust has no validation time.
    public init(
        _ pinnedHost: PinnedHost,
        validation: any ServerTrustEvaluating = DefaultTrustEvaluator(),
        reporter: (any PinFailureReporting)? = nil,
        app: PinFailureReport.AppInfo = .unknown,
        port: Int = 443,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.pinnedHost = pinnedHost
        self.validation = validation
        self.reporter = reporter
        self.app = app
        self.port = port
        self.clock = clock
    }

    /// Pins in one scope for whatever host the trust names; for one-off checks and `ats verify --pin`.
    public init(pins: [Pin], scope: PinScope = .any, validation: any ServerTrustEvaluating = DefaultTrustEvaluator()) {
        self.init(pinSet: PinSet(pins, scope: scope), validation: validation)
    }

    /// A pin set for whatever host the trust names, without a configured host pattern.
    public init(pinSet: PinSet, validation: any ServerTrustEvaluating = DefaultTrustEvaluator()) {
        self.init(PinnedHost(HostPattern(canonicalName: "pinned.invalid", kind: .exact), pinSet), validation: validation)
        self.unnamed = true
    }

    /// True when the set was made without a host pattern; messages then name the trust's host only.
    package var unnamed = false

    public func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        var verdict = await validation.evaluate(trust)
        let set = pinnedHost.pinSet
        let time = trust.validationTime ?? clock()
        let host = trust.policy.host?.description ?? (unnamed ? nil : pinnedHost.pattern.name)
        if pinnedHost.isExempt {
            verdict.notes.append("\(host ?? pinnedHost.pattern.name) is exempt from pinning by \(pinnedHost.pattern); the chain was validated only")
            return verdict
        }
        if let expiry = set.expirationDate, set.isExpired(at: time) {
            verdict.notes.append("the pin set for \(pinnedHost.pattern) expired on \(RFC3339.day(expiry)); its pins were not checked")
            return verdict
        }
        // Without a built chain the pins are matched against what the server sent, as SecTrust's chain for an
        // unanchored path is: the verdict is refused either way, but a delegate allowed to accept such a chain
        // (ATS with relaxed validation) must still see whether the pins held. Either way only as far as each
        // certificate is signed by the next: a CA certificate sent beside a leaf it never signed matches no pin.
        let signed = verdict.chain.isEmpty ? TrustVerdict.signedPrefix(of: trust.inputCertificates) : verdict.signedChain
        let chain = hashCache.fingerprints(signed)
        let check = set.check(chain)
        let reportHost = host ?? pinnedHost.pattern.name
        if verdict.failures.contains(where: { $0.code != .pinMismatch }) {
            // The chain itself failed: TrustKit reports this too, as an invalid chain. Another pin set's mismatch
            // (an evaluator composed in `validation`) is not that.
            await send(.failedInvalidCertificateChain, host: reportHost, chain: verdict.chain, time: time)
        }
        guard !check.isMatch else { return verdict }
        let message = set.mismatchMessage(host: host, chain: chain, unmatched: check.unmatchedScopes)
        if set.enforcePinning {
            verdict.failures.append(TrustFailure(.pinMismatch, certificate: nil, message))
        } else {
            verdict.notes.append("report only, not enforced: " + message)
        }
        if verdict.failures.allSatisfy({ $0.code == .pinMismatch }) {
            await send(.failedNoMatchingPin, host: reportHost, chain: verdict.chain, time: time)
        }
        return verdict
    }

    private func send(_ result: PinFailureReport.ValidationResult, host: String, chain: [InputCertificate], time: Date) async {
        guard let reporter, !pinnedHost.pinSet.reportURIs.isEmpty else { return }
        let report = PinFailureReport(app: app, dateTime: time, hostname: host, port: port, noted: pinnedHost.pattern,
                                      pinSet: pinnedHost.pinSet, chain: chain, validationResult: result)
        await reporter.report(report, to: pinnedHost.pinSet.reportURIs)
    }
}
