import Crypto
import Foundation
import _CryptoExtras

/// One Certificate Transparency log, as a log list describes it.
public struct CTLog: Sendable, Hashable {
    /// The states of Apple's log program (support.apple.com/103703).
    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        /// Applied for inclusion; its SCTs do not count yet.
        case pending
        /// Accepted; its SCTs count.
        case qualified
        /// In use; its SCTs count.
        case usable
        /// Frozen, no longer adding entries; SCTs issued before then count.
        case readonly
        /// Retired; SCTs issued before the retirement count.
        case retired
        /// Refused or removed; its SCTs never count.
        case rejected
    }

    /// RFC 6962 logs, and static-ct-api ("tiled") logs.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// An RFC 6962 log.
        case rfc6962
        /// A static-ct-api ("tiled") log.
        case tiled
    }

    /// SHA-256 of ``key``.
    public var logID: [UInt8]
    /// The log's description in the list.
    public var name: String
    /// The operator that runs it.
    public var operatorName: String
    /// The log's SubjectPublicKeyInfo, DER.
    public var key: [UInt8]
    /// Its state, which decides whether its SCTs count.
    public var state: State
    /// When the log entered ``state``: for readonly the freeze, for retired the retirement.
    public var stateSince: Date
    /// A sharded log accepts only certificates whose notAfter falls in `[start, end)`.
    public var temporalInterval: Range<Date>?
    /// RFC 6962 or static-ct-api.
    public var kind: Kind

    /// Apple's device list drops pending and rejected logs (`BuildTrustedCTLogsPlist.py`).
    public var isTrusted: Bool { state != .pending && state != .rejected }
}

/// A CT log list in Apple's schema v5 (`log_list_schema_v5.json`): what an iPhone trusts for CT.
///
/// The package ships Apple's list; a caller may supply another (`init(json:source:)`). Two lists
/// are equal when their JSON bytes are, so a list can key caches.
public struct CTLogList: Sendable, Hashable {
    /// Where a log list came from, for messages and reports.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        /// The list inside this package, with the day it was last confirmed current.
        case bundled
        /// A list the caller supplied. As trustd does with a caller's list, it is used whatever its age.
        case supplied(String)
        /// A list a ``CTLogListStore`` fetched from this address and kept; its date is when it was fetched, and it
        /// goes out of date as a device's list does.
        case cached(String)

