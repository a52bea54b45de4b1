@testable import AppBundles
import ATSTestSupport
import AppTransportSecurity
import Foundation
import Testing
import ZIPFoundation

/// Configurations read from a path: a plist file, an `.app` folder, an `.ipa` (`ConfigurationLoader.load(path:)`,
/// `IPAReader`), with the limits and the faults of bundles and archives.
@Suite struct ConfigurationLoaderPathsTests {
    /// An .ipa holds one app. Many apps, extensions outside it, or more extensions than any app ships are refused
    /// before anything is read: each would otherwise cost a full read and parse, without end.
    @Test func anIPAIsBoundedToOneAppAndItsExtensions() throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plist = Data(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>").utf8)
        func refusal(_ files: [(String, Data)], _ name: String) throws -> String {
            let ipa = try ATSFixture.ipa(files, in: dir, name: name)
            do {
                _ = try ConfigurationLoader().load(path: ipa.path)
                return "loaded"
            } catch {
                return "\(error)"
            }
        }
        let two = try refusal([("Payload/A.app/Info.plist", plist), ("Payload/B.app/Info.plist", plist)], "two.ipa")
        #expect(two.contains("holds 2 app Info.plists (Payload/A.app/Info.plist, Payload/B.app/Info.plist)"), "\(two)")
        let stray = try refusal([("Payload/A.app/Info.plist", plist), ("Payload/B.app/PlugIns/W.appex/Info.plist", plist)], "stray.ipa")
        #expect(stray.contains("Payload/B.app/PlugIns/W.appex/Info.plist belongs to no app"), "\(stray)")
        let many = (0...IPAReader.maximumExtensions).map { ("Payload/A.app/PlugIns/E\($0).appex/Info.plist", plist) }
        let tooMany = try refusal([("Payload/A.app/Info.plist", plist)] + many, "many.ipa")
        #expect(tooMany.contains("holds \(IPAReader.maximumExtensions + 1) app extension Info.plists"), "\(tooMany)")
        // Each plist under the per-file limit, together over the archive's.
        let big = Data(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/><key>Pad</key><string>\(String(repeating: "a", count: 6 << 20))</string>").utf8)
        let heavy = (0..<6).map { ("Payload/A.app/PlugIns/E\($0).appex/Info.plist", big) }
        let total = try refusal([("Payload/A.app/Info.plist", plist)] + heavy, "heavy.ipa")
        #expect(total.contains("its Info.plists come to more than 32 MiB"), "\(total)")
    }

    /// A pipe where an extension's Info.plist belongs would wait for a writer forever: it is refused unread.
    @Test func aPipeInAnAppFolderIsRefusedUnread() throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let app = dir.appendingPathComponent("Demo.app")
        try ATSFixture.write(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>"), to: app.appendingPathComponent("Info.plist"))
        let pipe = app.appendingPathComponent("PlugIns/Share.appex/Info.plist")
        try FileManager.default.createDirectory(at: pipe.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(mkfifo(pipe.path, 0o600) == 0)
        #expect { try ConfigurationLoader().load(path: app.path) } throws: { "\($0)".contains("it is a pipe or a device, not a file") }
    }

    @Test func appFolderReadsAppAndExtensions() throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let app = dir.appendingPathComponent("Demo.app")
        try ATSFixture.write(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>"), to: app.appendingPathComponent("Info.plist"))
        try ATSFixture.write(ATSFixture.infoPlist("", bundleID: "com.example.app.share"),
                             to: app.appendingPathComponent("PlugIns/Share.appex/Info.plist"))
        let sources = try ConfigurationLoader().load(path: app.path)
        #expect(sources.map(\.role) == [.app, .appExtension])
        #expect(sources.map(\.memberPath) == ["Info.plist", "PlugIns/Share.appex/Info.plist"])
        #expect(sources[1].bundleIdentifier == "com.example.app.share")
    }

    @Test func ipaReadsEveryInfoPlist() throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let appPlist = try ATSFixture.binary(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>"))
        let ext = Data(ATSFixture.infoPlist("<key>NSAllowsLocalNetworking</key><true/>", bundleID: "com.example.app.widget").utf8)
        let ipa = try ATSFixture.ipa([
            ("Payload/Demo.app/Info.plist", appPlist),
            ("Payload/Demo.app/PlugIns/Widget.appex/Info.plist", ext),
            ("Payload/Demo.app/Frameworks/Lib.framework/Info.plist", Data("not read".utf8)),
            ("Payload/Demo.app/Assets.car", Data(repeating: 7, count: 1000)),
        ], in: dir)
        let sources = try ConfigurationLoader().load(path: ipa.path)
        #expect(sources.count == 2)
        #expect(sources[0].role == .app && sources[0].format == .binary)
        #expect(sources[0].configuration.allowsArbitraryLoads?.value == true)
        #expect(sources[1].role == .appExtension)
        #expect(sources[1].configuration.allowsLocalNetworking?.value == true)
        #expect(sources[1].displayName.hasSuffix("App.ipa › Payload/Demo.app/PlugIns/Widget.appex/Info.plist"))
    }

    /// A deflate stream that never ends inside its member: a stored block that claims 65,535 bytes. ZIPFoundation's
    /// own inflate read on to the end of the file and then looped on empty reads for ever.
    @Test(.timeLimit(.minutes(1)))
    func aDeflateStreamThatDoesNotEndInsideItsMemberIsAnError() throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plist = Data(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>").utf8)
        let ipa = try ATSFixture.ipa([("Payload/Demo.app/Info.plist", plist), ("Payload/Demo.app/Assets.car", Data(repeating: 7, count: 1000))], in: dir)
        let entry = try #require(try Archive(url: ipa, accessMode: .read)["Payload/Demo.app/Info.plist"])
        let offset = try #require(ZIPEntryLayout.dataOffset(of: entry))
        var bytes = try Data(contentsOf: ipa)
        bytes.replaceSubrange(Int(offset)..<Int(offset) + 5, with: [0x00, 0xFF, 0xFF, 0x00, 0x00])
        try bytes.write(to: ipa)
        #expect {
            try ConfigurationLoader().load(path: ipa.path)
        } throws: { error in
            "\(error)".contains("Payload/Demo.app/Info.plist: its deflate stream does not end within its")
        }
    }

    @Test func aDeflatedMemberIsReadFromItsOwnBytesAndChecked() throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plist = Data(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>").utf8)
        let ipa = try ATSFixture.ipa([("Payload/Demo.app/Info.plist", plist)], in: dir)
        let entry = try #require(try Archive(url: ipa, accessMode: .read)["Payload/Demo.app/Info.plist"])
        #expect(entry.isCompressed)
        let offset = try #require(ZIPEntryLayout.dataOffset(of: entry))
        let bytes = try Data(contentsOf: ipa)
        // The local header sits right before the name and the data: its signature proves the offset.
        let header = Int(offset) - 30 - "Payload/Demo.app/Info.plist".utf8.count
        #expect(Array(bytes[header..<header + 4]) == [0x50, 0x4B, 0x03, 0x04])
        #expect(try ConfigurationLoader().load(path: ipa.path).first?.configuration.allowsArbitraryLoads?.value == true)

        // One flipped bit in the last compressed byte still inflates, but not to the bytes that were stored.
        var damaged = bytes
        damaged[Int(offset) + Int(entry.compressedSize) - 1] ^= 0x01
        try damaged.write(to: ipa)
        #expect(throws: (any Error).self) { try ConfigurationLoader().load(path: ipa.path) }
    }

    /// ZIPFoundation returns a stored member's CRC-32 without comparing it, so a damaged plist used to be audited
    /// as if it were the app's ("NSXllowsArbitraryLoads is not an ATS key") and the real finding was lost.
    @Test func aStoredMemberThatFailsItsCRCIsAnError() throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plist = Data(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>").utf8)
        let ipa = try ATSFixture.ipa([("Payload/Demo.app/Info.plist", plist)], in: dir, compressionMethod: .none)
        let entry = try #require(try Archive(url: ipa, accessMode: .read)["Payload/Demo.app/Info.plist"])
        #expect(!entry.isCompressed)
        #expect(try ConfigurationLoader().load(path: ipa.path).first?.configuration.allowsArbitraryLoads?.value == true)
        let offset = try #require(ZIPEntryLayout.dataOffset(of: entry))
        var bytes = try Data(contentsOf: ipa)
        let at = try #require(plist.range(of: Data("NSAllows".utf8))).lowerBound + 2
        #expect(bytes[Int(offset) + at] == UInt8(ascii: "A"))
        bytes[Int(offset) + at] = UInt8(ascii: "X")
        try bytes.write(to: ipa)
        #expect {
            try ConfigurationLoader().load(path: ipa.path)
        } throws: { error in
            "\(error)".contains("Payload/Demo.app/Info.plist") && "\(error)".contains("CRC-32")
        }
    }

