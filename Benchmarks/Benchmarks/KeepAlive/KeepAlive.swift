import ATSTestServers
import Benchmark
import Foundation
import SuiteDefaults
import TransportClient
import TransportTrust

// HTTP/1.1 keep-alive requests through HTTPSClient, pinned, on one connection to a local server in the same process
// (so the server's work is in the figures too; bench/client.sh measures the client alone beside curl). CI checks
// the allocation counts against Thresholds/.
let host = "bench.example.test"

/// The server and the client, started once for the benchmark and shut down after it.
actor Fixture {
    static let shared = Fixture()
    private var server: LocalServer?
    private var client: HTTPSClient?

    func start() async throws -> (HTTPSClient, String) {
        let pki = try LocalPKI()
        let leaf = try pki.leaf(cn: host, ips: [[127, 0, 0, 1]], dns: [host])
        let server = try await LocalServer.start(tls: try LocalServers.serverConfiguration(chain: [leaf, pki.intermediate]),
                                                 response: .text("ok\n"))
        let root = try InputCertificate(der: pki.root.der)
        guard let pin = try InputCertificate(der: leaf.der).spkiSHA256Base64 else { throw FixtureError.noPin }
        let manager = try ServerTrustManager(evaluators: [host: PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + pin)])])
        let client = HTTPSClient(configuration: HTTPSClientConfiguration(
            trustManager: manager, anchors: TrustAnchors(custom: [root]), addressOverrides: [host: "127.0.0.1"],
            maximumIdleConnectionsPerHost: 1))
        self.server = server
        self.client = client
        return (client, "https://\(host):\(server.port)/")
    }

    func stop() async {
        await client?.shutdown()
        await server?.shutdown()
        client = nil
        server = nil
    }
}

enum FixtureError: Error { case noPin, notOK(String) }

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = SuiteDefaults.configuration(allocationTolerance: 10.0)

    Benchmark("keep-alive-pinned") { benchmark, fixture in
        let (client, url) = fixture
        // The first request opens the connection; the measured ones reuse it.
        _ = try await client.execute(HTTPRequest(url: url))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let response = try await client.execute(HTTPRequest(url: url))
            guard response.status == .ok else { throw FixtureError.notOK("\(response.status)") }
            blackHole(response)
        }
    } setup: {
        try await Fixture.shared.start()
    } teardown: {
        await Fixture.shared.stop()
    }
}
