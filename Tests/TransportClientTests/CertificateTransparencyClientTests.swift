import Foundation
import TestSupport
import TestServersSupport
import Testing
import TransportTrust

@testable import TransportClient

/// CT end to end: a local server presents a chain to a root that comes in as a system root, under a log list the
/// test writes, and `HTTPSClient`, `ats verify --json`, `ats fetch` and `ats diagnose` must all reach Apple's verdict.
@Suite(.serialized) struct CertificateTransparencyClientTests {
    static let host = "www.example.com"
    static let logs = (0..<3).map { TestCTLog(name: "Client Test Log \($0)") }

    struct Served {
        let pki: CTTestPKI
        let leaf: TestCert
        let server: TestServer
        let listFile: String
        var url: String { "https://\(CertificateTransparencyClientTests.host):\(server.port)/" }
        var environment: [String: String] { ["SSL_CERT_FILE": pki.rootFile, "SSL_CERT_DIR": "", "ATS_CT_LOG_LIST": listFile] }
        var resolve: [String] { ["--resolve", "\(CertificateTransparencyClientTests.host):127.0.0.1"] }
    }

    /// Serves a leaf with SCTs from the first `scts` logs (none: no SCT extension at all), runs `body`, then stops.
    static func serving<T>(scts: Int, _ body: (Served) async throws -> T) async throws -> T {
        let pki = try CTTestPKI()
        let leaf = scts == 0 ? pki.ca.leaf(dns: [host]) : pki.ca.leafWithSCTs(Array(logs.prefix(scts)), dns: [host])
        let server = try await TestServer.https(chain: [leaf, pki.ca], key: leaf.key)
        let listFile = try pki.directory.write("ct.json", bytes: TestCTLog.logList(logs))
        do {
            let result = try await body(Served(pki: pki, leaf: leaf, server: server, listFile: listFile))
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    @Test(arguments: [0, 1, 2])
    func theClientRefusesWhatApplesPolicyRefuses(scts: Int) async throws {
        try await Self.serving(scts: scts) { s in
            var configuration = HTTPSClientConfiguration(anchors: s.pki.publicAnchors, addressOverrides: [Self.host: "127.0.0.1"])
            configuration.certificateTransparency = CertificateTransparencyOptions(logList: try s.pki.list(Self.logs))
            let client = HTTPSClient(configuration: configuration)
            let result: Result<HTTPResponse, TransportError>
            do throws(TransportError) { result = .success(try await client.execute(HTTPRequest(url: s.url))) } catch { result = .failure(error) }
            await client.shutdown()
            switch (scts, result) {
            case (2, .success(let response)):
                #expect(response.status.code == 200)
                #expect(response.connection.verdict?.certificateTransparency?.status == .compliant)
            case (0, .failure(let error)), (1, .failure(let error)):
                #expect(error.kind == .serverTrustRefused)
                #expect(error.verdict?.codes == [.certificateTransparency])
                #expect(error.verdict?.certificateTransparency?.status == (scts == 0 ? .noEmbeddedSCTs : .nonCompliant))
            default:
                Issue.record("\(scts) SCTs: unexpected \(result)")
            }
        }
    }

    @Test func aUserAnchorNeedsNoSCTsInTheClient() async throws {
        try await Self.serving(scts: 0) { s in
            var configuration = HTTPSClientConfiguration(anchors: s.pki.userAnchors, addressOverrides: [Self.host: "127.0.0.1"])
            configuration.certificateTransparency = CertificateTransparencyOptions(logList: try s.pki.list(Self.logs))
            let client = HTTPSClient(configuration: configuration)
            let response = try? await client.execute(HTTPRequest(url: s.url))
            await client.shutdown()
            #expect(response?.status.code == 200)
            #expect(response?.connection.verdict?.certificateTransparency?.status == .notRequired)
        }
    }

    @Test(arguments: [0, 1, 2])
    func verifyFetchAndDiagnoseAgree(scts: Int) async throws {
        try await Self.serving(scts: scts) { s in
            let chain = try s.pki.directory.write("chain.pem", s.leaf.pem + s.pki.ca.pem)
            let verify = try await ATSTool.run(["verify", chain, "--host", Self.host, "--json"], environment: s.environment)
            let fetch = try await ATSTool.run(["fetch", s.url, "--json"] + s.resolve, environment: s.environment)
            let diagnose = try await ATSTool.run(["diagnose", s.url, "--json"] + s.resolve, environment: s.environment)

            let verdict = try #require(try JSONSerialization.jsonObject(with: Data(verify.standardOutput.utf8)) as? [String: Any], "\(verify)")
            let ct = try #require(verdict["certificateTransparency"] as? [String: Any])
            let leafSCTs = try #require((verdict["chain"] as? [[String: Any]])?.first?["scts"] as? [[String: Any]])
            #expect(leafSCTs.count == scts)
            #expect(leafSCTs.allSatisfy { $0["verified"] as? Bool == true && $0["counted"] as? Bool == true && $0["operator"] != nil })
            #expect(leafSCTs.map { $0["log"] as? String } == Self.logs.prefix(scts).map(\.name))
            // fetch and diagnose show the same SCTs on the leaf of their chains.
            let fetched = try #require(try JSONSerialization.jsonObject(with: Data(fetch.standardOutput.utf8)) as? [String: Any], "\(fetch)")
            #expect(((fetched["chain"] as? [[String: Any]])?.first?["scts"] as? [[String: Any]])?.count == scts)
            let diagnosed = try JSONSerialization.jsonObject(with: Data(diagnose.standardOutput.utf8))
            let host = try #require((diagnosed as? [String: Any]) ?? (diagnosed as? [[String: Any]])?.first, "\(diagnose)")
            #expect(((host["chain"] as? [[String: Any]])?.first?["scts"] as? [[String: Any]])?.count == scts, "\(diagnose)")
            // diagnose --json says what CT concluded, as verify --json does, not only in its text.
            #expect((host["certificateTransparency"] as? [String: Any])?["status"] as? String == ct["status"] as? String, "\(diagnose)")
            switch scts {
            case 2:
                #expect(verify.status == 0 && fetch.status == 0 && diagnose.status == 0, "\(verify)\n\(fetch)\n\(diagnose)")
                #expect(ct["status"] as? String == "compliant")
            case 1:
                #expect(verify.status == 1 && fetch.status == 1 && diagnose.status == 1, "\(verify)\n\(fetch)\n\(diagnose)")
                #expect(ct["status"] as? String == "nonCompliant")
                #expect(fetch.standardOutput.contains("certificateTransparency"))
                #expect(diagnose.standardOutput.contains("\"FAIL\""))
            default:
                // verify and fetch refuse what they cannot see; diagnose says it cannot be decided here.
                #expect(verify.status == 1 && fetch.status == 1 && diagnose.status == 3, "\(verify)\n\(fetch)\n\(diagnose)")
                #expect(ct["status"] as? String == "noEmbeddedSCTs")
                #expect(diagnose.standardOutput.contains("embeds no SCTs"))
            }
        }
    }

    /// With the bundled list out of date CT is not enforced, and diagnose says so beside its PASS instead of passing
    /// silently; with a current one the same server is NOT TESTABLE.
    @Test func diagnoseSaysWhenCTWasNotEnforced() async throws {
        try await Self.serving(scts: 0) { s in
            let environment = ["SSL_CERT_FILE": s.pki.rootFile, "SSL_CERT_DIR": ""]
            let result = try await ATSTool.run(["diagnose", s.url] + s.resolve, environment: environment)
            if try CTLogList.bundled().isCurrent(at: Date()) {
                #expect(result.status == 3, "\(result)")
            } else {
                #expect(result.status == 0, "\(result)")
                #expect(result.standardOutput.contains("Certificate Transparency : listOutOfDate: Certificate Transparency was not enforced"))
            }
        }
    }

    @Test func aLogListThatCannotBeReadIsAnInputError() async throws {
        let dir = try TemporaryDirectory()
        let bad = try dir.write("bad.json", "{\"operators\": []}")
        let chain = try dir.write("chain.pem", PKI.chain().leaf.pem)
        let flag = try await ATSTool.run(["verify", chain, "--ct-log-list", bad])
        #expect(flag.status == 2)
        #expect(flag.standardError.contains("--ct-log-list: the CT log list \(bad) cannot be used: it lists no logs"), "\(flag)")
        let env = try await ATSTool.run(["verify", chain], environment: ["ATS_CT_LOG_LIST": dir.file("missing.json")])
        #expect(env.status == 2)
        #expect(env.standardError.contains("$ATS_CT_LOG_LIST: cannot read the CT log list"), "\(env)")
        let mode = try await ATSTool.run(["verify", chain, "--ct", "sometimes"])
        #expect(mode.status == 2)
    }
}

/// The synthetic cases through `ats verify --json`, as a user runs it: the root through `SSL_CERT_FILE`, the test logs'
/// list through `--ct-log-list`, and Apple's verdict and reason for each.
@Suite struct CertificateTransparencyVerifyCommandTests {
    enum Case: String, CaseIterable, Sendable {
        case twoValid, corruptSignature, rejectedLog, readonlyAfterFreeze, outsideShard, fromTheFuture, threeForALongerLeaf
    }

    @Test(arguments: Case.allCases)
    func verifyReachesApplesVerdict(_ c: Case) async throws {
        let pki = try CTTestPKI()
        var logs = (0..<3).map { TestCTLog(name: "Verify Log \($0)") }
        let sctTime = PKI.notBefore.addingTimeInterval(60)
        var leaf = pki.ca.leafWithSCTs(Array(logs.prefix(2)), sctTime: sctTime)
        var expected: (trusted: Bool, reason: String?) = (true, nil)
        switch c {
        case .twoValid: break
        case .corruptSignature:
            leaf = pki.ca.leafWithSCTs(Array(logs.prefix(2)), sctTime: sctTime, corrupt: [0])
            expected = (false, "its signature does not verify")
        case .rejectedLog:
            logs[1].state = "rejected"
            expected = (false, "Verify Log 1 is rejected")
        case .readonlyAfterFreeze:
            (logs[1].state, logs[1].stateSince) = ("readonly", sctTime.addingTimeInterval(-1))
            expected = (false, "Verify Log 1 froze on")
        case .outsideShard:
            let notAfter = leaf.certificate.notValidAfter
            logs[0].interval = notAfter.addingTimeInterval(-200 * 86400)..<notAfter
            expected = (false, "only logs certificates expiring from")
        case .fromTheFuture:
            leaf = pki.ca.leafWithSCTs(Array(logs.prefix(2)), sctTime: PKI.now.addingTimeInterval(86400))
            expected = (false, "is after the verification time")
        case .threeForALongerLeaf:
            // 181 days needs 3 SCTs from distinct logs; two are not enough.
            leaf = pki.ca.leafWithSCTs(Array(logs.prefix(2)), sctTime: sctTime, notValidAfter: PKI.notBefore.addingTimeInterval(181 * 86400 - 1))
            expected = (false, "Apple requires 3 for a certificate of 181 days")
        }
        let chain = try pki.directory.write("chain.pem", leaf.pem + pki.ca.pem)
        let list = try pki.directory.write("ct.json", bytes: TestCTLog.logList(logs))
        let result = try await ATSTool.run(["verify", chain, "--host", "www.example.com", "--json", "--ct-log-list", list],
                                           environment: ["SSL_CERT_FILE": pki.rootFile, "SSL_CERT_DIR": ""])
        let verdict = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result)")
        #expect(verdict["trusted"] as? Bool == expected.trusted, "\(result)")
        #expect(result.status == (expected.trusted ? 0 : 1))
        if let reason = expected.reason {
            let failures = try #require(verdict["failures"] as? [[String: Any]])
            #expect(failures.map { $0["code"] as? String } == ["certificateTransparency"])
            #expect((failures.first?["message"] as? String)?.contains(reason) == true, "\(failures)")
        }
    }
}
