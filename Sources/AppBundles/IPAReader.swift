import AppTransportSecurity
import Foundation
import ZIPFoundation

/// Reads the Info.plists of an `.ipa`: `Payload/*.app/Info.plist` and those of the app's extensions
/// (`Payload/*.app/PlugIns/*.appex/Info.plist`, `…/Extensions/*.appex/Info.plist`). Uses ZIPFoundation.
///
/// What an archive may ask for is bounded: one app, at most ``maximumExtensions`` extensions inside it, and at most
/// ``maximumTotalBytes`` of Info.plists read in all. A ZIP whose central directory points many members at one
/// highly compressed plist would otherwise cost a full read and parse per member, without end.
struct IPAReader {
    let path: String
    /// Reads each member as the caller asked (its reading).
    var loader = ConfigurationLoader()

    /// More app extensions than any app ships (they number in the tens).
    static let maximumExtensions = 256
    /// The Info.plists read from one archive, in all: real ones are kilobytes each.
    static let maximumTotalBytes = 32 << 20

    func sources() throws(ATSConfigurationError) -> [ConfigurationSource] {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw .badArchive(path: path, reason: Self.words(error))
        }
        var members: [(path: String, role: ConfigurationSource.Role, entry: Entry)] = []
        for entry in archive where entry.type == .file {
            if let role = Self.role(of: entry.path) { members.append((entry.path, role, entry)) }
        }
        // ZIPFoundation leaves encrypted members out of its listing without a word: an app or extension whose
        // Info.plist is encrypted would be audited as absent.
        if let encrypted = ZIPCentralDirectory.encryptedNames(path: path).first(where: { Self.role(of: $0) != nil }) {
            throw .badArchive(path: path, reason: "\(encrypted) is encrypted (ZIP password protection), which cannot be read here; "
                + "give the .ipa as Xcode or the App Store writes it, or the unzipped .app")
        }
        let apps = members.filter { $0.role == .app }
        guard let app = apps.first else { throw .noAppInArchive(path: path) }
        guard apps.count == 1 else {
            let named = apps.prefix(3).map(\.path).joined(separator: ", ") + (apps.count > 3 ? ", …" : "")
            throw .badArchive(path: path, reason: "it holds \(apps.count) app Info.plists (\(named)); an .ipa holds one app, in Payload/NAME.app")
        }
        let folder = Self.appFolder(app.path)
        if let stray = members.first(where: { Self.appFolder($0.path) != folder }) {
            throw .badArchive(path: path, reason: "\(stray.path) belongs to no app in the archive; its extensions sit inside \(folder)")
        }
        let extensions = members.count - 1
        guard extensions <= Self.maximumExtensions else {
            throw .badArchive(path: path, reason: "it holds \(extensions) app extension Info.plists, more than any app ships (the limit is \(Self.maximumExtensions)); the archive is damaged or made to exhaust the reader")
        }
        members.sort { ($0.role == .app ? 0 : 1, $0.path) < ($1.role == .app ? 0 : 1, $1.path) }
        // Deflated members are read from this handle (see `inflate`), opened once for all of them.
        guard let file = FileHandle(forReadingAtPath: path) else { throw .badArchive(path: path, reason: "it cannot be opened for reading") }
        defer { try? file.close() }
        var out: [ConfigurationSource] = []
        var read = 0
        for member in members {
            let data = try extract(member.entry, from: archive, file: file)
            read += data.count
            guard read <= Self.maximumTotalBytes else {
                throw .badArchive(path: path, reason: "its Info.plists come to more than \(Self.maximumTotalBytes >> 20) MiB (at \(member.path)); real ones are kilobytes each, so the archive is damaged or made to exhaust the reader")
            }
            out.append(try loader.source(data: data, inputPath: path, memberPath: member.path, inArchive: true, role: member.role))
        }
        return out
    }

    /// The `Payload/NAME.app` folder of a member path.
    static func appFolder(_ path: String) -> String {
        path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false).prefix(2).joined(separator: "/")
    }

    /// Whether an archive path is an app's or an extension's Info.plist.
    static func role(of path: String) -> ConfigurationSource.Role? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, parts[0] == "Payload", parts[1].hasSuffix(".app"), parts.last == "Info.plist" else { return nil }
        if parts.count == 3 { return .app }
        if parts.count == 5, parts[2] == "PlugIns" || parts[2] == "Extensions", parts[3].hasSuffix(".appex") { return .appExtension }
        return nil
    }

    private func extract(_ entry: Entry, from archive: Archive, file: FileHandle) throws(ATSConfigurationError) -> Data {
        let limit = PropertyListReader.maximumSize
        guard entry.uncompressedSize <= UInt64(limit) else {
            throw .propertyList(path: "\(path) › \(entry.path)", .tooLarge(bytes: Int(clamping: entry.uncompressedSize), limit: limit))
        }
        if entry.isCompressed, let method = ZIPEntryLayout.compressionMethod(of: entry), method != 8 {
            throw .badArchive(path: path, reason: "\(entry.path) is compressed with \(Self.methodName(method)) (ZIP method \(method)), which cannot be read here: "
                + "only stored and deflated members can. Re-create the archive with deflate (`zip -r -Z deflate App.ipa Payload`), as Xcode does")
        }
        var data = Data()
        do {
            let consume: Consumer = { chunk in
                data.append(chunk)
                if data.count > limit { throw PropertyListError.tooLarge(bytes: data.count, limit: limit) }
            }
            if entry.isCompressed {
                try inflate(entry, from: file, consumer: consume)
            } else {
                // ZIPFoundation computes the CRC-32 and returns it, but never compares it with the entry's.
                let checksum = try archive.extract(entry, skipCRC32: false, consumer: consume)
                guard checksum == entry.checksum else {
                    throw InflateError(description: "its stored bytes fail their CRC-32 check (the archive is damaged)")
                }
            }
        } catch let error as PropertyListError {
            throw .propertyList(path: "\(path) › \(entry.path)", error)
        } catch let error as InflateError {
            throw .badArchive(path: path, reason: "\(entry.path): \(error)")
        } catch {
            let what = entry.isCompressed ? "its deflate data is damaged" : Self.words(error)
            throw .badArchive(path: path, reason: "\(entry.path): \(what)")
        }
        return data
    }

    /// ZIPFoundation's errors in words; its own text ("missingEndOfCentralDirectoryRecord") means nothing to a reader.
    static func words(_ error: any Error) -> String {
        switch error as? Archive.ArchiveError {
        case .missingEndOfCentralDirectoryRecord?:
            return "it has no ZIP end-of-central-directory record, so it is not a ZIP file or it is cut short"
        case .invalidCentralDirectoryOffset?, .invalidCentralDirectorySize?, .invalidCentralDirectoryEntryCount?:
            return "its ZIP central directory is damaged"
        case .invalidLocalHeaderDataOffset?, .invalidLocalHeaderSize?, .invalidEntrySize?:
            return "a member's ZIP header is damaged"
        case .invalidCompressionMethod?:
            return "a member uses a compression method that cannot be read here"
        case .invalidCRC32?:
            return "a member fails its CRC-32 check"
        case .unreadableArchive?:
            return "it cannot be opened for reading"
        case .invalidEntryPath?:
            return "a member's name cannot be read"
        default:
            return "its ZIP data cannot be read"
        }
    }

    static func methodName(_ method: UInt16) -> String {
        switch method {
        case 9: return "Deflate64"
        case 12: return "bzip2"
        case 14: return "LZMA"
        case 93: return "Zstandard"
        case 95: return "XZ"
        case 98: return "PPMd"
        case 99: return "AES encryption"
        default: return "an unknown method"
        }
    }

    /// Why a deflated member could not be read.
    struct InflateError: Error, CustomStringConvertible {
        var description: String
    }

    /// Inflates a deflated member from exactly its own compressed bytes.
    ///
    /// ZIPFoundation's own inflate (0.9.20, Linux) reads on past the member to the end of the file, and when damaged
    /// data never ends the deflate stream it then loops forever on empty reads. It also tells zlib every chunk is
    /// full, so zlib reads the unfilled end of the buffer. Here the compressed bytes are read at the member's data
    /// offset, handed over in full chunks padded with zeros (which end or break any stream), and then no more.
    private func inflate(_ entry: Entry, from file: FileHandle, consumer: Consumer) throws {
        guard let offset = ZIPEntryLayout.dataOffset(of: entry) else {
            throw InflateError(description: "its place in the archive cannot be read")
        }
        let end = try file.seekToEnd()
        let size = entry.compressedSize
        guard offset >= 4, offset <= end, size <= end - offset else {
            throw InflateError(description: "it claims \(size) compressed bytes at byte \(offset), past the end of the \(end)-byte file")
        }
        try file.seek(toOffset: offset)
        let compressed = Array(try file.read(upToCount: Int(size)) ?? Data())
        guard compressed.count == Int(size) else { throw InflateError(description: "its data is cut short") }

        var served = 0
        var padded = false
        let checksum = try Data.decompress(size: Int64(size), bufferSize: 16 * 1024, skipCRC32: false, provider: { _, chunkSize in
            guard served < compressed.count || !padded else {
                throw InflateError(description: "its deflate stream does not end within its \(size) compressed bytes")
            }
            let real = compressed[served..<min(compressed.count, served + chunkSize)]
            served += real.count
            if served == compressed.count { padded = true }
            return Data(real) + Data(count: chunkSize - real.count)
        }, consumer: consumer)
        guard checksum == entry.checksum else {
            throw InflateError(description: "it fails its CRC-32 check")
        }
    }
}

