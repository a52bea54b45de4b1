import AppTransportSecurity
import TestSupport
import Testing

@testable import TransportTrust

@Suite struct ServerTrustManagerTests {
    /// An evaluator that only says who it is.
    struct Named: ServerTrustEvaluating {
        var name: String
        func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
            TrustVerdict(anchor: nil, chain: [], failures: [TrustFailure(.policy, certificate: nil, name)])
        }
    }

    func name(_ m: ServerTrustManager, _ host: String) throws -> String? {
        (try m.serverTrustEvaluator(forHost: host) as? Named)?.name
    }

    @Test func theMostSpecificPatternWins() throws {
        let m = try ServerTrustManager(evaluators: [
            "example.com": Named(name: "exact-apex"),
            "**.example.com": Named(name: "any-depth"),
            "*.example.com": Named(name: "one-label"),
            "api.example.com": Named(name: "exact-api"),
            "**.eu.example.com": Named(name: "eu"),
        ])
        #expect(try name(m, "example.com") == "exact-apex")
        #expect(try name(m, "www.example.com") == "one-label")
        #expect(try name(m, "api.example.com") == "exact-api")
        #expect(try name(m, "a.b.example.com") == "any-depth")
        #expect(try name(m, "eu.example.com") == "eu")
        #expect(try name(m, "x.y.eu.example.com") == "eu")
        #expect(try name(m, "API.Example.COM.") == "exact-api")
    }

    @Test func unlistedHostsAreRefusedWhenAllMustBeEvaluated() async throws {
        let m = try ServerTrustManager(evaluators: ["example.com": Named(name: "x")])
        #expect(throws: ServerTrustManagerError.noRequiredEvaluator(host: "other.com")) { try m.serverTrustEvaluator(forHost: "Other.com") }
        #expect(!m.permits(host: "other.com"))
        let v = await m.evaluate(PKI.trust([PKI.chain().leaf], anchors: []), forHost: "other.com")
        #expect(v.codes == [.hostNotAllowed])
        #expect(v.failures.first?.message.contains("other.com") == true)

        let lax = try ServerTrustManager(allHostsMustBeEvaluated: false, evaluators: ["example.com": Named(name: "x")])
        #expect(try lax.serverTrustEvaluator(forHost: "other.com") == nil)
        #expect(lax.permits(host: "other.com"))
    }

    @Test func duplicatePatternsAreRefused() {
        #expect(throws: PinConfigurationError.self) {
            try ServerTrustManager(evaluators: ["Example.com": Named(name: "a"), "example.com.": Named(name: "b")])
        }
    }

    @Test func allowListModeValidatesListedHostsAndRefusesTheRest() async throws {
        let pki = PKI.chain(dns: ["www.example.com", "api.example.com"])
        let m = try ServerTrustManager.allowList(["www.example.com", "*.example.com"], validation: DefaultTrustEvaluator(engine: PinningFixtures.engine))
        #expect(m.permits(host: "api.example.com"))
        #expect(!m.permits(host: "example.org"))
        #expect(!m.permits(host: "not a host"))
        let trust = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: PKI.ssl(nil))
        #expect(await m.evaluate(trust, forHost: "api.example.com").isTrusted)
        #expect(await m.evaluate(trust, forHost: "evil.org").codes == [.hostNotAllowed])
    }

    @Test func theManagerSetsTheHostItEvaluatesFor() async throws {
        let pki = PKI.chain()
        let m = try ServerTrustManager.allowList(["**.example.com"], validation: DefaultTrustEvaluator(engine: PinningFixtures.engine))
        let trust = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: PKI.ssl(nil))
        #expect(await m.evaluate(trust, forHost: "www.example.com").isTrusted)
        #expect(await m.evaluate(trust, forHost: "mail.example.com").codes.contains(.hostnameMismatch))
    }

    @Test func aPinConfigurationBecomesPinSetEvaluators() async throws {
        let pki = PKI.chain()
        let config = PinConfiguration([
            PinnedHost(try HostPattern("**.example.com"), PinSet([PinningFixtures.sha256Pin(pki.intermediate), PinningFixtures.unrelated], scope: .ca)),
            PinnedHost(try HostPattern("www.example.com"), PinSet([PinningFixtures.unrelated, PinningFixtures.unrelated2], scope: .any)),
        ])
        let m = try ServerTrustManager(configuration: config, validation: DefaultTrustEvaluator(engine: PinningFixtures.engine), now: PKI.now)
        let trust = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: PKI.ssl(nil))
        // www.example.com has its own, more specific, set that does not match.
        #expect(await m.evaluate(trust, forHost: "www.example.com").codes == [.pinMismatch])
        // An unlisted host falls back to validation alone (not all hosts must be evaluated).
        #expect(m.permits(host: "example.org"))
        // An invalid configuration is refused up front.
        let bad = PinConfiguration([PinnedHost(try HostPattern("example.com"), PinSet([PinningFixtures.unrelated], scope: .any))])
        #expect(throws: PinConfigurationError.self) { try ServerTrustManager(configuration: bad, now: PKI.now) }
    }

    /// An exempt entry shadows the broader pinned one: its host's chain is validated only, and the verdict says so.
    @Test func anExemptEntryIsValidatedOnly() async throws {
        let pki = PKI.chain(dns: ["www.example.com", "api.example.com"])
        let config = PinConfiguration([
            PinnedHost(try HostPattern("**.example.com"), PinSet([PinningFixtures.unrelated, PinningFixtures.unrelated2], scope: .any)),
            .exempt(try HostPattern("api.example.com")),
        ])
        let m = try ServerTrustManager(configuration: config, validation: DefaultTrustEvaluator(engine: PinningFixtures.engine), now: PKI.now)
        let trust = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: PKI.ssl(nil))
        let api = await m.evaluate(trust, forHost: "api.example.com")
        #expect(api.isTrusted)
        #expect(api.notes.contains { $0.contains("api.example.com is exempt from pinning") })
        #expect(await m.evaluate(trust, forHost: "www.example.com").codes == [.pinMismatch])
    }

    /// A configuration read from OkHttp lines checks the pins of every pattern that matches the host.
    @Test func anOkHttpConfigurationChecksEveryMatchingPattern() async throws {
        let pki = PKI.chain(dns: ["www.example.com", "api.example.com"])
        let text = "**.example.com \(PinningFixtures.sha256Pin(pki.intermediate))\napi.example.com \(PinningFixtures.unrelated)\n"
        let config = try PinConfigurationFormat.read(Array(text.utf8), source: "pins.txt").configuration
        let m = try ServerTrustManager(configuration: config, validation: DefaultTrustEvaluator(engine: PinningFixtures.engine), now: PKI.now)
        let trust = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: PKI.ssl(nil))
        let api = await m.evaluate(trust, forHost: "api.example.com")
        #expect(api.isTrusted, "\(api.failures)")
        var most = config
        most.matching = .mostSpecific
        let strict = try ServerTrustManager(configuration: most, validation: DefaultTrustEvaluator(engine: PinningFixtures.engine), now: PKI.now)
        #expect(await strict.evaluate(trust, forHost: "api.example.com").codes == [.pinMismatch])
    }
}
