import Foundation
import TestSupport
import Testing

@testable import TransportTrust

/// The kept CT log list: checked before it is kept, replaced whole or not at all, never by an older list.
@Suite struct CTLogListStoreTests {
    static let logs = (0..<3).map { TestCTLog(name: "Store Log \($0)") }
    static let fetched = Date(timeIntervalSince1970: 1_790_000_000)

    /// Every file in the store's folder with its bytes, to show a refused update changed nothing.
    static func snapshot(_ store: CTLogListStore) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: store.folder) where name != ".lock" {
            let path = (store.folder as NSString).appendingPathComponent(name)
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            files[name] = isFolder.boolValue ? Data("folder".utf8) : try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return files
    }

    static func keptStore(version: String = "600") throws -> (TemporaryDirectory, CTLogListStore) {
        let dir = try TemporaryDirectory()
        let store = CTLogListStore(folder: dir.file("cache/ct"))
        _ = try store.keep(json: TestCTLog.logList(logs, version: version), source: "https://ct.example.test/list.json", fetched: fetched)
        return (dir, store)
    }

    @Test func aKeptListLoadsWithItsSourceAndTime() throws {
        let (dir, store) = try Self.keptStore()
        defer { withExtendedLifetime(dir) {} }
        let list = try #require(try store.load())
        #expect(list.version == "600")
        #expect(list.source == .cached("https://ct.example.test/list.json"))
        #expect(list.date == Self.fetched)
        #expect(list.reference == CTLogListReference(source: .cached("https://ct.example.test/list.json"), version: "600", confirmed: Self.fetched))
        let metadata = try #require(try store.metadata())
        #expect(metadata.sha256 == list.identity.map { String(format: "%02x", $0) }.joined())
        #expect(metadata.version == "600" && metadata.fetched == Self.fetched)
        // The device rule: current for 60 days after the fetch, then not.
        #expect(list.isCurrent(at: Self.fetched.addingTimeInterval(59 * 86_400)))
        #expect(!list.isCurrent(at: Self.fetched.addingTimeInterval(60 * 86_400)))
    }

    @Test func anEmptyStoreHoldsNothingAndTheBundledListIsInForce() throws {
        let dir = try TemporaryDirectory()
        let store = CTLogListStore(folder: dir.file("never-made"))
        #expect(try store.load() == nil)
        let bundled = try CTLogList.bundled()
        let (list, problem) = store.listInForce(bundled: bundled)
        #expect(list == bundled && problem == nil)
    }

    @Test func theNewerOfKeptAndBundledIsInForce() throws {
        let (dir, store) = try Self.keptStore(version: "600")
        defer { withExtendedLifetime(dir) {} }
        let older = try CTLogList(json: TestCTLog.logList(Self.logs, version: "511"), source: .bundled, date: Self.fetched)
        let newer = try CTLogList(json: TestCTLog.logList(Self.logs, version: "700"), source: .bundled, date: Self.fetched)
        #expect(store.listInForce(bundled: older).list?.source == .cached("https://ct.example.test/list.json"))
        #expect(store.listInForce(bundled: newer).list?.source == .bundled)
        // The same version: the one confirmed current later.
        let sameEarlier = try CTLogList(json: TestCTLog.logList(Self.logs, version: "600"), source: .bundled, date: Self.fetched.addingTimeInterval(-86_400))
        #expect(store.listInForce(bundled: sameEarlier).list?.source == .cached("https://ct.example.test/list.json"))
    }

    @Test func anOlderListIsRefusedAndTheKeptOneStays() throws {
        let (dir, store) = try Self.keptStore(version: "600")
        defer { withExtendedLifetime(dir) {} }
        let before = try Self.snapshot(store)
        #expect(throws: CTLogListStoreError.olderThanKept(source: "older.json", version: "599", kept: "600")) {
            try store.keep(json: TestCTLog.logList(Self.logs, version: "599"), source: "older.json", fetched: Date())
        }
        #expect(try Self.snapshot(store) == before)
        // A newer one replaces it, and the old list's file goes.
        _ = try store.keep(json: TestCTLog.logList(Self.logs, version: "601"), source: "newer.json", fetched: Date())
        #expect(try store.load()?.version == "601")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder).filter { $0.hasPrefix("log_list-") }.count == 1)
    }

    @Test func badListsAreRefusedAndTheKeptOneStays() throws {
        let (dir, store) = try Self.keptStore()
        defer { withExtendedLifetime(dir) {} }
        let before = try Self.snapshot(store)
        var wrongID = TestCTLog(name: "Wrong").listEntry
        wrongID["log_id"] = Data(TestCTLog(name: "Other").logID).base64EncodedString()
        let wrong = Array(try JSONSerialization.data(withJSONObject: ["version": "700", "operators": [["name": "Op", "logs": [wrongID]]]]))
        let noVersion = Array(try JSONSerialization.data(withJSONObject: ["operators": [["name": "Op", "logs": [TestCTLog(name: "A").listEntry]]]]))
        let cases: [([UInt8], String)] = [
            (Array(TestCTLog.logList(Self.logs, version: "700").prefix(200)), "it is not JSON"),
            (wrong, "'log_id' is not the SHA-256 of 'key'"),
            (noVersion, "it has no 'version'"),
            (Array("{\"version\":\"700\",\"operators\":[]}".utf8), "it lists no logs"),
        ]
        for (json, reason) in cases {
            #expect { try store.keep(json: json, source: "bad.json", fetched: Date()) } throws: { error in
                guard case .invalidList(let source, let text)? = error as? CTLogListStoreError else { return false }
                return source == "bad.json" && text.contains(reason)
            }
        }
        let huge = [UInt8](repeating: 0x20, count: CTLogListStore.maximumListBytes + 1)
        #expect(throws: CTLogListStoreError.tooLarge(source: "huge.json", bytes: huge.count)) {
            try store.keep(json: huge, source: "huge.json", fetched: Date())
        }
        #expect(try Self.snapshot(store) == before)
    }

    @Test func aFailedFetchChangesNothing() async throws {
        struct Gone: Error, CustomStringConvertible { var description: String { "the server answered 404 Not Found" } }
        let (dir, store) = try Self.keptStore()
        defer { withExtendedLifetime(dir) {} }
        let before = try Self.snapshot(store)
        await #expect(throws: CTLogListStoreError.fetchFailed(source: "https://ct.example.test/x", reason: "the server answered 404 Not Found")) {
            try await store.refresh(from: "https://ct.example.test/x") { _ in throw Gone() }
        }
        #expect(try Self.snapshot(store) == before)
        // The fetcher is asked for the address given, and what it returns is kept.
        let list = try await store.refresh(from: "https://ct.example.test/new") { address in
            #expect(address == "https://ct.example.test/new")
            return TestCTLog.logList(Self.logs, version: "650")
        }
        #expect(list.version == "650")
        #expect(try store.load()?.source == .cached("https://ct.example.test/new"))
    }

    @Test func aWriteThatFailsLeavesTheKeptListWhole() throws {
        let (dir, store) = try Self.keptStore()
        defer { withExtendedLifetime(dir) {} }
        let before = try Self.snapshot(store)
        // Something in the way of the new list's file: its rename fails as on a folder that cannot be written.
        let next = TestCTLog.logList(Self.logs, version: "700")
        let identity = try CTLogListStore.check(json: next, source: "x").identity
        let name = "log_list-" + identity.map { String(format: "%02x", $0) }.joined() + ".json"
        try FileManager.default.createDirectory(atPath: (store.folder as NSString).appendingPathComponent(name) + "/blocker", withIntermediateDirectories: true)
        #expect { try store.keep(json: next, source: "next.json", fetched: Date()) } throws: { error in
            guard case .notWritable(let folder, _)? = error as? CTLogListStoreError else { return false }
            return folder == store.folder
        }
        var after = try Self.snapshot(store)
        after[name] = nil
        #expect(after == before)
        #expect(try store.load()?.version == "600")
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder).allSatisfy { !$0.hasSuffix(".tmp") })
    }

    @Test func aFolderThatCannotBeMadeIsSaidInWords() throws {
        let dir = try TemporaryDirectory()
        let file = try dir.write("a-file", "not a folder")
        let store = CTLogListStore(folder: file + "/ct")
        #expect { try store.keep(json: TestCTLog.logList(Self.logs, version: "1"), source: "x", fetched: Date()) } throws: { error in
            guard let error = error as? CTLogListStoreError, case .notWritable = error else { return false }
            return "\(error)".contains("cannot be kept in \(file)/ct") && "\(error)".contains("the kept list is unchanged")
        }
    }

    @Test func aDamagedCacheFallsBackToTheBundledListWithItsReason() throws {
        let (dir, store) = try Self.keptStore()
        defer { withExtendedLifetime(dir) {} }
        let metadata = try #require(try store.metadata())
        try Data("{}".utf8).write(to: URL(fileURLWithPath: store.folder).appendingPathComponent(metadata.file))
        #expect { try store.load() } throws: { "\($0)".contains("does not have the SHA-256 metadata.json records") }
        let bundled = try CTLogList.bundled()
        let (list, problem) = store.listInForce(bundled: bundled)
        #expect(list == bundled)
        #expect(problem != nil)
        // A refresh replaces the damaged cache.
        _ = try store.keep(json: TestCTLog.logList(Self.logs, version: "1"), source: "x", fetched: Date())
        #expect(try store.load()?.version == "1")
    }

    @Test func manyUpdatesAtOnceKeepOneWholeListTheNewest() async throws {
        let dir = try TemporaryDirectory()
        let store = CTLogListStore(folder: dir.file("ct"))
        let versions = (1...16).map { String(600 + $0) }
        await withTaskGroup(of: Void.self) { group in
            for version in versions.shuffled() {
                group.addTask { _ = try? store.keep(json: TestCTLog.logList(Self.logs, version: version), source: version, fetched: Self.fetched) }
            }
        }
        // The newest always wins: nothing newer can refuse it, and nothing older can replace it.
        let list = try #require(try store.load())
        #expect(list.version == "616")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.folder).filter { $0.hasPrefix("log_list-") }.count == 1)
    }

    @Test(arguments: [("511", "512", ComparisonResult.orderedAscending), ("1.10", "1.9", .orderedDescending), ("7", "7.0", .orderedSame),
                      ("12", "9", .orderedDescending), ("2", "beta", .orderedAscending)])
    func versionsCompareAsNumbers(_ a: String, _ b: String, _ expected: ComparisonResult) {
        #expect(CTLogList.compareVersions(a, b) == expected)
    }

    @Test func theUserCacheFollowsXDG() {
        #expect(CTLogListStore.userCache(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"])?.folder == "/x/cache/swift-transport-security/ct")
        #expect(CTLogListStore.userCache(environment: ["HOME": "/home/u"])?.folder == "/home/u/.cache/swift-transport-security/ct")
        // A relative XDG_CACHE_HOME is ignored, as the specification says.
        #expect(CTLogListStore.userCache(environment: ["XDG_CACHE_HOME": "rel", "HOME": "/home/u"])?.folder == "/home/u/.cache/swift-transport-security/ct")
        #expect(CTLogListStore.userCache(environment: [:]) == nil)
    }

    @Test func theStatusSaysWhetherCTIsEnforcedAndWithWhichList() throws {
        let list = try CTLogList(json: TestCTLog.logList(Self.logs, version: "600"), source: .cached("https://ct.example.test/l"), date: Self.fetched)
        let current = CertificateTransparencyOptions(mode: .enforce, logList: list).status(at: Self.fetched.addingTimeInterval(86_400))
        #expect(current.enforced && current.ctLogList?.source == .cached && current.ctLogList?.version == "600")
        #expect(current.summary.hasPrefix("enforced where Apple requires it, with the CT log list fetched from https://ct.example.test/l"))
        let stale = CertificateTransparencyOptions(mode: .enforce, logList: list).status(at: Self.fetched.addingTimeInterval(61 * 86_400))
        #expect(!stale.enforced && stale.summary.hasPrefix("not enforced:") && stale.summary.contains("61 days old"))
        #expect(!CertificateTransparencyOptions(mode: .report, logList: list).status(at: Self.fetched).enforced)
        let off = CertificateTransparencyOptions(mode: .off).status(at: Self.fetched)
        #expect(!off.enforced && off.ctLogList == nil)
    }
}
