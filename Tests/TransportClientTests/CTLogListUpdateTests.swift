import Foundation
import NIOConcurrencyHelpers
import TestSupport
import TestServersSupport
import Testing
import TransportTrust

@testable import TransportClient

/// `ats ct update` against a local server that plays valid.apple.com, with the test root through `SSL_CERT_FILE` and a
/// cache folder of the test's own (`XDG_CACHE_HOME`), run as a user runs it; then `ats verify` with no CT flag.
@Suite struct CTLogListUpdateTests {
    static let appleHost = "valid.apple.com"
    static let host = "www.example.com"
    static let logs = (0..<3).map { TestCTLog(name: "Update Test Log \($0)") }
    static let path = "/ct/log_list/current_log_list.json"

    /// A server for valid.apple.com whose answer for each path the test chooses, its leaf with SCTs from the test logs
    /// (the fetch itself is held to CT once a current list is kept).
    struct Apple {
        let pki: CTTestPKI
        let server: TestServer
        let cache: TemporaryDirectory
        var environment: [String: String] { ["SSL_CERT_FILE": pki.rootFile, "SSL_CERT_DIR": "", "XDG_CACHE_HOME": cache.path, "ATS_CT_LOG_LIST": ""] }
        func url(_ path: String = CTLogListUpdateTests.path) -> String { "https://\(CTLogListUpdateTests.appleHost):\(server.port)\(path)" }
        var folder: String { cache.file("swift-transport-security/ct") }

        func update(_ path: String = CTLogListUpdateTests.path, _ extra: [String] = []) async throws -> ATSTool.Result {
            try await ATSTool.run(["ct", "update", "--from", url(path), "--resolve", "\(CTLogListUpdateTests.appleHost):127.0.0.1"] + extra,
                                  environment: environment)
        }

