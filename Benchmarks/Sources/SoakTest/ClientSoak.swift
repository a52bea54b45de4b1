import ATSTestServers
import BenchmarkSupport
import Foundation
import TransportClient
import TransportTrust

/// The client against hostile local servers: ones that stall, reset, answer garbage, send a 150-certificate chain,
/// or (behind valid TLS) trickle response headers forever or send an oversized header block. Round-robin.
enum ClientSoak {
    /// - Returns: the number of connections that got a response (any is a failure: every server is hostile).
    static func run(total: Int, concurrency: Int) async throws -> Int {
        let pki = try LocalPKI()
        let tls = try LocalServers.serverConfiguration(chain: [try pki.leaf(), pki.intermediate])
        var servers = [
            try await LocalServer.hostile(.stall), try await LocalServer.hostile(.reset), try await LocalServer.hostile(.garbage),
            try await LocalServer.hostile(.slowHeaders, tls: tls), try await LocalServer.hostile(.oversizedHeaders, tls: tls),
        ]
        servers.append(try await LocalServer.start(tls: try LocalServers.serverConfiguration(chain: try pki.longChain(depth: 150)),
                                                   response: .text("huge\n")))
        let ports = servers.map(\.port)
        // A stall ends at the handshake limit and a trickle at the request limit; both short, so that the run is
        // bounded by the count, not by waiting.
        let client = HTTPSClient(configuration: HTTPSClientConfiguration(
            anchors: TrustAnchors(custom: [try InputCertificate(der: pki.root.der)]),
            timeouts: Timeouts(connect: .seconds(2), handshake: .seconds(1), request: .seconds(2))))
        let names = ["stall", "reset", "garbage", "slow headers", "oversized headers", "huge chain"]
        // The client's RSS moved within 5.1 MiB over its recorded run (docs/RELIABILITY.md), its heap was not measured
        // then: wider limits than the server's.
        let result = await soakRounds(total: total, concurrency: concurrency, growth: SoakGrowth(heapLimitKiB: 4096, rssLimitKiB: 16_384)) { i in
            let server = i % ports.count
            do {
                _ = try await client.execute(HTTPRequest(url: "https://127.0.0.1:\(ports[server])/"))
                return "\(names[server]): a response (fail-open)"
            } catch let error as TransportError {
                return "\(names[server]): \(error.kind)"
            } catch {
                return "\(names[server]): \(type(of: error))"
            }
        }
        await client.shutdown()
        for server in servers { await server.shutdown() }
        return result.endings.filter { $0.key.hasSuffix("(fail-open)") }.values.reduce(0, +) + (result.growth == nil ? 0 : 1)
    }
}