    /// ZIPFoundation's error names ("missingEndOfCentralDirectoryRecord", "corruptedData") used to be the reason;
    /// a bzip2 or LZMA member was called corrupt when its method is only unsupported.
    @Test func archiveFaultsAreSaidInWords() throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let notZip = dir.appendingPathComponent("notzip.ipa")
        try Data("this is not a zip file\n".utf8).write(to: notZip)
        do { _ = try ConfigurationLoader().load(path: notZip.path); Issue.record("a text file read as an .ipa") } catch {
            #expect("\(error)".contains("not a ZIP file or it is cut short") && !"\(error)".contains("missingEndOfCentralDirectoryRecord"), "\(error)")
        }
        let plist = Data(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>").utf8)
        let name = "Payload/Demo.app/Info.plist"
        for (method, word) in [(UInt16(12), "bzip2"), (14, "LZMA")] {
            let ipa = try ATSFixture.ipa([(name, plist)], in: dir, name: "m\(method).ipa")
            let entry = try #require(try Archive(url: ipa, accessMode: .read)[name])
            let header = Int(try #require(ZIPEntryLayout.dataOffset(of: entry))) - 30 - name.utf8.count
            var bytes = try Data(contentsOf: ipa)
            #expect(Array(bytes[header..<header + 4]) == [0x50, 0x4B, 0x03, 0x04])
            bytes[header + 8] = UInt8(method & 0xFF)
            bytes[header + 9] = UInt8(method >> 8)
            try bytes.write(to: ipa)
            do { _ = try ConfigurationLoader().load(path: ipa.path); Issue.record("a \(word) member was read") } catch {
                let text = "\(error)"
                #expect(text.contains("\(name) is compressed with \(word)") && text.contains("deflate") && !text.contains("corruptedData"), "\(text)")
            }
        }
    }

    /// ZIPFoundation lists no encrypted member; an encrypted app or extension Info.plist is refused, not taken as absent.
    @Test(arguments: ["Payload/Demo.app/Info.plist", "Payload/Demo.app/PlugIns/Widget.appex/Info.plist"])
    func anEncryptedInfoPlistIsSaidToBeEncrypted(encrypted: String) throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plist = Data(ATSFixture.infoPlist("").utf8)
        let ipa = try ATSFixture.ipa([("Payload/Demo.app/Info.plist", plist), ("Payload/Demo.app/PlugIns/Widget.appex/Info.plist", plist)], in: dir)
        #expect(try ConfigurationLoader().load(path: ipa.path).count == 2)
        // Set general-purpose flag bit 0 in the member's central directory header, as `zip -e` does.
        var bytes = [UInt8](try Data(contentsOf: ipa))
        let name = Array(encrypted.utf8)
        func isHeader(_ i: Int) -> Bool {
            let signature: [UInt8] = [0x50, 0x4B, 0x01, 0x02]
            return bytes[i..<(i + 4)].elementsEqual(signature) && bytes[(i + 46)..<(i + 46 + name.count)].elementsEqual(name)
        }
        let header = try #require((0..<(bytes.count - 46 - name.count)).first(where: isHeader))
        bytes[header + 8] |= 1
        try Data(bytes).write(to: ipa)
        do { _ = try ConfigurationLoader().load(path: ipa.path); Issue.record("an encrypted member was skipped") } catch {
            #expect("\(error)".contains("\(encrypted) is encrypted (ZIP password protection)"), "\(error)")
        }
    }

