import TestSupport
import Foundation
import Testing

@testable import TransportTrust

/// TrustKit's configuration checks, as errors (and one warning).
@Suite struct PinnedHostTests {
    let a = PinningFixtures.unrelated, b = PinningFixtures.unrelated2

    func host(_ name: String, sub: Bool = false, _ set: PinSet) throws(PinConfigurationError) -> PinnedHost { PinnedHost(try HostPattern(name, includeSubdomains: sub), set) }

    @Test func anEnforcedSetNeedsABackupPin() throws {
        do {
            _ = try host("example.com", PinSet([a], scope: .any)).validate(now: PKI.now)
            Issue.record("one enforced pin was accepted")
        } catch { #expect(error.code == .missingBackupPin); #expect(error.fix.contains("backup")) }
        // The same pin twice is still one pin.
        #expect(throws: PinConfigurationError.self) { try host("example.com", PinSet([a, a], scope: .any)).validate(now: PKI.now) }
        #expect(try host("example.com", PinSet([a, b], scope: .any)).validate(now: PKI.now).isEmpty)
        // Report-only: allowed, with a warning.
        let w = try host("example.com", PinSet([a], scope: .any, enforcePinning: false)).validate(now: PKI.now)
        #expect(w.map(\.code) == [.noBackupPin])
    }

    @Test func aHashMustBe32Bytes() throws {
        do {
            _ = try host("example.com", PinSet([.spkiSHA256([1, 2, 3]), b], scope: .any)).validate(now: PKI.now)
            Issue.record("a 3-byte hash was accepted")
        } catch { #expect(error.code == .wrongHashLength) }
    }

    @Test func includeSubdomainsOnASingleLabelOrPublicSuffixIsRefused() throws {
        for name in ["com", "co.uk", "localhost"] {
            do {
                _ = try host(name, sub: true, PinSet([a, b], scope: .any)).validate(now: PKI.now)
                Issue.record("\(name) with includeSubdomains was accepted")
            } catch { #expect(error.code == .subdomainsOnPublicSuffix, "\(name)") }
        }
        // Exact single labels are fine; so are registrable domains with subdomains.
        #expect(try host("localhost", PinSet([a, b], scope: .any)).validate(now: PKI.now).isEmpty)
        #expect(try host("example.co.uk", sub: true, PinSet([a, b], scope: .any)).validate(now: PKI.now).isEmpty)
    }

    @Test func aPastExpirationDateIsAWarningThatNamesTheDate() throws {
        let past = try #require(PinDates.parseDay("2020-03-01"))
        let w = try host("example.com", PinSet([a, b], scope: .any, expirationDate: past)).validate(now: PKI.now)
        #expect(w.map(\.code) == [.expired])
        #expect(w.first?.message.contains("2020-03-01") == true)
        #expect(try host("example.com", PinSet([a, b], scope: .any, expirationDate: PKI.notAfter)).validate(now: PKI.now).isEmpty)
    }

    @Test func emptySetsAndSHA1PinsAreReported() throws {
        #expect(throws: PinConfigurationError.self) { try host("example.com", PinSet()).validate(now: PKI.now) }
        let w = try host("example.com", PinSet([.spkiSHA1(Array(repeating: 1, count: 20)), b], scope: .any)).validate(now: PKI.now)
        #expect(w.map(\.code) == [.legacySHA1])
    }

    /// Each system's own checks: ATS needs an identity, OkHttp and Android need neither a backup pin nor a
    /// registrable domain; all of them check hash lengths and warn of expiry.
    @Test func rulesChooseWhichChecksApply() throws {
        let single = try host("com", sub: true, PinSet([a], scope: .any))
        for rules in [PinValidationRules.okhttp, .android] {
            #expect(try single.validate(now: PKI.now, rules: rules).isEmpty)
            #expect(try host("example.com", PinSet()).validate(now: PKI.now, rules: rules).isEmpty)
        }
        #expect(try single.validate(now: PKI.now, rules: .ats).isEmpty)
        #expect(throws: PinConfigurationError.self) { try host("example.com", PinSet()).validate(now: PKI.now, rules: .ats) }
        #expect(throws: PinConfigurationError.self) { try single.validate(now: PKI.now) }
        let past = try #require(PinDates.parseDay("2020-03-01"))
        #expect(try host("example.com", PinSet([a], scope: .any, expirationDate: past)).validate(now: PKI.now, rules: .android).map(\.code) == [.expired])
        #expect(throws: PinConfigurationError.self) {
            try host("example.com", PinSet([.spkiSHA256([1, 2, 3])], scope: .any)).validate(now: PKI.now, rules: .okhttp)
        }
        #expect(PinConfiguration().rules == .trustKit)
    }

    @Test func configurationRefusesTheSamePatternTwice() throws {
        let config = PinConfiguration([try host("Example.com.", PinSet([a, b], scope: .any)), try host("example.com", PinSet([a, b], scope: .any))])
        #expect(throws: PinConfigurationError.self) { try config.validate(now: PKI.now) }
    }
}