        public var description: String {
            switch self {
            case .bundled: return "the bundled Apple CT log list"
            case .supplied(let name): return "the CT log list \(name)"
            case .cached(let address): return "the CT log list fetched from \(address)"
            }
        }
    }

    /// The list's version, as it names itself.
    public let version: String
    /// The day the list was last known current; nil for a supplied list, which is never considered stale.
    public let date: Date?
    /// Where the list came from: bundled, kept, or given.
    public let source: Source
    /// Every log in the list.
    public let logs: [CTLog]
    /// SHA-256 of the JSON the list was read from.
    public let identity: [UInt8]
    private let byID: [[UInt8]: Int]
    /// The keys of the trusted logs, parsed once: an SCT check should cost its signature, not a key parse.
    let keys: [[UInt8]: LogKey]

    /// Reads a log list in Apple's schema v5 (`operators[].logs[]` and `operators[].tiled_logs[]`).
    public init(json: [UInt8], source: Source, date: Date? = nil) throws(CTLogListError) {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(json))
        } catch let error as DecodingError {
            throw .invalid(source: source.description, reason: Self.describe(error))
        } catch {
            throw .invalid(source: source.description, reason: "it is not JSON")
        }
        var logs: [CTLog] = []
        var byID: [[UInt8]: Int] = [:]
        for (o, op) in document.operators.enumerated() {
            for (entries, kind) in [(op.logs ?? [], CTLog.Kind.rfc6962), (op.tiled_logs ?? [], .tiled)] {
                for (l, entry) in entries.enumerated() {
                    let place = "operators[\(o)].\(kind == .tiled ? "tiled_logs" : "logs")[\(l)] (\(entry.description ?? "unnamed"))"
                    let log = try Self.log(entry, operatorName: op.name, kind: kind, place: place, source: source)
                    guard byID.updateValue(logs.count, forKey: log.logID) == nil else {
                        throw .invalid(source: source.description, reason: "\(place) repeats the log ID \(Data(log.logID).base64EncodedString())")
                    }
                    logs.append(log)
                }
            }
        }
        guard !logs.isEmpty else { throw .invalid(source: source.description, reason: "it lists no logs") }
        self.version = document.version ?? "unknown"
        self.date = date
        self.source = source
        self.logs = logs
        self.byID = byID
        self.keys = Dictionary(uniqueKeysWithValues: logs.filter(\.isTrusted).map { ($0.logID, LogKey($0.key)) })
        self.identity = Array(SHA256.hash(data: json))
        self.summary = "\(source) (version \(self.version)\(date.map { ", last confirmed current \(RFC3339.day($0))" } ?? ""))"
        self.reference = CTLogListReference(source: source, version: self.version, confirmed: date)
    }

    /// Which list this is, as reports name it.
    public let reference: CTLogListReference

    /// Orders two list versions as Apple numbers them ("511", or dotted like "1.2"): numerically, part by part.
    /// A part that is not a number compares as text, after every number.
    package static func compareVersions(_ a: String, _ b: String) -> ComparisonResult {
        let pa = a.split(separator: ".", omittingEmptySubsequences: false)
        let pb = b.split(separator: ".", omittingEmptySubsequences: false)
        for i in 0..<max(pa.count, pb.count) {
            let x = i < pa.count ? String(pa[i]) : "0"
            let y = i < pb.count ? String(pb[i]) : "0"
            switch (UInt64(x), UInt64(y)) {
            case let (m?, n?) where m != n: return m < n ? .orderedAscending : .orderedDescending
            case (_?, nil): return .orderedAscending
            case (nil, _?): return .orderedDescending
            case (nil, nil) where x != y: return x < y ? .orderedAscending : .orderedDescending
            default: continue
            }
        }
        return .orderedSame
    }

    /// The log with this id (the SHA-256 of its key), nil when the list has none.
    public func log(id: [UInt8]) -> CTLog? { byID[id].map { logs[$0] } }

    public static func == (a: CTLogList, b: CTLogList) -> Bool { a.identity == b.identity && a.date == b.date && a.source == b.source }
    public func hash(into h: inout Hasher) { h.combine(identity) }

    /// How old the list is at `time`, in whole days; nil for a supplied list.
    public func age(at time: Date) -> Int? {
        guard let date else { return nil }
        return Int((time.timeIntervalSince(date) / 86_400).rounded(.down))
    }

    /// Apple stops enforcing CT on a device whose list has not been confirmed current for 60 days.
    public static let maximumAgeDays = 60

    /// The first instant at which the list is ``maximumAgeDays`` days old; nil for a supplied list. trustd enforces
    /// only while the last check-in is less than 60 × 86,400 s ago.
    var outOfDateFrom: Date? { date.map { $0.addingTimeInterval(Double(Self.maximumAgeDays) * 86_400) } }

    /// True when an iPhone with this list would still enforce CT at `time`.
    public func isCurrent(at time: Date) -> Bool { outOfDateFrom.map { time < $0 } ?? true }

    /// The list in words, with its version and date: made once, since every CT report names it.
    public let summary: String

    private static func log(_ e: Document.Log, operatorName: String, kind: CTLog.Kind, place: String,
                            source: Source) throws(CTLogListError) -> CTLog {
        func bad(_ reason: String) -> CTLogListError { .invalid(source: source.description, reason: "\(place): \(reason)") }
        guard let key = Data(base64Encoded: e.key), !key.isEmpty else { throw bad("'key' is not base64") }
        guard let id = Data(base64Encoded: e.log_id), id.count == 32 else { throw bad("'log_id' is not 32 bytes of base64") }
        // The ID is defined as the key's hash; a list where they differ would let one log's SCTs pass as another's.
        guard Array(SHA256.hash(data: key)) == Array(id) else { throw bad("'log_id' is not the SHA-256 of 'key'") }
        guard e.state.count == 1, let (name, info) = e.state.first else { throw bad("'state' must hold exactly one state") }
        guard let state = CTLog.State(rawValue: name) else {
            throw bad("'state' is '\(name)', not one of \(CTLog.State.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let since = RFC3339.parse(info.timestamp) else { throw bad("the \(name) timestamp '\(info.timestamp)' is not RFC 3339") }
        var interval: Range<Date>?
        if let t = e.temporal_interval {
            guard let start = RFC3339.parse(t.start_inclusive), let end = RFC3339.parse(t.end_exclusive), start < end else {
                throw bad("'temporal_interval' needs RFC 3339 'start_inclusive' before 'end_exclusive'")
            }
            interval = start..<end
        }
        return CTLog(logID: Array(id), name: e.description ?? Data(id).base64EncodedString(), operatorName: operatorName,
                     key: Array(key), state: state, stateSince: since, temporalInterval: interval, kind: kind)
    }

    private static func describe(_ error: DecodingError) -> String {
        JSONProblem.describe(error, topLevel: "the top level is not an object of Apple's schema v5 (with 'version' and 'operators')")
    }

    /// Apple's schema v5, as far as the policy reads it.
    private struct Document: Decodable {
        var version: String?
        var operators: [Operator]

        struct Operator: Decodable {
            var name: String
            var logs: [Log]?
            var tiled_logs: [Log]?
        }

        struct Log: Decodable {
            var description: String?
            var key: String
            var log_id: String
            var state: [String: StateInfo]
            var temporal_interval: Interval?
        }

        struct StateInfo: Decodable { var timestamp: String }
        struct Interval: Decodable {
            var start_inclusive: String
            var end_exclusive: String
        }
    }
}

/// A log's public key, as RFC 6962 §2.1.4 allows: ECDSA over P-256, or RSA of at least 2048 bits.
///
/// `@unchecked`: swift-crypto 3.12 does not mark its public keys `Sendable`, though they are immutable once made and
/// only ever read (verification does not mutate the BoringSSL key).
enum LogKey: @unchecked Sendable {
    case p256(P256.Signing.PublicKey)
    case rsa(_RSA.Signing.PublicKey)
    case unusable

    init(_ spki: [UInt8]) {
        if let key = try? P256.Signing.PublicKey(derRepresentation: spki) {
            self = .p256(key)
        } else if RSAKeyScreen.isReadableRSA(spkiDER: spki), let key = try? _RSA.Signing.PublicKey(derRepresentation: spki), key.keySizeInBits >= 2048 {
            self = .rsa(key)
        } else {
            self = .unusable
        }
    }
}

/// Why a CT log list cannot be used: what is wrong, and in which file.
public enum CTLogListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The list fails the check (schema v5, log ids, states, size), with the reason.
    case invalid(source: String, reason: String)
    /// The list the package ships cannot be read, with why.
    case bundledListMissing(String)

    public var description: String {
        switch self {
        case .invalid(let source, let reason):
            return "\(source) cannot be used: \(reason). Give a log list in Apple's schema v5 (valid.apple.com/ct/log_list/current_log_list.json)"
        case .bundledListMissing(let reason):
            return "the bundled CT log list cannot be read (\(reason)); reinstall, or give a log list of your own"
        }
    }
}
