import TestSupport
import TestServersSupport
import Foundation
import NIOHTTP1
import Testing
import TransportTrust

@testable import TransportClient

/// Pin failure reports POSTed by the client, as TrustKit sends them, against a local report collector.
@Suite struct HTTPPinFailureReporterTests {
    let host = "www.example.test"
    let collector = "reports.example.test"
    let pki = ServerPKI(dns: ["www.example.test", "reports.example.test"])
    let wrongPins = [try! Pin(parsing: "sha256/" + String(repeating: "A", count: 43) + "="),
                     try! Pin(parsing: "sha256/" + String(repeating: "B", count: 43) + "=")]

    func reporter(maximumInFlight: Int = 8, timeouts: Timeouts = Timeouts(connect: .seconds(30), handshake: .seconds(30), request: .seconds(60))) -> HTTPPinFailureReporter {
        HTTPPinFailureReporter(client: makeClient(anchors: pki.anchors, hosts: [collector], timeouts: timeouts), maximumInFlight: maximumInFlight)
    }

    /// No idle connections: every request is a new handshake, and so a new evaluation and report.
    func pinnedClient(reportURI: String, enforce: Bool, reporter: any PinFailureReporting, port: Int) throws -> HTTPSClient {
        let set = PinSet(wrongPins, scope: .any, enforcePinning: enforce, reportURIs: [reportURI])
        let evaluator = PinSetEvaluator(PinnedHost(try HostPattern(host), set), reporter: reporter,
                                        app: .init(bundleID: "com.example.app", version: "1.0", platform: "Linux"), port: port)
        return makeClient(anchors: pki.anchors, trustManager: try ServerTrustManager(evaluators: [host: evaluator])) {
            $0.maximumIdleConnectionsPerHost = 0
        }
    }

    @Test func anEnforcedMismatchIsRefusedAndItsReportPosted() async throws {
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        let reports = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("", status: .noContent) }
        try await withShutdown({ await server.shutdown(); await reports.shutdown() }) {
            let reporter = reporter()
            let client = try pinnedClient(reportURI: "https://\(collector):\(reports.port)/log", enforce: true, reporter: reporter, port: server.port)

            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.verdict?.failures.contains { $0.code == .pinMismatch } == true)
            #expect(server.requests.isEmpty)
            await reporter.drained()
            #expect(reporter.statistics == .init(delivered: 1, failed: 0, dropped: 0))
            let posted = try #require(reports.requests.first)
            #expect(posted.head.method == .POST)
            #expect(posted.head.uri == "/log")
            #expect(posted.head.headers.first(name: "content-type") == "application/json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(posted.body)) as? [String: Any])
            #expect(json["hostname"] as? String == host)
            #expect(json["port"] as? Int == server.port)
            #expect(json["enforce-pinning"] as? Bool == true)
            #expect(json["app-bundle-id"] as? String == "com.example.app")
            #expect((json["known-pins"] as? [String])?.count == 2)
            #expect((json["validated-certificate-chain"] as? [String])?.count == 3)
            await reporter.shutdown()
        }
    }

    @Test func aReportOnlyMismatchLoadsAndStillReports() async throws {
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("loaded") }
        let reports = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown(); await reports.shutdown() }) {
            let reporter = reporter()
            let client = try pinnedClient(reportURI: "https://\(collector):\(reports.port)/", enforce: false, reporter: reporter, port: server.port)
            let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.text == "loaded")
            await reporter.drained()
            #expect(reports.requests.count == 1)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(reports.requests[0].body)) as? [String: Any])
            #expect(json["enforce-pinning"] as? Bool == false)
            await reporter.shutdown()
        }
    }

    @Test func identicalReportsAreSentOnceADay() async throws {
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        let reports = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown(); await reports.shutdown() }) {
            let delivery = reporter()
            let client = try pinnedClient(reportURI: "https://\(collector):\(reports.port)/", enforce: true,
                                          reporter: DeduplicatingPinFailureReporter(delivery), port: server.port)
            for _ in 0..<3 { _ = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) } }
            await delivery.drained()
            #expect(reports.requests.count == 1)
            await delivery.shutdown()
        }
    }

    @Test func whileTheOnlyDeliverySlotIsTakenFurtherReportsAreDroppedAndRequestsStillLoad() async throws {
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("loaded") }
        let stalled = try await TestServer.raw(.stall)
        try await withShutdown({ await server.shutdown(); await stalled.shutdown() }) {
            // One slot, and a collector that never answers: the first delivery holds the slot far longer than this
            // test runs, so the second report finds it taken whatever the machine's load.
            let reporter = reporter(maximumInFlight: 1, timeouts: Timeouts(connect: .seconds(600), handshake: .seconds(600), request: .seconds(600)))
            let client = try pinnedClient(reportURI: "https://\(collector):\(stalled.port)/", enforce: false, reporter: reporter, port: server.port)
            #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/a")).text == "loaded")
            #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/b")).text == "loaded")
            #expect(reporter.statistics == .init(delivered: 0, failed: 0, dropped: 1))
        }
    }

    @Test func aCollectorThatNeverAnswersCountsAsFailedAfterItsDeadline() async throws {
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("loaded") }
        let stalled = try await TestServer.raw(.stall)
        try await withShutdown({ await server.shutdown(); await stalled.shutdown() }) {
            let reporter = reporter(timeouts: Timeouts(connect: .seconds(1), handshake: .seconds(1), request: .seconds(1)))
            let client = try pinnedClient(reportURI: "https://\(collector):\(stalled.port)/", enforce: false, reporter: reporter, port: server.port)
            #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")).text == "loaded")
            await reporter.drained()
            #expect(reporter.statistics == .init(delivered: 0, failed: 1, dropped: 0))
            await reporter.shutdown()
        }
    }
}
