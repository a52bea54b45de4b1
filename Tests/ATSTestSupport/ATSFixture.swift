import AppTransportSecurity
import Foundation
import ZIPFoundation

// ATS inputs shared by AppTransportSecurityTests, AppBundlesTests and ATSCommandLineTests: a target of its own, so
// that the other test targets link neither AppTransportSecurity nor ZIPFoundation through TestSupport.

/// Builds ATS test inputs: XML Info.plists from a fragment, binary plists via PropertyListSerialization,
/// temporary folders, and .ipa archives via ZIPFoundation.
public enum ATSFixture {
    /// An XML Info.plist whose NSAppTransportSecurity dictionary holds `body` (XML key/value elements).
    public static func infoPlist(_ body: String, bundleID: String = "com.example.app") -> String {
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
    public static func binary(_ xml: String) throws -> Data {
        let object = try PropertyListSerialization.propertyList(from: Data(xml.utf8), options: [], format: nil)
        return try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
    }

    public static func source(_ xml: String) throws -> ConfigurationSource {
        try ConfigurationLoader().load(data: Data(xml.utf8), name: "Info.plist")
    }

    public static func configuration(_ body: String) throws -> ATSConfiguration {
        try source(infoPlist(body)).configuration
    }

    public static func resolver(_ body: String, _ profile: PlatformProfile = .ios17) throws -> RequirementsResolver {
        RequirementsResolver(configuration: try configuration(body), profile: profile)
    }

    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ats-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    public static func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// An .ipa holding `files` (archive path → contents).
    public static func ipa(_ files: [(String, Data)], in directory: URL, name: String = "App.ipa", compressionMethod: CompressionMethod = .deflate) throws -> URL {
        let url = directory.appendingPathComponent(name)
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data) in files {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: compressionMethod) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url
    }

    /// An NSExceptionDomains dictionary holding one entry, `name`, with the keys `inner`.
    public static func domain(_ name: String, _ inner: String) -> String {
        "<key>NSExceptionDomains</key><dict><key>\(name)</key><dict>\(inner)</dict></dict>"
    }

    /// An NSPinnedDomains dictionary holding one entry, `name`, with the keys `inner`.
    public static func pinned(_ name: String, _ inner: String) -> String {
        "<key>NSPinnedDomains</key><dict><key>\(name)</key><dict>\(inner)</dict></dict>"
    }

    /// The pin array `key` (NSPinnedCAIdentities or NSPinnedLeafIdentities) with one identity per hash.
    public static func pins(_ key: String, _ hashes: [String]) -> String {
        "<key>\(key)</key><array>" + hashes.map { "<dict><key>SPKI-SHA256-BASE64</key><string>\($0)</string></dict>" }.joined() + "</array>"
    }

    public static let validPinA = "r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="
    public static let validPinB = "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg="
}