/// Where a member's data starts, read from the headers ZIPFoundation has already parsed.
///
/// ZIPFoundation keeps `Entry.dataOffset` internal, so its stored header fields are read by reflection. Any
/// change in those fields makes this return nil, and the member is refused rather than read from a guessed offset.
enum ZIPEntryLayout {
    static func dataOffset(of entry: Entry) -> UInt64? {
        let entryMirror = Mirror(reflecting: entry)
        guard let central = child(entryMirror, "centralDirectoryStructure"), let local = child(entryMirror, "localFileHeader"),
              let nameLength = child(Mirror(reflecting: local), "fileNameLength") as? UInt16,
              let extraLength = child(Mirror(reflecting: local), "extraFieldLength") as? UInt16,
              let offset32 = child(Mirror(reflecting: central), "relativeOffsetOfLocalHeader") as? UInt32 else { return nil }
        var offset = UInt64(offset32)
        if offset32 == UInt32.max {
            // ZIP64: the offset is in the central directory's extended-information extra field.
            guard let fields = child(Mirror(reflecting: central), "extraFields"),
                  let zip64 = Mirror(reflecting: fields).descendant("some")
                    .flatMap({ Mirror(reflecting: $0).children.lazy.compactMap { child(Mirror(reflecting: $0.value), "relativeOffsetOfLocalHeader") as? UInt64 }.first })
            else { return nil }
            offset = zip64
        }
        let (start, overflow) = offset.addingReportingOverflow(30 + UInt64(nameLength) + UInt64(extraLength))
        return overflow ? nil : start
    }

