import TestSupport
import DiagnosisTestSupport
import ATSDiagnostics
import ATSCommandLine
import ATSTestServers
import Foundation
import Testing

/// The recommended exception, pasted into an Info.plist, is accepted by `ats check` and makes `ats fetch` load the
/// URL, which fails without it: for every case where an exception is recommended.
@Suite struct RecommendationLoopTests {
    static let exceptionCases = BadSSLCase.allCases.filter { $0.expectedRecommendation == .exception }

    @Test(arguments: exceptionCases)
    func theRecommendedExceptionMakesTheURLLoad(_ testCase: BadSSLCase) async throws {
        let servers = try await SharedServers.shared.servers()
        let url = try #require(servers.url(for: testCase))
        let diagnosis = try await localDiagnoser(servers).gated(url)
        let xml = try #require(diagnosis.recommendation.xml)
        let dir = try TemporaryDirectory()
        let plist = try dir.write("Info.plist", PlistRendering.infoPlist(embedding: xml))
        let empty = try dir.write("Empty.plist", PlistRendering.infoPlist([:]))

        // ats check: the connection the recommended test negotiated is allowed with the snippet, blocked without.
        let configuration = try #require(diagnosis.recommendation.configuration)
        let recommended = try #require(diagnosis.outcome(configuration))
        let checkArguments: [String]
        if testCase == .redirectToHTTP {
            checkArguments = ["--tls", "1.2", "http://127.0.0.1:\(servers.httpTarget.port)/"]
        } else {
            let version = try #require(recommended.tlsVersion).replacingOccurrences(of: "TLSv", with: "")
            checkArguments = ["--tls", version, "--cipher", try #require(recommended.cipherSuite), url]
        }
        let allowed = await ats(["check", "--plist", plist] + checkArguments)
        #expect(allowed.status == 0, "\(allowed.out)\(allowed.err)")
        let blocked = await ats(["check", "--plist", empty] + checkArguments)
        #expect(blocked.status == 1, "\(blocked.out)\(blocked.err)")

        // ats fetch: loads with the snippet, refused without it.
        let loaded = await ats(["fetch", url, "--plist", plist, "--anchors", servers.caFile])
        #expect(loaded.status == 0, "\(loaded.err)")
        #expect(loaded.out.contains("ats serve") || loaded.out.contains("plain http"))
        let refused = await ats(["fetch", url, "--anchors", servers.caFile])
        #expect(refused.status == 1)
    }

    @Test func fetchAgreesWithEveryCase() async throws {
        let servers = try await SharedServers.shared.servers()
        func got(_ json: String) throws -> String? {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
            return (object["status"] as? Int).map(String.init) ?? ((object["error"] as? [String: Any])?["kind"] as? String)
        }
        for running in servers.cases {
            let result = await ats(["fetch", running.url, "--anchors", servers.caFile, "--json"])
            guard running.testCase.needsPublicRoot else {
                #expect(try got(result.out) == running.testCase.expectedFetch, "\(running.testCase.rawValue)")
                continue
            }
            // Under the caller's anchor neither CT nor the 398-day limit applies; as a system root both do.
            #expect(try got(result.out) == "200", "\(running.testCase.rawValue)")
            let system = try await ATSTool.run(["fetch", running.url, "--json"], environment: [
                "SSL_CERT_FILE": servers.caFile, "SSL_CERT_DIR": "", "ATS_CT_LOG_LIST": servers.ctLogListFile,
            ])
            #expect(try got(system.standardOutput) == running.testCase.expectedFetch, "\(running.testCase.rawValue): \(system)")
        }
    }
}
