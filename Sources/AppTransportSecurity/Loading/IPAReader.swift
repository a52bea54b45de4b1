import Foundation
import ZIPFoundation

/// Reads the Info.plists of an `.ipa`: `Payload/*.app/Info.plist` and those of the app's extensions
/// (`Payload/*.app/PlugIns/*.appex/Info.plist`, `…/Extensions/*.appex/Info.plist`). Uses ZIPFoundation.
struct IPAReader {
    let path: String

    func sources() throws(ATSConfigurationError) -> [ConfigurationSource] {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw .badArchive(path: path, reason: String(describing: error))
        }
        var members: [(path: String, role: ConfigurationSource.Role, entry: Entry)] = []
        for entry in archive where entry.type == .file {
            if let role = Self.role(of: entry.path) { members.append((entry.path, role, entry)) }
        }
        guard members.contains(where: { $0.role == .app }) else { throw .noAppInArchive(path: path) }
        members.sort { ($0.role == .app ? 0 : 1, $0.path) < ($1.role == .app ? 0 : 1, $1.path) }
        var out: [ConfigurationSource] = []
        for member in members {
            let data = try extract(member.entry, from: archive)
            out.append(try ConfigurationLoader().source(data: data, inputPath: path, memberPath: member.path, role: member.role))
        }
        return out
    }

    /// Whether an archive path is an app's or an extension's Info.plist.
    static func role(of path: String) -> ConfigurationSource.Role? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, parts[0] == "Payload", parts[1].hasSuffix(".app"), parts.last == "Info.plist" else { return nil }
        if parts.count == 3 { return .app }
        if parts.count == 5, parts[2] == "PlugIns" || parts[2] == "Extensions", parts[3].hasSuffix(".appex") { return .appExtension }
        return nil
    }

    private func extract(_ entry: Entry, from archive: Archive) throws(ATSConfigurationError) -> Data {
        let limit = PropertyListReader.maximumSize
        guard entry.uncompressedSize <= UInt64(limit) else {
            throw .propertyList(path: "\(path) › \(entry.path)", .tooLarge(bytes: Int(clamping: entry.uncompressedSize), limit: limit))
        }
        var data = Data()
        do {
            _ = try archive.extract(entry, skipCRC32: false) { chunk in
                data.append(chunk)
                if data.count > limit { throw PropertyListError.tooLarge(bytes: data.count, limit: limit) }
            }
        } catch let error as PropertyListError {
            throw .propertyList(path: "\(path) › \(entry.path)", error)
        } catch {
            throw .badArchive(path: path, reason: "\(entry.path): \(error)")
        }
        return data
    }
}
