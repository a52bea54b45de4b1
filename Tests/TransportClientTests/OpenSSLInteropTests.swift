import TestSupport
import TestServersSupport
import ATSTestServers
import Foundation
import NIOHTTP1
import Testing
import TransportTrust

@testable import TransportClient

/// The client against a real OpenSSL server, not only swift-nio-ssl talking to itself.
@Suite(.enabled(if: opensslAvailable)) struct OpenSSLInteropTests {
    let host = "www.example.test"

    @Test func tls12AndTLS13AgainstOpenSSLWithResumptionOffered() async throws {
        let pki = ServerPKI()
        for version in ["-tls1_2", "-tls1_3"] {
            let (server, dir) = try opensslServer(pki, [version])
            defer { server.stop(); _ = dir }
            let counting = CountingEvaluator { _, trust in await DefaultTrustEvaluator().evaluate(trust) }
            let client = makeClient(anchors: pki.anchors, trustManager: ServerTrustManager(rules: [.init(try HostPattern(host), counting)]))
            // -www answers one request per connection and closes: two requests, two handshakes, two evaluations,
            // although OpenSSL offers session tickets.
            for _ in 0..<2 {
                let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
                #expect(response.statusCode == 200)
                #expect(response.text.contains("Ciphers supported in s_server binary"))
                #expect(response.connection.handshake?.tlsVersion == (version == "-tls1_2" ? .tls12 : .tls13))
            }
            #expect(counting.calls == 2)
        }
    }

    @Test func openSSLServerWithTLS10OnlyIsBlockedByDefaultATS() async throws {
        let pki = ServerPKI()
        let (server, dir) = try opensslServer(pki, ["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"])
        defer { server.stop(); _ = dir }
        let error = await transportError { try await makeClient(anchors: pki.anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
        #expect(error?.kind == .atsRefused)
        #expect(error?.message.contains("NSExceptionMinimumTLSVersion") == true)
    }
}
