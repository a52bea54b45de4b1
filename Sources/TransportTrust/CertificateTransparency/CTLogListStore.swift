import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Apple's CT log list kept current the way an iPhone keeps it: fetched from Apple, checked, and kept in a folder.
///
/// A device checks in with Apple and refreshes its list; a list not confirmed current for 60 days stops CT being
/// enforced (``CTLogList/maximumAgeDays``). The store does the same for a server or a CI job:
/// ``refresh(from:now:fetch:)`` takes the list from a fetcher the caller supplies (so the store does no network
/// I/O), checks it as strictly as the bundled list is checked, and keeps it with when it was fetched. A failed or
/// interrupted refresh never replaces a good list, and a list older than the kept one, by version, is refused.
///
/// ``listInForce(bundled:)`` chooses what a verdict uses: the newer of the kept and the bundled list.
public struct CTLogListStore: Sendable {
    /// Where Apple's devices fetch the list.
    public static let appleListAddress = "https://valid.apple.com/ct/log_list/current_log_list.json"

    /// The largest list accepted: Apple's is about 60 KB, so anything near this is not a log list.
    public static let maximumListBytes = 4 << 20

    /// The folder the list and its metadata are kept in.
    public let folder: String

    /// A store in `folder`, which is created on the first refresh.
    public init(folder: String) {
        self.folder = folder
    }

