import TestSupport
import DiagnosisTestSupport
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
        // 3DES with RSA key exchange over TLS 1.2 only: in no ATS list, even with forward secrecy off, and not one of
        // the suites we cannot offer either.
        let tls = try LocalServers.serverConfiguration(chain: [try servers.pki.leaf(key: servers.pki.rsaKey), servers.pki.intermediate],
                                                      maximum: .tlsv12, suites: "DES-CBC3-SHA")
        let server = try await LocalServer.start(tls: tls, response: .text("3des\n"))
        try await withShutdown({ await server.shutdown() }) {
            let d = try await localDiagnoser(servers).gated("https://127.0.0.1:\(server.port)/")
            let first = try #require(d.outcome("default"))
            #expect(first.result == .fail)
            #expect(first.failure?.reasons.contains { $0.contains("refused too") } == true, "\(first.failure?.reasons ?? [])")
            // Without ATS the client offers 3DES and loads it; no exception short of that helps.
            #expect(d.outcome("arbitrary-loads")?.result == .pass)
            #expect(d.outcome("arbitrary-loads")?.cipherSuite == "TLS_RSA_WITH_3DES_EDE_CBC_SHA")
            #expect(d.recommendation.kind == .arbitraryLoadsOnly)
            #expect(!d.tests.contains { $0.result == .notTestable })
        }
    }

    /// TLS 1.2 ChaCha20-Poly1305 is not on Apple's ATS page, but Apple's implementation accepts it: an iPhone loads
    /// such a server with the default ATS settings, so nothing is recommended.
    @Test func aChaCha20OnlyServerPassesAsOnAnIPhone() async throws {
        let servers = try await SharedServers.shared.servers()
        let tls = try LocalServers.serverConfiguration(chain: [try servers.pki.leaf(), servers.pki.intermediate], maximum: .tlsv12,
                                                      suites: "ECDHE-ECDSA-CHACHA20-POLY1305")
        let server = try await LocalServer.start(tls: tls, response: .text("chacha\n"))
        try await withShutdown({ await server.shutdown() }) {
            let d = try await localDiagnoser(servers).gated("https://127.0.0.1:\(server.port)/")
            #expect(d.outcome("default")?.result == .pass, "\(String(describing: d.outcome("default")?.failure))")
            #expect(d.outcome("default")?.cipherSuite == "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256")
            #expect(d.recommendation.kind == .noneNeeded)
        }
    }

    /// handshake_failure also means no shared key-exchange group. Where ATS sets nothing (`--no-ats`) it is a TLS
    /// failure, not an ATS refusal, and no ATS key is suggested.
    @Test(.enabled(if: OpenSSLServer.isAvailable))
    func aHandshakeFailureWithoutATSNamesNoATSKey() async throws {
        let servers = try await SharedServers.shared.servers()
        let (server, dir) = try servers.openSSLServer(ciphers: "ECDHE-RSA-AES128-GCM-SHA256", ["-groups", "P-521"])
        defer { server.stop(); _ = dir }
        let (status, json, err) = await ats(["fetch", "https://127.0.0.1:\(server.port)/", "--no-ats", "--anchors", servers.caFile, "--json"])
        #expect(status == 1, "\(err)")
        #expect(json.contains("\"kind\" : \"tlsFailure\""), "\(json)")
        #expect(json.contains("key-exchange groups"), "\(json)")
        #expect(!json.contains("NSException"), "no ATS key changes what --no-ats offers: \(json)")
        #expect(!json.contains("\"underlying\""), "the TLS library's dump only with --verbose: \(json)")
    }

    @Test(.enabled(if: OpenSSLServer.isAvailable))
    func aServerThatOnlyTakesACBCSHA384SuiteIsNotTestable() async throws {
        let servers = try await SharedServers.shared.servers()
        let (server, dir) = try servers.openSSLServer(ciphers: "ECDHE-RSA-AES256-SHA384")
        defer { server.stop(); _ = dir }
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
        // A Mac may well load it with no exception: nothing is recommended and the operator is told nothing to fix.
        #expect(d.recommendation.kind == .undecided)
        #expect(d.recommendation.summary.contains("cannot be decided here"), "\(d.recommendation.summary)")
        #expect(d.recommendation.summary.contains("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384"))
        #expect(d.recommendation.serverFixes.isEmpty && d.recommendation.xml == nil, "\(d.recommendation)")
    }

    /// Before iOS 17 the system ignores exception entries for IP addresses: a version refusal at an IP host names no
    /// key that cannot help there.
    @Test func aVersionRefusalAtAnIPHostBeforeIOS17NamesNoExceptionKey() async throws {
        let servers = try await SharedServers.shared.servers()
        let url = try #require(servers.url(for: .tls11Only))
        let (status, _, err) = await ats(["fetch", url, "--anchors", servers.caFile, "--platform", "ios9"])
        #expect(status == 1)
        #expect(err.contains("no exception can lower it for an IP address before iOS 17"), "\(err)")
        #expect(!err.contains("NSExceptionMinimumTLSVersion for this domain"), "\(err)")
    }

    /// A server with only an RSA suite BoringSSL lacks: the forward-secrecy-off tests allow it and are NOT TESTABLE,
    /// and the "Not testable here" list names it, not only the default dictionary's gaps.
    @Test(.enabled(if: OpenSSLServer.isAvailable))
    func theUntestableListNamesTheSuitesThatMattered() async throws {
        let servers = try await SharedServers.shared.servers()
        let (server, dir) = try servers.openSSLServer(ciphers: "AES256-SHA256")
        defer { server.stop(); _ = dir }
        let d = try await localDiagnoser(servers).gated("https://127.0.0.1:\(server.port)/")
        #expect(d.tests.contains { $0.result == .notTestable }, "\(DiagnosisRendering.text(d, verbose: true))")
        #expect(d.untestableSuites.contains("TLS_RSA_WITH_AES_256_CBC_SHA256"), "\(d.untestableSuites)")
    }

    /// fetch cannot ask as diagnose does, so its refusal names the suites ATS allows that it could not offer, instead of
    /// leaving the server or the configuration to blame.
    @Test(.enabled(if: OpenSSLServer.isAvailable))
    func fetchNamesTheAllowedSuitesItCannotOffer() async throws {
        let servers = try await SharedServers.shared.servers()
        let (server, dir) = try servers.openSSLServer(ciphers: "ECDHE-RSA-AES256-SHA384")
        defer { server.stop(); _ = dir }
        let (status, _, err) = await ats(["fetch", "https://127.0.0.1:\(server.port)/", "--anchors", servers.caFile])
        #expect(status == 1)
        #expect(err.contains("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384, which this client cannot offer"), "\(err)")
    }

    /// When the default test is NOT TESTABLE but a relaxed one loads, that one is kept as the fallback, without
    /// claiming that the exception is needed.
    @Test(.enabled(if: OpenSSLServer.isAvailable))
    func anUndecidedDefaultKeepsWhatLoadedHereAsTheFallback() async throws {
        let servers = try await SharedServers.shared.servers()
        let (server, dir) = try servers.openSSLServer(ciphers: "ECDHE-RSA-AES256-SHA384:AES128-GCM-SHA256")
        defer { server.stop(); _ = dir }
        let d = try await localDiagnoser(servers).gated("https://127.0.0.1:\(server.port)/")
        #expect(d.outcome("default")?.result == .notTestable)
        #expect(d.outcome("pfs")?.cipherSuite == "TLS_RSA_WITH_AES_128_GCM_SHA256")
        #expect(d.recommendation.kind == .undecided)
        #expect(d.recommendation.configuration == "pfs", "\(DiagnosisRendering.text(d, verbose: true))")
        #expect(d.recommendation.xml?.contains("<key>NSExceptionRequiresForwardSecrecy</key>") == true)
        #expect(d.recommendation.serverFixes.isEmpty)
        #expect(!d.recommendation.summary.contains("certificates were not checked"), "the pfs test saw the chain")
    }

    /// The DHE suite a DHE-only server picks is in no ATS list: every test whose dictionary ATS restricts FAILs. Only
    /// Allow All Loads, under which our ATS model lets the system client offer any suite but RC4, is NOT TESTABLE.
    @Test(.enabled(if: OpenSSLServer.isAvailable))
    func aDHEOnlyServerFailsEveryATSTestAndOnlyAllowAllLoadsIsNotTestable() async throws {
        let servers = try await SharedServers.shared.servers()
        let (server, dir) = try servers.openSSLServer(ciphers: "DHE-RSA-AES128-GCM-SHA256")
        defer { server.stop(); _ = dir }
        let d = try await localDiagnoser(servers).gated("https://127.0.0.1:\(server.port)/")
        #expect(d.matrix == "FN" + "FFFF" + "F" + "F" + "FFFF" + "FFFF", "\(DiagnosisRendering.text(d, verbose: true))")
        let first = try #require(d.outcome("default"))
        #expect(first.failure?.reasons.contains { $0.contains("refused too") && $0.contains("TLS_DHE_RSA_WITH_AES_128_GCM_SHA256") } == true,
                "\(first.failure?.reasons ?? [])")
        let all = try #require(d.outcome("arbitrary-loads"))
        #expect(all.notTestableReason?.contains("takes TLS_DHE_RSA_WITH_AES_128_GCM_SHA256") == true, "\(all.notTestableReason ?? "")")
        #expect(all.notTestableReason?.contains("NSAllowsArbitraryLoads") == true)
        #expect(d.recommendation.kind == .noExceptionHelps)
        #expect(d.recommendation.serverFixes.contains { $0.contains("ECDHE") })
    }

    /// A server's pick is its preference, not a refusal of what it passed over: one that prefers DHE but also takes
    /// TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384 is asked again without DHE, and the ATS tests are NOT TESTABLE, not FAIL.
    @Test(.enabled(if: OpenSSLServer.isAvailable))
    func aServerThatPrefersDHEIsAskedAgainWithoutIt() async throws {
        let servers = try await SharedServers.shared.servers()
        let (server, dir) = try servers.openSSLServer(ciphers: "DHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-SHA384", ["-serverpref"])
        defer { server.stop(); _ = dir }
        let d = try await localDiagnoser(servers).gated("https://127.0.0.1:\(server.port)/")
        #expect(d.matrix == "NN" + "FNNN" + "N" + "N" + "FNNN" + "FNNN", "\(DiagnosisRendering.text(d, verbose: true))")
        #expect(d.outcome("arbitrary-loads")?.notTestableReason?.contains("takes TLS_DHE_RSA_WITH_AES_128_GCM_SHA256") == true)
        #expect(d.outcome("default")?.notTestableReason?.contains("takes TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384") == true)
        #expect(d.outcome("pfs")?.notTestableReason?.contains("takes TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384") == true)
    }
}
