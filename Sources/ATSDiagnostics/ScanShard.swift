import Crypto
import Foundation

/// One part of a fleet scan split over machines: shard `index` of `count`, chosen by host.
///
/// A host's shard is the SHA-256 of its name, lower-cased as URLs carry it, read as a big-endian number, modulo
/// `count`: the same on every machine, in every process and whatever the order of the targets, so N machines given
/// the same list and `1/N` … `N/N` diagnose every host exactly once. Every URL of one host falls in one shard.
public struct ScanShard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based, as job arrays count from 1 or are told to (`$((JOB_COMPLETION_INDEX + 1))`).
    public let index: Int
    /// How many shards the scan is split into.
    public let count: Int

    /// The most shards a scan may be split into.
    public static let maximumCount = 1 << 16

    /// Reads `K/N`, with 1 ≤ K ≤ N.
    public init(_ text: String) throws(ScanShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { throw ScanShardError(text: text, reason: "it is not K/N, such as 2/8") }
        guard (1...Self.maximumCount).contains(n) else { throw ScanShardError(text: text, reason: "N must be from 1 to \(Self.maximumCount)") }
        guard (1...n).contains(k) else { throw ScanShardError(text: text, reason: "K must be from 1 to N (\(n)); shards count from 1") }
        index = k
        count = n
    }

    public var description: String { "\(index)/\(count)" }

    /// The shard, from 1 to `count`, that `host` falls in.
    public static func shard(of host: String, count: Int) -> Int {
        let digest = SHA256.hash(data: Data(host.lowercased().utf8))
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return Int(value % UInt64(max(1, count))) + 1
    }

    /// Whether this shard diagnoses `host`.
    public func contains(host: String) -> Bool { Self.shard(of: host, count: count) == index }
}

/// A shard that is not `K/N`, with why.
public struct ScanShardError: Error, Sendable, CustomStringConvertible {
    /// The shard as written.
    public var text: String
    /// Why it is not a shard, and what to write.
    public var reason: String
    public var description: String { "'\(text)' is not a shard: \(reason)" }
}