    /// The central-directory reader takes whatever the file's last bytes claim: a ZIP64 end record in a file too short
    /// to hold the ZIP64 record it points to, or a directory past the end, is no directory, and no crash.
    @Test func aCentralDirectoryTheFileCannotHoldReadsAsNone() throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func le(_ value: UInt64, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
        let locator = le(0x0706_4B50, 4) + le(0, 4) + le(0, 8) + le(1, 4)
        let zip64End = le(0x0605_4B50, 4) + le(0, 8) + le(0xFFFF_FFFF, 4) + le(0xFFFF_FFFF, 4) + le(0, 2)
        let past = le(0x0605_4B50, 4) + le(0, 4) + le(1, 2) + le(1, 2) + le(46, 4) + le(1 << 20, 4) + le(0, 2)
        for (name, bytes) in [("zip64.ipa", locator + zip64End), ("past.ipa", past)] {
            let url = dir.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            #expect(ZIPCentralDirectory.encryptedNames(path: url.path).isEmpty)
        }
    }

    @Test func ipaWithoutAnAppIsAnError() throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ipa = try ATSFixture.ipa([("Payload/readme.txt", Data("x".utf8))], in: dir)
        #expect(throws: ATSConfigurationError.noAppInArchive(path: ipa.path)) { try ConfigurationLoader().load(path: ipa.path) }
    }

    @Test func missingFileIsAnError() {
        #expect(throws: ATSConfigurationError.fileNotFound(path: "/nonexistent/Info.plist")) {
            try ConfigurationLoader().load(path: "/nonexistent/Info.plist")
        }
    }
}
