import TestSupport
import ATSDiagnostics
import ATSTestServers
import Foundation
import Testing
import TransportTrust

/// Suites BoringSSL cannot offer: a server that takes one is NOT TESTABLE, never FAIL; a server that takes none of
/// them keeps its FAIL.
@Suite struct NotTestableTests {
    @Test func aServerWithNoATSSuiteKeepsItsFail() async throws {
        let servers = try await SharedServers.shared.servers()
        // ChaCha20 over TLS 1.2 only: not in Apple's list, and not one of the suites we cannot offer either.
        let tls = try LocalServers.serverConfiguration(chain: [try servers.pki.leaf(), servers.pki.intermediate], maximum: .tlsv12,
                                                      suites: "ECDHE-ECDSA-CHACHA20-POLY1305")
        let server = try await LocalServer.start(tls: tls, response: .text("chacha\n"))
        defer { Task { await server.shutdown() } }
        let d = try await localDiagnoser(servers).gated("https://127.0.0.1:\(server.port)/")
        let first = try #require(d.outcome("default"))
        #expect(first.result == .fail)
        #expect(first.failure?.reasons.contains { $0.contains("refused too") } == true, "\(first.failure?.reasons ?? [])")
        // Without ATS the client offers ChaCha20 and loads it; no exception short of that helps.
        #expect(d.outcome("arbitrary-loads")?.result == .pass)
        #expect(d.outcome("arbitrary-loads")?.cipherSuite == "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256")
        #expect(d.recommendation.kind == .arbitraryLoadsOnly)
        #expect(!d.tests.contains { $0.result == .notTestable })
    }

    @Test(.enabled(if: OpenSSLServer.isAvailable))
    func aServerThatOnlyTakesACBCSHA384SuiteIsNotTestable() async throws {
        let servers = try await SharedServers.shared.servers()
        let dir = try TemporaryDirectory()
        let leaf = try servers.pki.leaf(key: servers.pki.rsaKey)
        try dir.write("chain.pem", leaf.pem + servers.pki.intermediate.pem)
        try dir.write("key.pem", servers.pki.rsaKey.pem)
        let server = try OpenSSLServer(arguments: ["-cert", "chain.pem", "-key", "key.pem", "-tls1_2", "-cipher", "ECDHE-RSA-AES256-SHA384", "-www"],
                                       in: dir.path)
        defer { server.stop() }
        let d = try await localDiagnoser(servers).gated("https://127.0.0.1:\(server.port)/")
        let first = try #require(d.outcome("default"))
        #expect(first.result == .notTestable, "\(first.failure?.message ?? "")")
        #expect(first.notTestableReason?.contains("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384") == true)
        #expect(d.untestableSuites.contains("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384"))
        #expect(!d.nscurlTests.contains { $0.result == .fail && $0.failure?.message.contains("none of the offered cipher suites") == true },
                "a suite negotiation failure was reported as FAIL")
        // A TLS 1.2 server still fails the TLS 1.3 test: that is a version, which we can test.
        #expect(d.outcome("tls1.3")?.result == .fail)
        #expect(d.outcome("tls1.3")?.failure?.apple.sslErrorName == "errSSLPeerProtocolVersion")
    }
}
