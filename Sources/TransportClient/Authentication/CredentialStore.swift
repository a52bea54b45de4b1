import Foundation
import TransportTrust

/// Where permanent user-and-password credentials live, keyed by protection space (as `URLCredentialStorage`).
///
/// Only password credentials are stored: identities and server-trust acceptances are not persisted.
public protocol CredentialStore: Sendable {
    /// The credential for `space`, if any.
    func credential(for space: ProtectionSpace) async -> (user: String, password: String)?
    /// Stores or replaces the credential for `space`.
    func set(user: String, password: String, for space: ProtectionSpace) async throws
    /// Forgets the credential for `space`.
    func remove(for space: ProtectionSpace) async throws
}

/// A store that forgets everything when it goes away; the client uses one for `.forSession` credentials.
public actor InMemoryCredentialStore: CredentialStore {
    private var entries: [ProtectionSpace: (String, String)] = [:]

    /// An empty store.
    public init() {}

    public func credential(for space: ProtectionSpace) -> (user: String, password: String)? {
        entries[space].map { (user: $0.0, password: $0.1) }
    }

    public func set(user: String, password: String, for space: ProtectionSpace) { entries[space] = (user, password) }

    public func remove(for space: ProtectionSpace) { entries[space] = nil }
}

/// Why the file store could not be read or written.
public struct CredentialStoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong with the file, naming it.
    public var message: String
    /// An error with `message`.
    package init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A JSON file of credentials, created with permissions 0600 (owner read and write only) and rewritten
/// atomically with the same permissions. A file that other users can read is refused rather than used.
public actor FileCredentialStore: CredentialStore {
    private struct Entry: Codable {
        var space: ProtectionSpace
        var user: String
        var password: String
    }

    /// The file the credentials are kept in.
    public let path: String

    /// A store kept in the file at `path`, created on the first write.
    public init(path: String) { self.path = path }

    private func load() throws -> [Entry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        if let mode = attributes[.posixPermissions] as? NSNumber, mode.intValue & 0o077 != 0 {
            throw CredentialStoreError("'\(path)' can be read by other users (mode \(String(mode.intValue, radix: 8))); run `chmod 600 \(path)`")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CredentialStoreError("cannot read '\(path)'")
        }
        do { return try JSONDecoder().decode([Entry].self, from: data) } catch {
            throw CredentialStoreError("'\(path)' is not a credential store written by this library: \(JSONProblem.describe(error, topLevel: "the top level is not a list of entries"))")
        }
    }

    private func save(_ entries: [Entry]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(entries)
        // Write to a 0600 temporary file beside the target, then rename, so the secret is never readable by others.
        let temporary = path + ".tmp-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CredentialStoreError("cannot create '\(temporary)'; check the folder's permissions")
        }
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            try handle.write(contentsOf: data)
            try handle.close()
            // rename(2) replaces the target atomically and keeps the temporary file's 0600 mode.
            guard rename(temporary, path) == 0 else { throw CredentialStoreError("rename failed with errno \(errno)") }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw CredentialStoreError("cannot write '\(path)': \(error)")
        }
    }

    public func credential(for space: ProtectionSpace) -> (user: String, password: String)? {
        guard let entry = (try? load())?.first(where: { $0.space == space }) else { return nil }
        return (entry.user, entry.password)
    }

    public func set(user: String, password: String, for space: ProtectionSpace) throws {
        var entries = try load().filter { $0.space != space }
        entries.append(Entry(space: space, user: user, password: password))
        try save(entries)
    }

    public func remove(for space: ProtectionSpace) throws {
        try save(try load().filter { $0.space != space })
    }
}
