@testable import ATSDiagnostics
import ATSCommandLine
import ATSTestServers
import DiagnosisTestSupport
import Foundation
import Testing
import TransportClient
import TransportTrust

/// Every `ats serve` case diagnosed, with nscurl's 16 results asserted exactly, and the recommendation fed back.
@Suite struct LocalCasesTests {
    @Test(arguments: BadSSLCase.allCases)
    func diagnosisMatchesTheExpectedMatrix(_ testCase: BadSSLCase) async throws {
        let servers = try await SharedServers.shared.servers()
        let url = try #require(servers.url(for: testCase))
        let diagnosis = try await localDiagnoser(servers, for: testCase).gated(url)
        #expect(diagnosis.matrix == testCase.expectedMatrix, "\(testCase.rawValue): \(DiagnosisRendering.text(diagnosis, verbose: true))")
        #expect(diagnosis.recommendation.kind == testCase.expectedRecommendation)
        if let configuration = testCase.expectedConfiguration {
            #expect(diagnosis.recommendation.configuration == configuration)
        }
        #expect(diagnosis.defaultPasses == (testCase.expectedMatrix.first == "P"))
        // Every passing test names what it negotiated (the redirect case ends on plain http, which has nothing to name).
        for outcome in diagnosis.nscurlTests where outcome.passed && testCase != .redirectToHTTP {
            #expect(outcome.tlsVersion != nil && outcome.cipherSuite != nil, "\(outcome.test.id) passed without a negotiated version and suite")
        }
        // A refused test says why in Apple's terms and ours.
        for outcome in diagnosis.nscurlTests where !outcome.passed {
            let failure = try #require(outcome.failure)
            #expect(failure.apple.urlErrorCode < 0)
            #expect(!failure.message.isEmpty)
        }
    }

    /// The CT cases fail for Apple's reasons, and only where the root is public: with the local CA as the caller's anchor
    /// neither CT nor the 398-day limit applies, and both load.
    /// `ats serve --port` on a busy port used to show NIO's "bind(descriptor:ptr:bytes:) … (errno: 98)".
    @Test func aPortInUseIsSaidInWordsWithTheFix() async throws {
        let first = try await LocalServer.start(tls: nil, response: .text("first"))
        do {
            let second = try await LocalServer.start(tls: nil, response: .text("second"), port: first.port)
            await second.shutdown()
            Issue.record("two servers listened on one port")
        } catch {
            let text = "\(error)"
            #expect(text.contains("127.0.0.1:\(first.port)") && text.contains("already in use") && text.contains("0 to pick a free one"), "\(text)")
            #expect(!text.contains("errno") && !text.contains("descriptor"), "\(text)")
        }
        await first.shutdown()
    }

