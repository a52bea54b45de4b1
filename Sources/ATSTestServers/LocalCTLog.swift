import Crypto
import Foundation
import TransportTrust
import X509

/// A Certificate Transparency log of the local PKI: its own key, SCTs it signs for the CT cases, and its entry in the log
/// list `ats serve` writes (Apple's schema v5), which clients must be given for those cases to be judged.
///
/// `@unchecked`: swift-crypto 3.12 does not mark its keys `Sendable`, though they are immutable once made.
public struct LocalCTLog: @unchecked Sendable {
    /// The log's description, as the log list names it.
    public let name: String
    let key = P256.Signing.PrivateKey()

    var spki: [UInt8] { Array(key.publicKey.derRepresentation) }
    var logID: [UInt8] { Array(SHA256.hash(data: spki)) }

    /// A v1 SCT over the precertificate entry of `tbs` issued by `issuer`, timestamped `at`.
    func sct(tbs: [UInt8], issuer: LocalCertificate, at time: Date) throws -> [UInt8] {
        let ms = UInt64(time.timeIntervalSince1970 * 1000)
        let entry = SCTEncoding.precertEntry(timestamp: ms, issuerKeyHash: try EmbeddedSCTs.issuerKeyHash(issuer.certificate), tbs: tbs)
        let signature = Array(try key.signature(for: entry).derRepresentation)
        return SCTEncoding.sct(logID: logID, timestamp: ms, signatureAlgorithm: 3, signature: signature)
    }

    /// A log list holding `logs`, usable since `since`, one operator each.
    public static func logList(_ logs: [LocalCTLog], since: Date) throws -> [UInt8] {
        let operators: [[String: Any]] = logs.map { log in
            ["name": "Operator of \(log.name)", "email": [String](), "tiled_logs": [[String: Any]](), "logs": [[
                "description": log.name, "key": Data(log.spki).base64EncodedString(), "log_id": Data(log.logID).base64EncodedString(),
                "mmd": 86400, "url": "https://127.0.0.1/ct/", "state": ["usable": ["timestamp": RFC3339.format(since)]],
            ] as [String: Any]]]
        }
        return Array(try JSONSerialization.data(withJSONObject: ["version": "local", "operators": operators], options: [.sortedKeys]))
    }
}
