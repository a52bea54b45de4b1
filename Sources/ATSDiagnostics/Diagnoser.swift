import AppTransportSecurity
import Foundation
import NIOConcurrencyHelpers
import TransportClient
import TransportTrust

/// A URL or option a diagnosis cannot start with; reported before any connection, exit status 2.
public struct DiagnosisInputError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// An input error that says what was wrong, in words.
    package init(_ description: String) { self.description = description }
}

/// What every test of a diagnosis shares.
public struct DiagnosisOptions: Sendable {
    /// Whose ATS rules the tests apply; the newest by default.
    public var profile: PlatformProfile
    /// The roots chains must reach (system roots by default).
    public var anchors: TrustAnchors
    /// The limit for each test's whole request; tests of one host run in parallel, so a host costs about this.
    public var timeout: Duration
    /// Host, or `host:port`, → IP literal to connect to, as curl's `--resolve` (see
    /// `HTTPSClientConfiguration.addressOverrides`).
    public var addressOverrides: [String: String]
    /// The time certificates are checked at; nil is now.
    public var validationTime: Date?
    /// Certificate Transparency, as the client applies it.
    public var certificateTransparency = CertificateTransparencyOptions()
    /// The Apple release whose TLS server rules the chain must meet (`TrustPolicy.platform`).
    public var platform: ApplePlatform

    /// Options for a diagnosis; the defaults are the newest rules, the system roots and 10 seconds per test.
    public init(profile: PlatformProfile = .newest, anchors: TrustAnchors = .system, timeout: Duration = .seconds(10),
                addressOverrides: [String: String] = [:], validationTime: Date? = nil, platform: ApplePlatform = .newest) {
        self.profile = profile
        self.platform = platform
        self.anchors = anchors
        self.timeout = timeout
        self.addressOverrides = addressOverrides
        self.validationTime = validationTime
    }
}

/// `nscurl --ats-diagnostics`, on any platform.
///
/// Every test is an ATS dictionary handed to AppTransportSecurity's resolver and sent through `HTTPSClient`'s
/// real request path, the same as `ats fetch --plist`, so a PASS here is exactly a load the client accepts.
public struct Diagnoser: Sendable {
    /// What every test of a diagnosis shares.
    public var options: DiagnosisOptions

    /// A diagnoser with these options.
    public init(options: DiagnosisOptions = DiagnosisOptions()) { self.options = options }

    /// Checks that `url` can be diagnosed: an absolute http(s) URL with a host and a valid port, and no whitespace or
    /// control characters.
    @discardableResult
    public static func validate(url: String) throws(DiagnosisInputError) -> (host: String, port: Int) {
        let target = try target(url: url)
        return (target.host, target.port)
    }

    /// `url` parsed once and checked as ``validate(url:)`` checks it: the target every test of a diagnosis is sent to.
    package static func target(url: String) throws(DiagnosisInputError) -> ConnectionTarget {
        if let problem = URLText.problem(in: url) {
            throw DiagnosisInputError("\(url.debugDescription) cannot be diagnosed: it has \(problem)")
        }
        let target: ConnectionTarget
        do throws(RequirementsError) { target = try ConnectionTarget(url: url) } catch {
            throw DiagnosisInputError("'\(url)' cannot be diagnosed: \(error)")
        }
        // The scheme as written: the target reads ws and wss as http and https, which nscurl does not test.
        guard let scheme = URLText.scheme(of: url), scheme == "https" || scheme == "http" else {
            throw DiagnosisInputError("'\(url)' cannot be diagnosed: use an https:// (or http://) URL")
        }
        guard (1...65535).contains(target.port) else {
            throw DiagnosisInputError("'\(url)': port \(target.port) is out of range (1–65535)")
        }
        return target
    }

    /// The NSExceptionDomains key that names the target's host: written with a trailing dot when the URL's host is,
    /// since Apple matches `example.com.` only to a host written so.
    static func entryName(_ target: ConnectionTarget) -> String {
        target.isAbsolute ? target.host + "." : target.host
    }