    /// The store in the user's cache: `$XDG_CACHE_HOME/swift-transport-security/ct`, or
    /// `~/.cache/swift-transport-security/ct` when that variable is unset or not an absolute path (as the XDG base
    /// directory specification says). Nil when neither that variable nor `HOME` is usable.
    public static func userCache(environment: [String: String] = ProcessInfo.processInfo.environment) -> CTLogListStore? {
        let base: String
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = (home as NSString).appendingPathComponent(".cache")
        } else {
            return nil
        }
        return CTLogListStore(folder: (base as NSString).appendingPathComponent("swift-transport-security/ct"))
    }

    /// What is kept about the list beside it.
    public struct Metadata: Sendable, Hashable, Codable {
        /// The address (or file) the list was fetched from.
        public var source: String
        /// When it was fetched: the time it was last confirmed to be Apple's current list.
        public var fetched: Date
        /// The list's own version.
        public var version: String
        /// SHA-256 of the list's bytes, hexadecimal.
        public var sha256: String
        /// The list's file in the folder.
        public var file: String
    }

    private var metadataPath: String { path("metadata.json") }
    private func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    /// The kept list; nil when nothing has been kept yet.
    public func load() throws(CTLogListStoreError) -> CTLogList? {
        guard let (metadata, json) = try readKept() else { return nil }
        do {
            return try CTLogList(json: json, source: .cached(metadata.source), date: metadata.fetched)
        } catch {
            throw .unreadableCache(folder: folder, reason: "the kept list no longer passes the check: \(error.reason)")
        }
    }

    /// The kept list's metadata; nil when nothing has been kept yet.
    public func metadata() throws(CTLogListStoreError) -> Metadata? {
        try readKept()?.metadata
    }

    /// The list a verdict should use when none is given: the newer of the kept list and `bundled`, by version, then
    /// by the day it was last confirmed current.
    public static func newer(_ a: CTLogList?, _ b: CTLogList?) -> CTLogList? {
        guard let a else { return b }
        guard let b else { return a }
        switch CTLogList.compareVersions(a.version, b.version) {
        case .orderedAscending: return b
        case .orderedDescending: return a
        case .orderedSame: return (a.date ?? .distantPast) >= (b.date ?? .distantPast) ? a : b
        }
    }

    /// The newer of the kept list and the bundled one. A kept list that cannot be read is skipped, and its reason
    /// returned, so that a damaged cache falls back to the bundled list instead of to no CT at all.
    public func listInForce(bundled: CTLogList? = try? CTLogList.bundled()) -> (list: CTLogList?, problem: CTLogListStoreError?) {
        do {
            return (Self.newer(try load(), bundled), nil)
        } catch {
            return (bundled, error)
        }
    }

    /// Fetches the list from `source`, checks it, and keeps it when it is at least as new as the kept one.
    /// - Parameters:
    ///   - source: the address (or file) to fetch; it is kept as the list's source.
    ///   - now: the time the list is confirmed current.
    ///   - fetch: reads `source`; its errors are reported as a failed fetch, with their description.
    /// - Returns: the list now kept.
    public func refresh(from source: String = CTLogListStore.appleListAddress, now: Date = Date(),
                        fetch: (String) async throws -> [UInt8]) async throws(CTLogListStoreError) -> CTLogList {
        let json: [UInt8]
        do {
            json = try await fetch(source)
        } catch {
            throw .fetchFailed(source: source, reason: "\(error)")
        }
        return try keep(json: json, source: source, fetched: now)
    }

    /// Checks `json` as Apple's list from `source` and keeps it, unless it is older than the kept list.
    /// The files are replaced by renames under a lock, so a reader sees the old list or the new one, never part of
    /// either, and two refreshes at once keep one whole list.
    public func keep(json: [UInt8], source: String, fetched: Date) throws(CTLogListStoreError) -> CTLogList {
        let list = try Self.check(json: json, source: source, fetched: fetched)
        try makeFolder()
        let lock = try Lock(path: path(".lock"), folder: folder)
        defer { lock.release() }
        if let kept = try? readKept(), CTLogList.compareVersions(list.version, kept.metadata.version) == .orderedAscending {
            throw .olderThanKept(source: source, version: list.version, kept: kept.metadata.version)
        }
        let hash = list.identity.map { String(format: "%02x", $0) }.joined()
        let file = "log_list-\(hash).json"
        let metadata = Metadata(source: source, fetched: fetched, version: list.version, sha256: hash, file: file)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        guard let metadataBytes = try? encoder.encode(metadata) else {
            throw .notWritable(folder: folder, reason: "the metadata could not be encoded")
        }
        try writeAtomically(json, to: file)
        try writeAtomically(Array(metadataBytes), to: "metadata.json")
        removeOtherLists(keeping: file)
        return list
    }

    /// The checks a list must pass before it is kept: bounded in size, Apple's schema v5 with every log ID the
    /// SHA-256 of its key and one known state per log (``CTLogList/init(json:source:date:)``), and a version.
    public static func check(json: [UInt8], source: String, fetched: Date? = nil) throws(CTLogListStoreError) -> CTLogList {
        guard json.count <= maximumListBytes else { throw .tooLarge(source: source, bytes: json.count) }
        let list: CTLogList
        do {
            list = try CTLogList(json: json, source: .cached(source), date: fetched)
        } catch {
            throw .invalidList(source: source, reason: error.reason)
        }
        guard list.version != "unknown", !list.version.isEmpty else {
            throw .invalidList(source: source, reason: "it has no 'version', so it cannot be compared with a kept list")
        }
        return list
    }

    private func readKept() throws(CTLogListStoreError) -> (metadata: Metadata, json: [UInt8])? {
        guard let metadataData = FileManager.default.contents(atPath: metadataPath) else {
            if FileManager.default.fileExists(atPath: metadataPath) {
                throw .unreadableCache(folder: folder, reason: "metadata.json cannot be read")
            }
            return nil
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let metadata = try? decoder.decode(Metadata.self, from: metadataData),
              !metadata.file.contains("/"), metadata.file.hasPrefix("log_list-")
        else { throw .unreadableCache(folder: folder, reason: "metadata.json is not the metadata this store writes") }
        guard let data = FileManager.default.contents(atPath: path(metadata.file)) else {
            throw .unreadableCache(folder: folder, reason: "the list \(metadata.file) named by metadata.json is missing")
        }
        let hash = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        guard hash == metadata.sha256 else {
            throw .unreadableCache(folder: folder, reason: "\(metadata.file) does not have the SHA-256 metadata.json records")
        }
        return (metadata, Array(data))
    }

    private func makeFolder() throws(CTLogListStoreError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .notWritable(folder: folder, reason: Self.reason(of: error))
        }
    }

    /// Writes a temporary file beside `name`, flushes it to disk, then renames it over `name`.
    private func writeAtomically(_ bytes: [UInt8], to name: String) throws(CTLogListStoreError) {
        let temporary = path(".\(name).\(UUID().uuidString).tmp")
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw .notWritable(folder: folder, reason: Self.errnoText()) }
        var failure = writeAll(fd, bytes)
        if failure == nil, fsync(fd) != 0 { failure = Self.errnoText() }
        close(fd)
        if failure == nil, rename(temporary, path(name)) != 0 { failure = Self.errnoText() }
        if let failure {
            unlink(temporary)
            throw .notWritable(folder: folder, reason: failure)
        }
    }

    private func removeOtherLists(keeping file: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix("log_list-") && name != file { unlink(path(name)) }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }

    private static func reason(of error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileWriteNoPermissionError { return "Permission denied" }
        return "it cannot be created"
    }

    /// An exclusive `flock` on a file in the folder, held only while the files are replaced (milliseconds), so that
    /// two refreshes at once, in one process or two, keep one whole list.
    private struct Lock {
        let fd: Int32

        init(path: String, folder: String) throws(CTLogListStoreError) {
            fd = open(path, O_RDWR | O_CREAT, 0o644)
            guard fd >= 0 else { throw .notWritable(folder: folder, reason: CTLogListStore.errnoText()) }
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let reason = CTLogListStore.errnoText()
                    close(fd)
                    throw .notWritable(folder: folder, reason: "it cannot be locked: \(reason)")
                }
            }
        }

        func release() {
            flock(fd, LOCK_UN)
            close(fd)
        }
    }
}