    @Test func theCTCasesFailForApplesReasonsUnderAPublicRootOnly() async throws {
        let servers = try await SharedServers.shared.servers()
        for (testCase, code) in [(BadSSLCase.ctTooFewSCTs, TrustFailureCode.certificateTransparency), (.ct400Days, .validityPeriodTooLong)] {
            let url = try #require(servers.url(for: testCase))
            let diagnosis = try await localDiagnoser(servers, for: testCase).gated(url)
            let verdict = try #require(diagnosis.outcome("default")?.verdict)
            #expect(verdict.codes == [code], "\(testCase.rawValue): \(verdict.failures)")
            let asUserAnchor = try await localDiagnoser(servers).gated(url)
            #expect(asUserAnchor.defaultPasses, "\(testCase.rawValue)")
        }
        let few = try await localDiagnoser(servers, for: .ctTooFewSCTs).gated(try #require(servers.url(for: .ctTooFewSCTs)))
        let message = try #require(few.outcome("default")?.verdict?.failures.first?.message)
        #expect(message.contains("1 valid SCT from distinct logs; Apple requires 2 for a certificate of 90 days"))
        #expect(message.contains("ats serve Test Log 1 (Operator of ats serve Test Log 1)"))
        let long = try await localDiagnoser(servers, for: .ct400Days).gated(try #require(servers.url(for: .ct400Days)))
        #expect(long.outcome("default")?.verdict?.certificateTransparency == nil)
        #expect(long.outcome("default")?.verdict?.failures.first?.message.contains("398") == true)
    }

    @Test func theNegotiatedVersionIsTheOneTheCaseServes() async throws {
        let servers = try await SharedServers.shared.servers()
        let diagnoser = try localDiagnoser(servers)
        let tls10 = try await diagnoser.gated(try #require(servers.url(for: .tls10Only)))
        #expect(tls10.outcome("tls1.0")?.tlsVersion == "TLSv1.0")
        let rsa = try await diagnoser.gated(try #require(servers.url(for: .staticRSA)))
        #expect(rsa.outcome("pfs")?.cipherSuite == "TLS_RSA_WITH_AES_128_GCM_SHA256")
        #expect(rsa.outcome("default")?.failure?.apple.sslErrorName == "errSSLPeerHandshakeFail")
        let good = try await diagnoser.gated(try #require(servers.url(for: .good)))
        #expect(good.outcome("default")?.tlsVersion == "TLSv1.3")
    }

    @Test func failuresCarryTheClosestAppleCodes() async throws {
        let servers = try await SharedServers.shared.servers()
        let diagnoser = try localDiagnoser(servers)
        let expectations: [(BadSSLCase, Int, Int?)] = [
            // A self-signed or private-CA chain is -1202 with -9813 (errSSLNoRootCert) in Apple's logs, not -9812.
            (.expired, -1201, -9814), (.notYetValid, -1204, -9815), (.wrongHost, -1202, -9843), (.untrustedRoot, -1202, -9813),
            (.selfSigned, -1202, -9813), (.incompleteChain, -1202, -9813), (.tls10Only, -1200, -9836), (.redirectToHTTP, -1022, nil),
            (.clientCertificateRequired, -1206, -9829),
        ]
        for (testCase, url, ssl) in expectations {
            let d = try await diagnoser.gated(try #require(servers.url(for: testCase)))
            let apple = try #require(d.outcome("default")?.failure?.apple, "\(testCase.rawValue)")
            #expect(apple.urlErrorCode == url, "\(testCase.rawValue)")
            #expect(apple.sslErrorCode == ssl, "\(testCase.rawValue)")
        }
    }

    @Test func theChainIsReportedWithKeysSignaturesSANAndVerdicts() async throws {
        let servers = try await SharedServers.shared.servers()
        let diagnoser = try localDiagnoser(servers)
        let good = try await diagnoser.gated(try #require(servers.url(for: .good)))
        #expect(good.chain.map(\.role) == ["leaf", "intermediate", "anchor"])
        #expect(good.chain.map(\.presented) == [true, true, false])
        #expect(good.chain[0].keyType == "EC P-256")
        #expect(good.chain[0].signatureAlgorithm == "ecdsaWithSHA256")
        #expect(good.chain[0].sanMatchesHost == true)
        #expect(good.chain.allSatisfy { $0.atsVerdict == ["ok"] && !$0.spkiSHA256.isEmpty && $0.notValidAfter != nil })

        let wrong = try await diagnoser.gated(try #require(servers.url(for: .wrongHost)))
        #expect(wrong.chain.first?.sanMatchesHost == false)
        #expect(wrong.chain.first?.atsVerdict.contains { $0.hasPrefix("hostnameMismatch") } == true)

        let sha1 = try await diagnoser.gated(try #require(servers.url(for: .sha1Signature)))
        #expect(sha1.chain.first?.signatureAlgorithm == "sha1WithRSAEncryption")
        #expect(sha1.chain.first?.atsVerdict.contains { $0.hasPrefix("weakSignature") } == true)

        let weak = try await diagnoser.gated(try #require(servers.url(for: .rsa1024)))
        #expect(weak.chain.first?.keyType == "RSA 1024")
        #expect(weak.recommendation.serverFixes.contains { $0.contains("2048") })
    }

    /// Before iOS 13 an RSA-1024 leaf fails only ATS's key size: it loads where that rule is off (arbitrary loads,
    /// forward secrecy off). swift-certificates cannot read the key, so those tests are NOT TESTABLE, not FAIL, and
    /// nothing claims that no exception helps. iOS 9, since iOS 10–13 exempt the IP literal the local server has.
    @Test func anRSA1024LeafBeforeIOS13IsNotTestableWhereATSsKeyRuleIsOff() async throws {
        let servers = try await SharedServers.shared.servers()
        var diagnoser = try localDiagnoser(servers, for: .rsa1024)
        diagnoser.options.platform = ApplePlatform(.iOS, 9)
        diagnoser.options.profile = .ios9
        let d = try await diagnoser.gated(try #require(servers.url(for: .rsa1024)))
        #expect(d.outcome("default")?.result == .fail, "\(String(describing: d.outcome("default")?.notTestableReason)) \(String(describing: d.outcome("default")?.failure))")
        let arbitrary = try #require(d.outcome("arbitrary-loads"))
        #expect(arbitrary.result == .notTestable, "\(String(describing: arbitrary.failure))")
        #expect(arbitrary.notTestableReason?.contains("cannot be decided here") == true)
        #expect(d.recommendation.kind == .undecided, "\(d.recommendation)")
        #expect(d.recommendation.summary.contains("Allow All Loads"), "\(d.recommendation.summary)")
        #expect(d.recommendation.serverFixes.contains { $0.contains("2048") }, "the default test's failure still says what to fix")
    }

    @Test func whenNoExceptionHelpsTheOperatorIsToldWhatToFix() async throws {
        let servers = try await SharedServers.shared.servers()
        let diagnoser = try localDiagnoser(servers)
        let fixes: [(BadSSLCase, String)] = [
            (.expired, "renew"), (.wrongHost, "subjectAltName lists 127.0.0.1"), (.incompleteChain, "intermediate"),
            (.untrustedRoot, "CA the devices trust"), (.selfSigned, "CA the devices trust"), (.sha1Signature, "SHA-256"),
            (.clientCertificateRequired, "client certificate"),
        ]
        for (testCase, words) in fixes {
            let d = try await diagnoser.gated(try #require(servers.url(for: testCase)))
            #expect(d.recommendation.kind == .noExceptionHelps)
            #expect(d.recommendation.xml == nil)
            #expect(d.recommendation.serverFixes.contains { $0.contains(words) }, "\(testCase.rawValue): \(d.recommendation.serverFixes)")
        }
    }

    @Test func aClientThatAsksToCloseIsToldSoAndCanCarryOnWithANewConnection() async throws {
        let servers = try await SharedServers.shared.servers()
        let url = try #require(servers.url(for: .good))
        let client = HTTPSClient(configuration: HTTPSClientConfiguration(anchors: TrustAnchors(custom: try CertificateLoader.certificates(atPath: servers.caFile))))
        for _ in 0..<3 {
            let response = try await client.execute(HTTPRequest(url: url, headers: ["connection": "close"]))
            #expect(response.statusCode == 200)
            #expect(response.headers.first(name: "connection") == "close")
            #expect(await client.idleConnectionCount == 0, "a connection the request asked to close is not pooled")
        }
        let kept = try await client.execute(HTTPRequest(url: url))
        #expect(kept.statusCode == 200 && kept.headers.first(name: "connection") == nil)
        #expect(await client.idleConnectionCount == 1)
        await client.shutdown()
    }
}
