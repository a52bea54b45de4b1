import Foundation
import TestSupport
import Testing

@testable import TransportTrust

/// How a pin file and directly given pins combine for one host.
@Suite struct PinSourcesTests {
    let a = PinningFixtures.sha256Pin(PKI.root("A")), b = PinningFixtures.sha256Pin(PKI.root("B"))
    let direct = PinningFixtures.unrelated
    static let host = PKI.host("api.example.com")

    func configuration(_ set: PinSet, pattern: String = "example.com", subdomains: Bool = true) throws -> PinConfiguration {
        PinConfiguration([PinnedHost(try HostPattern(pattern, includeSubdomains: subdomains), set)])
    }

    @Test func directPinsAloneApplyToAnyHost() throws {
        let sources = PinSources(pins: PinSet([direct], scope: .leaf))
        let (resolution, notices) = try sources.resolve(for: Self.host)
        #expect(resolution?.pinSet.leafPins == [direct])
        #expect(resolution?.pattern?.name == "api.example.com")
        #expect(notices.isEmpty)
        #expect(try PinSources().resolve(for: Self.host).resolution == nil)
    }

    @Test func directPinsJoinAnEnforcedNonExpiringEntry() throws {
        let sources = PinSources(configuration: try configuration(PinSet([a, b], scope: .any)), pins: PinSet([direct], scope: .any))
        let resolution = try #require(try sources.resolve(for: Self.host).resolution)
        #expect(resolution.pinSet.pins == [a, b, direct])
        #expect(resolution.directPins == nil)
        #expect(resolution.pattern == (try HostPattern("example.com", includeSubdomains: true)))
    }

    @Test(arguments: [false, true])
    func directPinsStayEnforcedBesideAReportOnlyOrExpiringEntry(reportOnly: Bool) throws {
        let set = PinSet([a, b], scope: .any, enforcePinning: !reportOnly, expirationDate: reportOnly ? nil : PKI.now)
        let sources = PinSources(configuration: try configuration(set), pins: PinSet([direct], scope: .any))
        let resolution = try #require(try sources.resolve(for: Self.host).resolution)
        #expect(resolution.pinSet == set)
        #expect(resolution.directPins?.pins == [direct] && resolution.directPins?.enforcePinning == true)
    }

    @Test func aHostTheFileDoesNotCoverOrExemptsIsLeftToTheDirectPins() throws {
        let other = try configuration(PinSet([a, b], scope: .any), pattern: "example.org")
        let (none, notices) = try PinSources(configuration: other, configurationSource: "pins.json").resolve(for: Self.host)
        #expect(none == nil)
        #expect(notices.map(\.description) == ["warning: pins.json pins nothing for api.example.com: none of its patterns (**.example.org) covers it, so its chain is validated only"])

        var exempting = try configuration(PinSet([a, b], scope: .any))
        exempting.hosts.append(.exempt(try HostPattern("api.example.com")))
        let sources = PinSources(configuration: exempting, configurationSource: "tk.plist", pins: PinSet([direct], scope: .any))
        let (onlyDirect, exemptNotices) = try sources.resolve(for: Self.host)
        #expect(onlyDirect?.pinSet.pins == [direct])
        #expect(exemptNotices.first?.description.contains("exempts api.example.com") == true)
        #expect(exemptNotices.first?.description.contains("only the pins given directly are checked") == true)
    }

    @Test func withoutAHostAFileOfManyHostsIsAmbiguous() throws {
        var config = try configuration(PinSet([a, b], scope: .any))
        #expect(try PinSources(configuration: config).resolve(for: nil).resolution?.pinSet.pins == [a, b])
        config.hosts.append(PinnedHost(try HostPattern("example.org"), PinSet([a], scope: .any)))
        #expect(throws: PinConfigurationError.self) { try PinSources(configuration: config).resolve(for: nil) }
    }

    @Test func theEvaluatorChecksSeparateDirectPinsAsWell() async throws {
        let pki = PKI.chain(dns: ["api.example.com"])
        let file = PinSet([PinningFixtures.sha256Pin(pki.intermediate)], scope: .any, enforcePinning: false)
        let sources = PinSources(configuration: try configuration(file), pins: PinSet([direct], scope: .any))
        let evaluator = try #require(try sources.evaluator(for: Self.host, validation: DefaultTrustEvaluator(engine: PinningFixtures.engine)).evaluator)
        let trust = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: PKI.ssl("api.example.com"))
        // The file's report-only set matches; the direct pin does not, and is enforced.
        #expect(await evaluator.evaluate(trust).codes == [.pinMismatch])
    }
}