        /// The cache folder's files and bytes (not the lock), to show a failed update changed nothing.
        func snapshot() throws -> [String: Data] {
            var files: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name != ".lock" {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name))
            }
            return files
        }
    }

    static func serving<T>(_ answers: [String: TestResponse], _ body: (Apple) async throws -> T) async throws -> T {
        let pki = try CTTestPKI()
        let leaf = pki.ca.leafWithSCTs(Array(logs.prefix(2)), dns: [appleHost])
        let server = try await TestServer.https(chain: [leaf, pki.ca], key: leaf.key) { request in
            answers[request.head.uri] ?? TestResponse(status: .notFound, body: Array("no such list".utf8))
        }
        let apple = Apple(pki: pki, server: server, cache: try TemporaryDirectory())
        do {
            let result = try await body(apple)
            await server.shutdown()
            return result
        } catch {
            await server.shutdown()
            throw error
        }
    }

    static func list(version: String) -> [UInt8] { TestCTLog.logList(logs, version: version) }

    @Test func anUpdateMakesVerifyEnforceCTWithNoFlag() async throws {
        try await Self.serving([Self.path: TestResponse(body: Self.list(version: "900"))]) { apple in
            let update = try await apple.update()
            #expect(update.status == 0, "\(update)")
            #expect(update.standardOutput.contains("kept the CT log list fetched from \(apple.url())"), "\(update)")

            let status = try await ATSTool.run(["ct", "status", "--json"], environment: apple.environment)
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any], "\(status)")
            #expect(doc["source"] as? String == "cached")
            #expect(doc["version"] as? String == "900")
            #expect(doc["enforced"] as? Bool == true)
            #expect(doc["location"] as? String == apple.url())

            for (scts, trusted) in [(1, false), (2, true)] {
                let leaf = apple.pki.ca.leafWithSCTs(Array(Self.logs.prefix(scts)), dns: [Self.host])
                let chain = try apple.pki.directory.write("chain\(scts).pem", leaf.pem + apple.pki.ca.pem)
                let verify = try await ATSTool.run(["verify", chain, "--host", Self.host, "--json"], environment: apple.environment)
                let verdict = try #require(try JSONSerialization.jsonObject(with: Data(verify.standardOutput.utf8)) as? [String: Any], "\(verify)")
                #expect(verdict["trusted"] as? Bool == trusted, "\(scts) SCTs: \(verify)")
                let ct = try #require(verdict["certificateTransparency"] as? [String: Any])
                #expect(ct["status"] as? String == (trusted ? "compliant" : "nonCompliant"))
                let named = try #require(ct["ctLogList"] as? [String: Any])
                #expect(named["source"] as? String == "cached" && named["version"] as? String == "900" && named["confirmed"] != nil)
                let text = try await ATSTool.run(["verify", chain, "--host", Self.host], environment: apple.environment)
                #expect(text.standardOutput.contains("CT log list: the CT log list fetched from \(apple.url()) (version 900"), "\(text)")
            }

            // fetch and diagnose say in their header that CT is enforced, and with which list.
            let resolve = ["--resolve", "\(Self.appleHost):127.0.0.1"]
            let fetch = try await ATSTool.run(["fetch", apple.url(), "--verbose", "--output", apple.cache.file("body")] + resolve,
                                              environment: apple.environment)
            #expect(fetch.status == 0, "\(fetch)")
            #expect(fetch.standardError.contains("* Certificate Transparency: enforced where Apple requires it, with the CT log list fetched from \(apple.url()) (version 900"), "\(fetch)")
            let diagnose = try await ATSTool.run(["diagnose", apple.url()] + resolve, environment: apple.environment)
            #expect(diagnose.standardOutput.contains("Certificate Transparency: enforced where Apple requires it, with the CT log list fetched from \(apple.url())"), "\(diagnose)")
        }
    }

    @Test func withNoCacheTheBundledListIsInForceAsBefore() async throws {
        let cache = try TemporaryDirectory()
        let status = try await ATSTool.run(["ct", "status"], environment: ["XDG_CACHE_HOME": cache.path, "ATS_CT_LOG_LIST": ""])
        #expect(status.status == 0)
        let bundled = try CTLogList.bundled()
        #expect(status.standardOutput.contains("list in force: \(bundled.summary)"), "\(status)")
        #expect(status.standardOutput.contains("nothing kept in the cache"))
        let enforced = bundled.isCurrent(at: Date()) ? "CT enforced" : "CT not enforced"
        #expect(status.standardOutput.contains(enforced))
    }

    enum Failure: String, CaseIterable, Sendable {
        case corrupt, wrongLogID, olderVersion, untrustedServer, resetMidBody, truncatedBody, notFound
    }

    @Test(arguments: Failure.allCases)
    func aFailedUpdateLeavesTheKeptListByteForByte(_ failure: Failure) async throws {
        var wrongID = TestCTLog(name: "Wrong").listEntry
        wrongID["log_id"] = Data(TestCTLog(name: "Other").logID).base64EncodedString()
        let good = Self.list(version: "900")
        let answers: [String: TestResponse] = [
            Self.path: TestResponse(body: good),
            "/corrupt": TestResponse(body: Array(good.prefix(good.count / 2))),
            "/wrong": TestResponse(body: Array(try JSONSerialization.data(withJSONObject: ["version": "901", "operators": [["name": "Op", "logs": [wrongID]]]]))),
            "/older": TestResponse(body: Self.list(version: "899")),
            "/reset": TestResponse(body: Self.list(version: "902"), cutAfter: (bytes: 100, reset: true)),
            "/truncated": TestResponse(body: Self.list(version: "902"), cutAfter: (bytes: 100, reset: false)),
        ]
        try await Self.serving(answers) { apple in
            let first = try await apple.update()
            #expect(first.status == 0, "\(first)")
            let before = try apple.snapshot()
            let result: ATSTool.Result
            let reason: String
            switch failure {
            case .corrupt: (result, reason) = (try await apple.update("/corrupt"), "was refused: it is not JSON")
            case .wrongLogID: (result, reason) = (try await apple.update("/wrong"), "'log_id' is not the SHA-256 of 'key'")
            case .olderVersion: (result, reason) = (try await apple.update("/older"), "its version 899 is older than the kept list's 900")
            case .resetMidBody: (result, reason) = (try await apple.update("/reset"), "could not be fetched")
            case .truncatedBody: (result, reason) = (try await apple.update("/truncated"), "could not be fetched")
            case .notFound: (result, reason) = (try await apple.update("/missing"), "the server answered 404 Not Found")
            case .untrustedServer:
                // The same name, under a root this machine does not trust.
                let other = PKI.root("Not Trusted Root")
                let leaf = other.leaf(dns: [Self.appleHost])
                let stranger = try await TestServer.https(chain: [leaf], key: leaf.key) { _ in TestResponse(body: Self.list(version: "999")) }
                result = try await ATSTool.run(["ct", "update", "--from", "https://\(Self.appleHost):\(stranger.port)\(Self.path)",
                                                "--resolve", "\(Self.appleHost):127.0.0.1"], environment: apple.environment)
                await stranger.shutdown()
                reason = "could not be fetched"
            }
            #expect(result.status == 1, "\(result)")
            #expect(result.standardError.contains(reason), "\(result)")
            #expect(result.standardError.contains("The kept list is unchanged"), "\(result)")
            // No dependency's raw text: no Swift type dump, no BoringSSL source path.
            #expect(!result.standardError.contains("NIOSSL") && !result.standardError.contains(".cc:"), "\(result)")
            #expect(try apple.snapshot() == before)
        }
    }

    @Test func twoUpdatesAtOnceLeaveOneWholeList() async throws {
        let answers = [Self.path: TestResponse(body: Self.list(version: "900")), "/next": TestResponse(body: Self.list(version: "901"))]
        try await Self.serving(answers) { apple in
            async let a = apple.update()
            async let b = apple.update("/next")
            let (ra, rb) = try await (a, b)
            #expect(ra.status == 0 || ra.standardError.contains("older than the kept list's 901"), "\(ra)")
            #expect(rb.status == 0, "\(rb)")
            let status = try await ATSTool.run(["ct", "status", "--json"], environment: apple.environment)
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any], "\(status)")
            #expect(doc["version"] as? String == "901", "\(status)")
            #expect((doc["problems"] as? [Any])?.isEmpty == true, "\(status)")
        }
    }

    @Test func aCacheFolderThatCannotBeWrittenIsAClearFailure() async throws {
        try await Self.serving([Self.path: TestResponse(body: Self.list(version: "900"))]) { apple in
            let blocked = try apple.cache.write("not-a-folder", "a file where the cache folder should be")
            let result = try await apple.update(Self.path, ["--cache-dir", blocked + "/ct"])
            #expect(result.status == 1, "\(result)")
            #expect(result.standardError.contains("the CT log list cannot be kept in \(blocked)/ct"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: apple.folder))
        }
    }

    @Test func anUpdateFromAFileNeedsNoNetwork() async throws {
        let cache = try TemporaryDirectory()
        let file = try cache.write("list.json", bytes: Self.list(version: "777"))
        let environment = ["XDG_CACHE_HOME": cache.path, "ATS_CT_LOG_LIST": ""]
        let update = try await ATSTool.run(["ct", "update", "--from", file], environment: environment)
        #expect(update.status == 0, "\(update)")
        let status = try await ATSTool.run(["ct", "status"], environment: environment)
        #expect(status.standardOutput.contains("version 777") && status.standardOutput.contains("CT enforced until"), "\(status)")
        // Plain http is refused before anything is fetched: the list decides what is trusted.
        let plain = try await ATSTool.run(["ct", "update", "--from", "http://valid.apple.com/x"], environment: environment)
        #expect(plain.status == 2, "\(plain)")
    }

    @Test func theRefresherWarnsOnceWhenEnforcementStops() throws {
        let fetched = Date(timeIntervalSince1970: 1_790_000_000)
        let list = try CTLogList(json: Self.list(version: "5"), source: .cached("x"), date: fetched)
        var warning = CTLogListStaleWarning()
        #expect(warning.check(list, at: fetched.addingTimeInterval(59 * 86_400)) == nil)
        let first = warning.check(list, at: fetched.addingTimeInterval(60 * 86_400))
        #expect(first?.hasPrefix("Certificate Transparency is no longer enforced") == true)
        #expect(warning.check(list, at: fetched.addingTimeInterval(61 * 86_400)) == nil)
        // A current list in between, then a stale one again: warned again.
        let fresh = try CTLogList(json: Self.list(version: "6"), source: .cached("x"), date: fetched.addingTimeInterval(61 * 86_400))
        #expect(warning.check(fresh, at: fetched.addingTimeInterval(62 * 86_400)) == nil)
        #expect(warning.check(fresh, at: fetched.addingTimeInterval(122 * 86_400)) != nil)
    }

    @Test func theRefresherKeepsTheListThroughTheClient() async throws {
        try await Self.serving([Self.path: TestResponse(body: Self.list(version: "910"))]) { apple in
            let store = CTLogListStore(folder: apple.folder)
            var configuration = HTTPSClientConfiguration(anchors: apple.pki.publicAnchors, addressOverrides: [Self.appleHost: "127.0.0.1"])
            configuration.certificateTransparency = CertificateTransparencyOptions(mode: .report)
            let client = HTTPSClient(configuration: configuration)
            let refresher = CTLogListRefresher(store: store, client: client, address: apple.url())
            let list = await refresher.refreshOnce()
            await client.shutdown()
            #expect(list?.version == "910")
            #expect(list?.source == .cached(apple.url()))
        }
    }
}
