import Foundation
import TestSupport
import Testing

@testable import TransportTrust

/// Four real chains with embedded SCTs, checked at their check times against Apple's real log list (version 511,
/// bundled) and the Apple roots they chain to, which come in as system roots.
@Suite struct RealSCTChainTests {
    struct Vector: Decodable, Sendable, CustomTestStringConvertible {
        var file: String
        var example_check_time: String
        var scts: [SCT]
        struct SCT: Decodable, Sendable {
            var log: String
            var log_id: String
            var `operator`: String
        }
        var testDescription: String { file }
    }

    static let folder = Repository.appleChains
    static let vectors: [Vector] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("chains.json")) else { return [] }
        return (try? JSONDecoder().decode([Vector].self, from: data)) ?? []
    }()

    static func trust(_ vector: Vector, list: CTLogList? = nil, at time: Date? = nil) throws -> ServerTrust {
        let chain = try CertificateLoader.certificates(atPath: folder.appendingPathComponent(vector.file).path)
        let roots = SystemRoots.load(files: [folder.appendingPathComponent("roots.pem").path], directories: [])
        var policy = TrustPolicy.ssl(host: nil)
        policy.certificateTransparency = CertificateTransparencyOptions(mode: .enforce, logList: list)
        let trust = ServerTrust(chain: chain, anchors: TrustAnchors(custom: [], anchorsOnly: false, systemRoots: roots), policy: policy,
                                validationTime: try time ?? RFC3339.parseStrictly(vector.example_check_time))
        return trust
    }

    @Test func allFourAreHere() { #expect(Self.vectors.count == 4) }

    @Test(arguments: vectors)
    func isTrustedWithEverySCTVerified(_ vector: Vector) async throws {
        let trust = try Self.trust(vector)
        let verdict = await TrustEngine(cacheCapacity: 0).evaluate(trust)
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.anchor == .system)
        let report = try #require(verdict.certificateTransparency)
        #expect(report.status == .compliant)
        #expect(report.scts.count == vector.scts.count)
        #expect(report.scts.map(\.logID) == vector.scts.map(\.log_id))
        #expect(report.scts.map(\.log) == vector.scts.map { Optional($0.log) })
        #expect(report.scts.allSatisfy { $0.verified == true && $0.counted })
        #expect(report.logList.contains("version 511"))
    }

    @Test(arguments: vectors)
    func isRefusedWhenItsLogsAreRejected(_ vector: Vector) async throws {
        let ids = Set(vector.scts.map(\.log_id))
        let list = try Self.editedList { log in
            if ids.contains(log["log_id"] as? String ?? "") { log["state"] = ["rejected": ["timestamp": "2026-01-01T00:00:00Z"]] }
        }
        let trust = try Self.trust(vector, list: list)
        let verdict = await TrustEngine(cacheCapacity: 0).evaluate(trust)
        #expect(!verdict.isTrusted)
        #expect(verdict.codes == [.certificateTransparency])
        #expect(verdict.certificateTransparency?.scts.allSatisfy { $0.reason?.contains("is rejected in the list since 2026-01-01") == true } == true)
    }

    @Test(arguments: vectors)
    func isRefusedOneDayAfterItsShardsWindow(_ vector: Vector) async throws {
        let trust = try Self.trust(vector)
        let notAfter = try #require(trust.parsedCertificates?.first?.certificate?.notValidAfter)
        let ids = Set(vector.scts.map(\.log_id))
        // Each of its logs' windows now ends a day before the leaf expires.
        let end = RFC3339.format(notAfter.addingTimeInterval(-86400))
        let list = try Self.editedList { log in
            if ids.contains(log["log_id"] as? String ?? "") {
                log["temporal_interval"] = ["start_inclusive": "2025-01-01T00:00:00Z", "end_exclusive": end]
            }
        }
        let shifted = try Self.trust(vector, list: list)
        let verdict = await TrustEngine(cacheCapacity: 0).evaluate(shifted)
        #expect(!verdict.isTrusted)
        #expect(verdict.certificateTransparency?.countedSCTs == 0)
        #expect(verdict.failure(.certificateTransparency)?.message.contains("only logs certificates expiring") == true)
    }

    /// The bundled list's JSON, with `edit` applied to every log.
    static func editedList(_ edit: (inout [String: Any]) -> Void) throws -> CTLogList {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/TransportTrust/Resources/CTLogList/apple_log_list.json")
        var doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any])
        var operators = try #require(doc["operators"] as? [[String: Any]])
        for o in operators.indices {
            for kind in ["logs", "tiled_logs"] {
                var logs = operators[o][kind] as? [[String: Any]] ?? []
                for l in logs.indices { edit(&logs[l]) }
                operators[o][kind] = logs
            }
        }
        doc["operators"] = operators
        return try CTLogList(json: Array(JSONSerialization.data(withJSONObject: doc)), source: .supplied("edited list"))
    }
}
