import TestSupport
import Foundation
import Testing

@testable import TransportTrust

@Suite struct PinSetEvaluatorTests {
    let pki = PKI.chain()
    var trust: ServerTrust { PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root]) }
    let validation = DefaultTrustEvaluator(engine: PinningFixtures.engine)

    func evaluator(_ set: PinSet, pattern: String = "**.example.com", reporter: RecordingReporter? = nil) throws -> PinSetEvaluator {
        PinSetEvaluator(PinnedHost(try HostPattern(pattern), set), validation: validation, reporter: reporter,
                        app: .init(bundleID: "com.example.app", version: "1.0", platform: "IOS"), port: 8443)
    }

    @Test func matchesTheBuiltChainIncludingARootTheServerDidNotSend() async throws {
        let v = try await evaluator(PinSet([PinningFixtures.sha256Pin(pki.root), PinningFixtures.unrelated], scope: .ca)).evaluate(trust)
        #expect(v.isTrusted, "\(v.failures)")
    }

    @Test func aPinnedCertificateSentButNotOnThePathDoesNotCount() async throws {
        // The attacker's chain: a leaf from another CA, with the pinned intermediate sent alongside.
        let other = PKI.chain()
        let sneaky = PKI.trust([other.leaf, other.intermediate, pki.intermediate], anchors: [pki.root, other.root])
        let v = try await evaluator(PinSet([PinningFixtures.sha256Pin(pki.intermediate), PinningFixtures.unrelated], scope: .any)).evaluate(sneaky)
        #expect(v.codes == [.pinMismatch])
    }

    /// A leaf forged under the pinned CA's name, for another host: refused on its name before any signature is
    /// checked, so its chain is linked by name only. The pinned CA never signed it and must not count as matched,
    /// which a delegate allowed to loosen trust relies on (review-pins F1). The real leaf for another host still
    /// matches: its chain is signed.
    @Test func aCANameTheLeafDoesNotCarryTheSignatureOfMatchesNoPin() async throws {
        let impostor = pki.root.intermediate("Test Intermediate CA")
        #expect(impostor.subject == pki.intermediate.subject)
        let forged = PKI.trust([impostor.leaf(dns: ["other.example.com"]), pki.intermediate], anchors: [pki.root])
        let set = PinSet([PinningFixtures.sha256Pin(pki.intermediate), PinningFixtures.unrelated], scope: .any)
        let v = try await evaluator(set).evaluate(forged)
        #expect(v.codes == [.hostnameMismatch, .pinMismatch], "\(v.failures)")
        let real = PKI.trust([pki.leaf, pki.intermediate], anchors: [pki.root], policy: PKI.ssl("other.example.com"))
        #expect(try await evaluator(set).evaluate(real).codes == [.hostnameMismatch])
    }

    @Test func enforcedMismatchRefusesAndListsTheChainsHashes() async throws {
        let reporter = RecordingReporter()
        var set = PinSet([PinningFixtures.unrelated, PinningFixtures.unrelated2], scope: .any)
        set.reportURIs = ["https://report.example.com/pins"]
        let v = try await evaluator(set, reporter: reporter).evaluate(trust)
        #expect(v.codes == [.pinMismatch])
        let message = try #require(v.failure(.pinMismatch)?.message)
        #expect(message.contains("sha256/" + PinningFixtures.hash(pki.leaf)))
        #expect(message.contains("sha256/" + PinningFixtures.hash(pki.root)))
        let reports = await reporter.received
        #expect(reports.count == 1)
        #expect(reports.first?.0.validationResult == .failedNoMatchingPin)
        #expect(reports.first?.0.hostname == "www.example.com")
        #expect(reports.first?.0.notedHostname == "example.com")
        #expect(reports.first?.0.port == 8443)
        #expect(reports.first?.0.includeSubdomains == true)
        #expect(reports.first?.1 == ["https://report.example.com/pins"])
    }

    @Test func reportOnlyMismatchTrustsAndNotesIt() async throws {
        let reporter = RecordingReporter()
        let set = PinSet([PinningFixtures.unrelated], scope: .any, enforcePinning: false, reportURIs: ["https://r.example/"])
        let v = try await evaluator(set, reporter: reporter).evaluate(trust)
        #expect(v.isTrusted)
        #expect(v.notes.contains { $0.contains("report only") })
        #expect(await reporter.count == 1)
        #expect(await reporter.received.first?.0.enforcePinning == false)
    }

    @Test func noReportWithoutReportURIsOrOnSuccess() async throws {
        let reporter = RecordingReporter()
        _ = try await evaluator(PinSet([PinningFixtures.unrelated, PinningFixtures.unrelated2], scope: .any), reporter: reporter).evaluate(trust)
        _ = try await evaluator(PinSet([PinningFixtures.sha256Pin(pki.leaf), PinningFixtures.unrelated], scope: .any, reportURIs: ["https://r.example/"]),
                                reporter: reporter).evaluate(trust)
        #expect(await reporter.count == 0)
    }

    @Test func anInvalidChainIsReportedAsSuch() async throws {
        let reporter = RecordingReporter()
        let untrusted = PKI.trust([pki.leaf, pki.intermediate], anchors: [PKI.root("Elsewhere")])
        let set = PinSet([PinningFixtures.sha256Pin(pki.leaf), PinningFixtures.unrelated], scope: .any, reportURIs: ["https://r.example/"])
        let v = try await evaluator(set, reporter: reporter).evaluate(untrusted)
        #expect(!v.isTrusted)
        #expect(await reporter.received.map(\.0.validationResult) == [.failedInvalidCertificateChain])
    }

    @Test func anExpiredSetStopsEnforcingAndSaysSo() async throws {
        let expired = try #require(PinDates.parseDay("2020-01-01"))
        let v = try await evaluator(PinSet([PinningFixtures.unrelated, PinningFixtures.unrelated2], scope: .any, expirationDate: expired)).evaluate(trust)
        #expect(v.isTrusted)
        #expect(v.notes.contains { $0.contains("expired on 2020-01-01") })
        // Before expiry the same set refuses.
        let live = try await evaluator(PinSet([PinningFixtures.unrelated, PinningFixtures.unrelated2], scope: .any, expirationDate: PKI.notAfter)).evaluate(trust)
        #expect(live.codes == [.pinMismatch])
    }

    @Test func chainFailuresAndPinFailuresAreBothListed() async throws {
        let untrusted = PKI.trust([pki.leaf, pki.intermediate], anchors: [PKI.root("Elsewhere")])
        let v = try await evaluator(PinSet([PinningFixtures.unrelated, PinningFixtures.unrelated2], scope: .any)).evaluate(untrusted)
        #expect(v.codes.contains(.pinMismatch))
        #expect(v.codes.contains(.unknownIssuer))
    }

    @Test func pinsAloneForTheTrustsHost() async {
        let v = await PinSetEvaluator(pins: [PinningFixtures.sha256Pin(pki.leaf)], scope: .leaf, validation: validation).evaluate(trust)
        #expect(v.isTrusted)
        let w = await PinSetEvaluator(pins: [PinningFixtures.sha256Pin(pki.leaf)], scope: .ca, validation: validation).evaluate(trust)
        #expect(w.codes == [.pinMismatch])
        #expect(w.failures.first?.message.contains("pinned.invalid") == false)
    }

    @Test func hashesOfAChainSeenBeforeComeFromTheCache() async {
        let cache = SPKIHashCache()
        var e = PinSetEvaluator(PinnedHost(try! HostPattern("www.example.com"), PinSet([PinningFixtures.sha256Pin(pki.root)], scope: .any)),
                                validation: validation)
        e.hashCache = cache
        _ = await e.evaluate(trust)
        let cold = cache.statistics
        #expect(cold.misses == 3)
        _ = await e.evaluate(trust)
        #expect(cache.statistics.hits == cold.hits + 3)
        #expect(cache.statistics.misses == 3)
    }

    /// Pin sets composed one inside the other (as `--pin` beside a report-only `--pin-file`): a mismatch of the inner
    /// set is not reported by the outer one as an invalid chain.
    @Test func anInnerSetsMismatchIsNotReportedAsAnInvalidChain() async throws {
        let reporter = RecordingReporter()
        let inner = PinSetEvaluator(pinSet: PinSet([PinningFixtures.unrelated], scope: .any), validation: validation)
        let outer = PinSetEvaluator(PinnedHost(try HostPattern("**.example.com"),
                                               PinSet([PinningFixtures.sha256Pin(pki.root)], scope: .any, enforcePinning: false, reportURIs: ["https://r.example/"])),
                                    validation: inner, reporter: reporter)
        let v = await outer.evaluate(trust)
        #expect(v.codes == [.pinMismatch])
        #expect(await reporter.count == 0)
    }
}