/// Why a CT log list could not be fetched, checked or kept. The kept list is unchanged in every case.
public enum CTLogListStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The fetcher failed: the server was not trusted, answered with an error, or the body was cut off.
    case fetchFailed(source: String, reason: String)
    /// The list fails the checks (schema v5, log IDs, states, a version).
    case invalidList(source: String, reason: String)
    /// The list is larger than ``CTLogListStore/maximumListBytes``.
    case tooLarge(source: String, bytes: Int)
    /// The list's version is older than the kept list's: a device never goes back to an older list.
    case olderThanKept(source: String, version: String, kept: String)
    /// The folder cannot be created or written.
    case notWritable(folder: String, reason: String)
    /// The folder holds something this store did not write, or a list that no longer matches its metadata.
    case unreadableCache(folder: String, reason: String)

    public var description: String {
        switch self {
        case .fetchFailed(let source, let reason):
            return "the CT log list could not be fetched from \(source): \(reason). The kept list is unchanged"
        case .invalidList(let source, let reason):
            return "the CT log list from \(source) was refused: \(reason). The kept list is unchanged"
        case .tooLarge(let source, let bytes):
            return "the CT log list from \(source) was refused: it is \(bytes) bytes, more than the \(CTLogListStore.maximumListBytes) a log list can need. The kept list is unchanged"
        case .olderThanKept(let source, let version, let kept):
            return "the CT log list from \(source) was refused: its version \(version) is older than the kept list's \(kept), and a device never goes back to an older list. The kept list is unchanged"
        case .notWritable(let folder, let reason):
            return "the CT log list cannot be kept in \(folder): \(reason). Make the folder writable or choose another; the kept list is unchanged"
        case .unreadableCache(let folder, let reason):
            return "the CT log list kept in \(folder) cannot be used: \(reason). Refresh it to replace it"
        }
    }
}

extension CTLogListError {
    /// The reason alone, without the advice on where to get a list, for messages that give their own advice.
    var reason: String {
        switch self {
        case .invalid(_, let reason): return reason
        case .bundledListMissing(let reason): return reason
        }
    }
}
