import AppBundles
import TestSupport
import Foundation
import Testing
import ZIPFoundation

@testable import AppTransportSecurity

/// Builds ATS test inputs: XML Info.plists from a fragment, binary plists via PropertyListSerialization,
/// temporary folders, and .ipa archives via ZIPFoundation.
enum ATSFixture {
    /// An XML Info.plist whose NSAppTransportSecurity dictionary holds `body` (XML key/value elements).
    static func infoPlist(_ body: String, bundleID: String = "com.example.app") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleIdentifier</key>
        \t<string>\(bundleID)</string>
        \t<key>NSAppTransportSecurity</key>
        \t<dict>
        \(body)
        \t</dict>
        </dict>
        </plist>
        """
    }

    /// The same document converted to a binary plist by Foundation.
    static func binary(_ xml: String) throws -> Data {
        let object = try PropertyListSerialization.propertyList(from: Data(xml.utf8), options: [], format: nil)
        return try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
    }

    static func source(_ xml: String) throws -> ConfigurationSource {
        try ConfigurationLoader().load(data: Data(xml.utf8), name: "Info.plist")
    }

    static func configuration(_ body: String) throws -> ATSConfiguration {
        try source(infoPlist(body)).configuration
    }

    static func resolver(_ body: String, _ profile: PlatformProfile = .ios17) throws -> RequirementsResolver {
        RequirementsResolver(configuration: try configuration(body), profile: profile)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ats-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// An .ipa holding `files` (archive path → contents).
    static func ipa(_ files: [(String, Data)], in directory: URL, name: String = "App.ipa", compressionMethod: CompressionMethod = .deflate) throws -> URL {
        let url = directory.appendingPathComponent(name)
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data) in files {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: compressionMethod) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url
    }

    static let validPinA = "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="
    static let validPinB = "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg="
}