    /// Runs every test against `url`, in parallel, and works out the chain and the recommendation.
    public func diagnose(url: String) async throws(DiagnosisInputError) -> HostDiagnosis {
        let target = try Self.target(url: url)
        let (host, port) = (target.host, target.port)
        let clock = ContinuousClock()
        let start = clock.now
        let tested = await withTaskGroup(of: (Int, TestOutcome).self) { group in
            for (index, test) in ATSTestCase.all.enumerated() {
                group.addTask { (index, await self.run(test, url: url, target: target)) }
            }
            var collected: [(Int, TestOutcome)] = []
            for await item in group { collected.append(item) }
            return collected.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let outcomes = await settleUntestable(tested, host: host, port: port)
        return HostDiagnosis(url: url, host: host, port: port, profile: options.profile, platform: options.platform.description,
                             trustStore: options.anchors.trustStore.rawValue,
                             trustStoreVersion: options.anchors.trustStore == .apple ? AppleTrustStore.shared.version : nil, tests: outcomes,
                             chain: ChainReport.entries(host: host, outcomes: outcomes),
                             certificateTransparency: ChainReport.verdict(outcomes)?.certificateTransparency,
                             certificateTransparencyStatus: options.certificateTransparency.status(at: options.validationTime ?? Date()),
                             recommendation: Recommendation.choose(host: Self.entryName(target), outcomes: outcomes),
                             untestableSuites: Self.untestableSuites(target: target, url: url, profile: options.profile, outcomes: outcomes),
                             milliseconds: (clock.now - start).milliseconds)
    }

    /// One test: one request with the test's ATS dictionary, exactly as the client sends any request.
    /// - Throws: ``DiagnosisInputError`` when `url` cannot be diagnosed, as ``validate(url:)`` says.
    public func run(_ test: ATSTestCase, url: String) async throws(DiagnosisInputError) -> TestOutcome {
        await run(test, url: url, target: try Self.target(url: url))
    }

    /// One test on a target already parsed from `url`: the request carries it, so the client does not parse it again.
    func run(_ test: ATSTestCase, url: String, target: ConnectionTarget) async -> TestOutcome {
        let host = target.host
        let dictionary = test.relaxation.dictionary(host: Self.entryName(target))
        // Every hop's chain, so that a failure at a redirect target shows that server's chain, not the first one's.
        let presented = NIOLockedValueBox<[Hop]>([])
        let client = HTTPSClient(configuration: clientConfiguration(dictionary, recordingChainsIn: presented))
        let clock = ContinuousClock()
        let start = clock.now
        var outcome = TestOutcome(test: test, result: .fail, dictionary: PlistValueJSON.object(dictionary), milliseconds: 0)
        do throws(TransportError) {
            var request = HTTPRequest(url: url)
            request.parsedTarget = target
            let response = try await client.stream(request)
            await Self.record(response, host: host, into: &outcome)
        } catch {
            record(error, client: client, url: url, target: target, into: &outcome)
        }
        await client.shutdown()
        outcome.presented = Self.chain(of: presented.withLockedValue { $0 }, redirectTarget: outcome.failure?.redirectTarget)
        outcome.milliseconds = (clock.now - start).milliseconds
        return outcome
    }

    /// One server's chain, as sent to one hop of a request.
    private typealias Hop = (host: String, port: Int, chain: [[UInt8]])

    /// The client of one test: the test's ATS dictionary and the diagnosis' options, every chain sent kept in `hops`.
    private func clientConfiguration(_ dictionary: [String: PlistValue], recordingChainsIn hops: NIOLockedValueBox<[Hop]>) -> HTTPSClientConfiguration {
        var configuration = HTTPSClientConfiguration(
            ats: .configuration(ATSConfiguration(dictionary: dictionary), profile: options.profile),
            anchors: options.anchors, validationTime: options.validationTime,
            // Default handling, as a URLSession delegate that does not implement the challenge; it only looks
            // at the certificates the server sent, for the chain report.
            challengeHandler: { challenge in
                if let info = challenge.serverTrust {
                    let space = challenge.protectionSpace
                    hops.withLockedValue { $0.append((space.host, space.port, info.presentedCertificates)) }
                }
                return .performDefaultHandling
            },
            timeouts: Timeouts(connect: options.timeout, handshake: options.timeout, request: options.timeout),
            addressOverrides: options.addressOverrides, maximumIdleConnectionsPerHost: 0)
        configuration.certificateTransparency = options.certificateTransparency
        configuration.platform = options.platform
        return configuration
    }

    /// A response: the test passes once the body has been read, as nscurl waits for didCompleteWithError too.
    private static func record(_ response: StreamingHTTPResponse, host: String, into outcome: inout TestOutcome) async {
        do {
            for try await _ in response.body {}
            outcome.result = .pass
            outcome.status = Int(response.status.code)
        } catch let error as TransportError {
            outcome.failure = TestFailure(error)
        } catch {
            outcome.failure = TestFailure(TransportError(.connectionClosed, phase: .response, host: host, port: 0, "\(error)"))
        }
        outcome.tlsVersion = response.connection.handshake?.tlsVersion?.rawValue
        outcome.cipherSuite = response.connection.handshake?.cipherSuite
        outcome.alpn = response.connection.alpn
        outcome.verdict = response.connection.verdict
    }

    /// A request that failed: where (the target or a redirect), and whether this verifier could decide it at all.
    private func record(_ error: TransportError, client: HTTPSClient, url: String, target asked: ConnectionTarget, into outcome: inout TestOutcome) {
        outcome.failure = TestFailure(error)
        // A refused or endless redirect is decided before the target is reached: it is not the target's failure.
        if ![.redirectRefused, .tooManyRedirects].contains(error.kind),
           error.host.lowercased() != asked.host.lowercased() || (error.port != 0 && error.port != asked.port) {
            outcome.failure?.redirectTarget = RedirectTarget(host: error.host, port: error.port == 0 ? nil : error.port)
        }
        outcome.tlsVersion = error.handshake?.tlsVersion?.rawValue
        outcome.cipherSuite = error.handshake?.cipherSuite
        outcome.verdict = error.verdict
        outcome.unofferedSuites = unofferedSuites(error, client: client, url: url)
        if let reason = Self.undecidedTransparency(error.verdict) ?? Self.undecidedAlgorithm(error.verdict) {
            outcome.result = .notTestable
            outcome.notTestableReason = reason
        }
    }

    /// The chain the report shows: a redirect target's when the load failed there (none when it failed before a chain
    /// was sent), else the first server's.
    private static func chain(of hops: [Hop], redirectTarget target: RedirectTarget?) -> [[UInt8]] {
        guard let target else { return hops.first?.chain ?? [] }
        return hops.last { $0.host.lowercased() == target.host.lowercased() && (target.port == nil || $0.port == target.port) }?.chain ?? []
    }

    /// Why a load refused only for CT cannot be decided here: the certificate embeds no SCTs, and the server may send
    /// them in the TLS extension or a stapled OCSP response, which swift-nio-ssl does not expose.
    static func undecidedTransparency(_ verdict: TrustVerdict?) -> String? {
        guard let verdict, verdict.certificateTransparency?.status == .noEmbeddedSCTs,
              verdict.failures.allSatisfy({ $0.code == .certificateTransparency }) else { return nil }
        return "the certificate embeds no SCTs; an iPhone also accepts SCTs the server sends in the TLS handshake or a stapled OCSP response, which cannot be read through swift-nio-ssl, so whether it meets Apple's CT policy cannot be decided here"
    }

    /// Why a load refused only for a key or algorithm this verifier cannot check (an RSA-1024 key that iOS 12 accepts
    /// where ATS does not apply) cannot be decided here: the chain is refused fail-closed, but an iPhone may load it.
    static func undecidedAlgorithm(_ verdict: TrustVerdict?) -> String? {
        guard let verdict, let first = verdict.failures.first,
              verdict.failures.allSatisfy(\.isVerifierLimitation) else { return nil }
        return "\(first.message); whether an iPhone trusts it cannot be decided here"
    }

    /// The allowed suites this client could not offer, when a test failed because the server accepted none of the
    /// offered ones: only then might Apple's client have succeeded where we failed.
    private func unofferedSuites(_ error: TransportError, client: HTTPSClient, url: String) -> [CipherSuite] {
        guard error.kind == .atsRefused || error.kind == .tlsFailure, error.phase == .handshake, error.handshake?.cipherSuite == nil,
              error.message.contains("none of the offered cipher suites"),
              let requirements = try? client.requirements(for: url) else { return [] }
        return HTTPSClient.unofferable(requirements.cipherSuites.value)
    }

    /// Settles the tests that failed on suite negotiation with suites we cannot offer, by asking the server with bare
    /// ClientHellos. A suite it picks settles every test that allows it: NOT TESTABLE (Apple's client might load it).
    /// The pick says nothing about the suites it passed over (it may only prefer the one it picked), so the rest are
    /// asked again without it, until the server refuses them all (those FAILs stand) or gives no clear answer. All the
    /// asking shares one `timeout`, so a host still costs about two.
    func settleUntestable(_ outcomes: [TestOutcome], host: String, port: Int) async -> [TestOutcome] {
        let override = AddressOverrides.address(in: options.addressOverrides, host: host, port: port)
        let clock = ContinuousClock()
        let deadline = clock.now + options.timeout
        return await Self.settleUntestable(outcomes) { suites in
            let left = deadline - clock.now
            guard left > .zero else { return .unknown("no answer in time") }
            return await SuiteProbe.probe(host: host, port: port, override: override, suites: suites, timeout: left)
        }
    }

    /// ``settleUntestable(_:host:port:)`` with the asking handed in.
    static func settleUntestable(_ outcomes: [TestOutcome], ask: ([CipherSuite]) async -> SuiteProbe.Answer) async -> [TestOutcome] {
        var settled = outcomes
        var pending = outcomes.indices.filter { !outcomes[$0].unofferedSuites.isEmpty }
        var picked: [CipherSuite] = []
        // Each pick settles at least one pending test (it was asked for by one), so this asks at most once per test.
        while !pending.isEmpty {
            var asked: [CipherSuite] = []
            for suite in pending.flatMap({ outcomes[$0].unofferedSuites }) where !asked.contains(suite) && !picked.contains(suite) {
                asked.append(suite)
            }
            let answer = await ask(asked)
            if case .accepts(let suite) = answer, asked.contains(suite) {
                picked.append(suite)
                for i in pending where outcomes[i].unofferedSuites.contains(suite) {
                    settled[i].result = .notTestable
                    settled[i].notTestableReason = takesReason(suite, test: outcomes[i].test)
                }
                pending.removeAll { outcomes[$0].unofferedSuites.contains(suite) }
                continue
            }
            for i in pending {
                let own = outcomes[i].unofferedSuites.map(\.name).joined(separator: ", ")
                switch answer {
                case .refuses:
                    let passedOver = picked.isEmpty ? "" : " (it picked only \(picked.map(\.name).joined(separator: ", ")), which this dictionary does not allow)"
                    settled[i].failure?.reasons.append("a bare ClientHello offering \(own) (which BoringSSL cannot offer) was refused too\(passedOver), so the FAIL stands")
                case .accepts(let suite):
                    settled[i].result = .notTestable
                    settled[i].notTestableReason = "the server accepted none of the suites offered here; this dictionary also allows \(own), which BoringSSL cannot offer, and asking the server about them gave no clear answer (it chose \(suite.name), which was not offered)"
                case .unknown(let why):
                    settled[i].result = .notTestable
                    settled[i].notTestableReason = "the server accepted none of the suites offered here; this dictionary also allows \(own), which BoringSSL cannot offer, and asking the server about them gave no clear answer (\(why))"
                }
            }
            pending = []
        }
        return settled
    }

    /// Why a test is NOT TESTABLE when the server takes `suite`, which its dictionary allows.
    static func takesReason(_ suite: CipherSuite, test: ATSTestCase) -> String {
        let shown = "the server accepted none of the suites offered here, but a bare ClientHello shows it takes \(suite.name)"
        guard test.relaxation.allowsArbitraryLoads else { return "\(shown), which ATS allows and BoringSSL cannot offer" }
        // Apple's NSAllowsArbitraryLoads page only says ATS restrictions are lifted (default trust evaluation stays);
        // it names no suites, so what a Mac would offer here is not documented.
        return "\(shown), which BoringSSL cannot offer; NSAllowsArbitraryLoads turns ATS's suite list off, and Apple does not document which suites its client then offers, so whether a Mac loads it cannot be told here"
    }

    /// The suites ATS allows that this client cannot offer: the default dictionary's, then those of any test that
    /// failed on suite negotiation with them allowed (forward secrecy off adds RSA ones), which mattered there.
    static func untestableSuites(target: ConnectionTarget, url: String, profile: PlatformProfile, outcomes: [TestOutcome]) -> [String] {
        let defaults = ATSPolicy.default(profile: profile).requirements(for: target, url: url, on: profile.newestRelease).cipherSuites.value
        var names = HTTPSClient.unofferable(defaults).map(\.name)
        for suite in outcomes.flatMap(\.unofferedSuites) where !names.contains(suite.name) { names.append(suite.name) }
        return names
    }
}

extension Duration {
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
