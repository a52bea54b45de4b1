import AppTransportSecurity
import Foundation
import TransportTrust

extension ConfigurationLoader {
    /// Reads every configuration at `path` (`-` is a plist on standard input).
    /// - Returns: one source for a plist; the app and each extension for an `.app` folder or an `.ipa`.
    /// - Throws: `ATSConfigurationError` naming the file and what to do.
    public func load(path: String) throws(ATSConfigurationError) -> [ConfigurationSource] {
        var isDirectory: ObjCBool = false
        guard path == "-" || FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .fileNotFound(path: path) }
        if isDirectory.boolValue { return try loadBundle(folder: path) }
        let data = try readFile(path)
        if data.starts(with: [0x50, 0x4B, 0x03, 0x04]) || path.lowercased().hasSuffix(".ipa") {
            guard path != "-", (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeRegular else {
                throw .unreadable(path: InputFile.source(path), reason: "an .ipa is read out of order, so it must be a file, not a stream; save it and give its path")
            }
            return try IPAReader(path: path, loader: self).sources()
        }
        return [try source(data: data, inputPath: InputFile.source(path), memberPath: nil, role: .standalone)]
    }

    /// An Info.plist inside a bundle, which is a regular file in any bundle a build writes.
    private func bundleFile(_ path: String) throws(ATSConfigurationError) -> Data {
        guard InputFile.isRegularFile(path) else {
            throw .unreadable(path: path, reason: "it is a pipe or a device, not a file, as an app's Info.plist is")
        }
        return try readFile(path)
    }

    private func readFile(_ path: String) throws(ATSConfigurationError) -> Data {
        let url = URL(fileURLWithPath: path)
        if let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber,
           size.intValue > PropertyListReader.maximumSize, !path.lowercased().hasSuffix(".ipa") {
            throw .propertyList(path: path, .tooLarge(bytes: size.intValue, limit: PropertyListReader.maximumSize))
        }
        do {
            if path.lowercased().hasSuffix(".ipa") {
                // Only the zip signature is needed here; the archive is opened by ZIPFoundation.
                let handle = try FileHandle(forReadingFrom: url)
                defer { try? handle.close() }
                return try handle.read(upToCount: 4) ?? Data()
            }
        } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        do { return try InputFile.read(path) } catch {
            throw .unreadable(path: InputFile.source(path), reason: error.reason)
        }
    }

    /// An `.app` folder (iOS layout `App.app/Info.plist`, macOS layout `App.app/Contents/Info.plist`), with
    /// the Info.plists of its extensions (`PlugIns/*.appex`, `Extensions/*.appex`).
    private func loadBundle(folder: String) throws(ATSConfigurationError) -> [ConfigurationSource] {
        let fm = FileManager.default
        let base = URL(fileURLWithPath: folder)
        let contents = ["Info.plist", "Contents/Info.plist"].first { fm.fileExists(atPath: base.appendingPathComponent($0).path) }
        guard let infoPath = contents else { throw .noInfoPlist(folder: folder) }
        let root = infoPath.hasPrefix("Contents/") ? "Contents/" : ""
        var sources = [try source(data: bundleFile(base.appendingPathComponent(infoPath).path), inputPath: folder, memberPath: infoPath, role: .app)]
        for dir in ["PlugIns", "Extensions"] {
            let extensions = (try? fm.contentsOfDirectory(atPath: base.appendingPathComponent(root + dir).path)) ?? []
            for ext in extensions.sorted() where ext.hasSuffix(".appex") {
                for candidate in ["Info.plist", "Contents/Info.plist"] {
                    let member = "\(root)\(dir)/\(ext)/\(candidate)"
                    let p = base.appendingPathComponent(member).path
                    guard fm.fileExists(atPath: p) else { continue }
                    sources.append(try source(data: bundleFile(p), inputPath: folder, memberPath: member, role: .appExtension))
                    break
                }
            }
        }
        return sources
    }
}
