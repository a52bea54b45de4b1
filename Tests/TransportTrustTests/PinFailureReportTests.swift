import TestSupport
import Foundation
import Testing

@testable import TransportTrust

@Suite struct PinFailureReportTests {
    let pki = PKI.chain()

    func report(result: PinFailureReport.ValidationResult = .failedNoMatchingPin, time: Date = PKI.now) throws -> PinFailureReport {
        let set = PinSet([PinningFixtures.sha256Pin(pki.root), .spkiSHA1(Array(repeating: 1, count: 20))], scope: .any,
                         enforcePinning: true, expirationDate: PinDates.parseDay("2030-06-01"))
        return PinFailureReport(app: .init(bundleID: "com.example.app", version: "2.1", platform: "IOS", vendorID: "V"), dateTime: time,
                                hostname: "www.example.com", port: 443, noted: try HostPattern("example.com", includeSubdomains: true),
                                pinSet: set, chain: [pki.leaf.input, pki.intermediate.input], validationResult: result)
    }

    @Test func jsonHasTrustKitsKeysAndValues() throws {
        let object = try JSONSerialization.jsonObject(with: Data(try report().json)) as? [String: Any]
        let json = try #require(object)
        for key in ["app-bundle-id", "app-version", "app-platform", "date-time", "hostname", "port", "noted-hostname", "include-subdomains",
                    "enforce-pinning", "validated-certificate-chain", "known-pins", "validation-result", "known-pins-expiration-date"] {
            #expect(json[key] != nil, "\(key)")
        }
        #expect(json["hostname"] as? String == "www.example.com")
        #expect(json["noted-hostname"] as? String == "example.com")
        #expect(json["port"] as? Int == 443)
        #expect(json["validation-result"] as? Int == 1)
        #expect(json["known-pins-expiration-date"] as? String == "2030-06-01")
        let pins = try #require(json["known-pins"] as? [String])
        #expect(pins.first == "pin-sha256=\"\(PinningFixtures.hash(pki.root))\"")
        #expect(pins.last?.hasPrefix("pin-sha1=") == true)
        let chain = try #require(json["validated-certificate-chain"] as? [String])
        #expect(chain.count == 2)
        #expect(try CertificateLoader.certificates(from: Array(chain[0].utf8), source: "report").first?.der == pki.leaf.der)
        let date = try #require(json["date-time"] as? String)
        #expect(ISO8601DateFormatter().date(from: date) == PKI.now)
    }

    @Test func roundTripsThroughCodable() throws {
        let r = try report()
        let back = try JSONDecoder().decode(PinFailureReport.self, from: Data(r.json))
        #expect(back == r)
    }

    /// The reporter's clock: a task-local time, set around the reports that come later. The reporter reads it in the
    /// task that awaits `report`, so the synchronous clock needs no lock.
    enum Clock {
        @TaskLocal static var now = PKI.now
    }

    @Test func duplicatesAreDroppedFor24Hours() async throws {
        let sink = RecordingReporter()
        let reporter = DeduplicatingPinFailureReporter(sink, clock: { Clock.now })
        let uris = ["https://r.example/"]
        await reporter.report(try report(), to: uris)
        try await Clock.$now.withValue(PKI.now + 3600) {
            await reporter.report(try report(time: PKI.now + 3600), to: uris)  // same but for the time: dropped
            await reporter.report(try report(result: .failedInvalidCertificateChain), to: uris)  // different: sent
        }
        #expect(await sink.count == 2)
        try await Clock.$now.withValue(PKI.now + 24 * 3600 + 1) {
            await reporter.report(try report(), to: uris)  // 24 h after the first: sent again
            #expect(await sink.count == 3)
            await reporter.report(try report(result: .errorInvalidParameters), to: [])  // nowhere to send
            #expect(await sink.count == 3)
        }
    }
}