    /// The compression method its local header names (0 stored, 8 deflate), read as `dataOffset` is.
    static func compressionMethod(of entry: Entry) -> UInt16? {
        guard let local = child(Mirror(reflecting: entry), "localFileHeader") else { return nil }
        return child(Mirror(reflecting: local), "compressionMethod") as? UInt16
    }

    private static func child(_ mirror: Mirror, _ label: String) -> Any? {
        mirror.children.first { $0.label == label }?.value
    }
}

/// The central directory of a ZIP file, read for what ZIPFoundation does not say: which members are encrypted
/// (general-purpose flag bit 0, APPNOTE 4.4.4), since it drops those from its listing.
enum ZIPCentralDirectory {
    /// The names of the encrypted members; empty when there are none or the directory cannot be found, in which case
    /// ZIPFoundation has already refused the file.
    static func encryptedNames(path: String) -> [String] {
        guard let file = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? file.close() }
        guard let (offset, size) = directoryPlace(file), size <= 64 << 20,
              (try? file.seek(toOffset: offset)) != nil, let data = try? file.read(upToCount: Int(size)) else { return [] }
        let d = [UInt8](data)
        func u16(_ i: Int) -> Int { Int(d[i]) | Int(d[i + 1]) << 8 }
        var names: [String] = []
        var i = 0
        while i + 46 <= d.count, d[i] == 0x50, d[i + 1] == 0x4B, d[i + 2] == 0x01, d[i + 3] == 0x02 {
            let nameEnd = i + 46 + u16(i + 28)
            guard nameEnd <= d.count else { break }
            if u16(i + 8) & 1 != 0 { names.append(String(decoding: d[(i + 46)..<nameEnd], as: UTF8.self)) }
            i = nameEnd + u16(i + 30) + u16(i + 32)
        }
        return names
    }

    /// Where the central directory starts and how long it is: from the end-of-central-directory record, or its ZIP64
    /// twin when the record says so (APPNOTE 4.3.14 to 4.3.16).
    private static func directoryPlace(_ file: FileHandle) -> (offset: UInt64, size: UInt64)? {
        guard let end = try? file.seekToEnd(), end >= 22 else { return nil }
        let tailStart = end - min(end, 22 + 65_535)
        guard (try? file.seek(toOffset: tailStart)) != nil, let tail = try? file.readToEnd().map({ [UInt8]($0) }) else { return nil }
        func le(_ b: [UInt8], _ i: Int, _ n: Int) -> UInt64 { (0..<n).reduce(0) { $0 | UInt64(b[i + $1]) << (8 * UInt64($1)) } }
        guard let eocd = stride(from: tail.count - 22, through: 0, by: -1).first(where: {
            tail[$0] == 0x50 && tail[$0 + 1] == 0x4B && tail[$0 + 2] == 0x05 && tail[$0 + 3] == 0x06
        }) else { return nil }
        let size = le(tail, eocd + 12, 4), offset = le(tail, eocd + 16, 4)
        guard size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF else { return (offset, size) }
        // ZIP64: the locator sits just before the record and names where the ZIP64 record is.
        guard eocd >= 20, le(tail, eocd - 20, 4) == 0x0706_4B50 else { return nil }
        let record = le(tail, eocd - 20 + 8, 8)
        guard end >= 56, record <= end - 56, (try? file.seek(toOffset: record)) != nil,
              let z = try? file.read(upToCount: 56).map({ [UInt8]($0) }), z.count == 56, le(z, 0, 4) == 0x0606_4B50 else { return nil }
        return (le(z, 48, 8), le(z, 40, 8))
    }
}
