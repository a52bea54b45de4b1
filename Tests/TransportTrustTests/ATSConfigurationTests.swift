@testable import AppBundles
import TestSupport
import Foundation
import Testing
import ZIPFoundation

@testable import AppTransportSecurity

@Suite struct ATSConfigurationTests {
    // MARK: Strict typing

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

    @Test func integerOneIsNotABooleanInXML() throws {
        let config = try ATSFixture.configuration("<key>NSAllowsArbitraryLoads</key><integer>1</integer>")
        #expect(config.allowsArbitraryLoads == nil)
        #expect(config.presentKeys.contains(.allowsArbitraryLoads))
        #expect(config.issues == [ConfigurationIssue(.wrongType(key: .allowsArbitraryLoads, expected: .boolean, found: .integer(1)),
                                                     at: PlistKeyPath(["NSAllowsArbitraryLoads"]))])
    }

    @Test func integerOneIsNotABooleanInBinary() throws {
        let xml = ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><integer>1</integer><key>NSAllowsLocalNetworking</key><true/>")
        let data = try ATSFixture.binary(xml)
        #expect(data.starts(with: Array("bplist".utf8)))
        let source = try ConfigurationLoader().load(data: data, name: "Info.plist")
        #expect(source.format == .binary)
        #expect(source.configuration.allowsArbitraryLoads == nil)
        #expect(source.configuration.allowsLocalNetworking?.value == true)
        #expect(source.configuration.issues.count == 1)
    }

    @Test func realBooleansAndZeroKeepTheirTypes() throws {
        let xml = ATSFixture.infoPlist("""
            <key>NSAllowsArbitraryLoads</key><false/>
            <key>NSAllowsLocalNetworking</key><integer>0</integer>
            """)
        for data in [Data(xml.utf8), try ATSFixture.binary(xml)] {
            let root = try PropertyListReader().read(data).root
            guard case .dictionary(let top) = root, case .dictionary(let ats)? = top["NSAppTransportSecurity"] else {
                Issue.record("no ATS dictionary")
                return
            }
            #expect(ats["NSAllowsArbitraryLoads"] == .boolean(false))
            #expect(ats["NSAllowsLocalNetworking"] == .integer(0))
        }
    }

    @Test func stringNOIsNotCoercedToFalse() throws {
        let config = try ATSFixture.configuration("""
            <key>NSExceptionDomains</key><dict><key>a.example.com</key><dict>
            <key>NSExceptionRequiresForwardSecrecy</key><string>NO</string></dict></dict>
            """)
        #expect(config.exceptionDomains.first?.requiresForwardSecrecy == nil)
        #expect(config.issues.first?.kind == .wrongType(key: .exceptionRequiresForwardSecrecy, expected: .boolean, found: .string("NO")))
    }

    // MARK: Keys

    @Test func misspelledKeyGetsASuggestion() throws {
        let config = try ATSFixture.configuration("""
            <key>NSExceptionDomains</key><dict><key>a.example.com</key><dict>
            <key>NSExceptionMinimumTLSVerion</key><string>TLSv1.0</string></dict></dict>
            """)
        #expect(config.exceptionDomains.first?.minimumTLSVersion == nil)
        #expect(config.issues.first?.kind == .unknownKey(key: "NSExceptionMinimumTLSVerion", suggestion: "NSExceptionMinimumTLSVersion", belongsAt: nil))
    }

    @Test(arguments: [
        ("NSAllowsArbitraryLoad", "NSAllowsArbitraryLoads"),
        ("NSAllowsArbitraryloads", "NSAllowsArbitraryLoads"),
        ("NSExceptionDomain", "NSExceptionDomains"),
        ("NSAllowsLocalNetwork", "NSAllowsLocalNetworking"),
    ])
    func topLevelTypos(written: String, meant: String) {
        #expect(KeySuggester.suggestion(for: written, among: ATSKey.keys(at: .topLevel).map(\.rawValue)) == meant)
    }

    @Test func unrelatedKeyGetsNoSuggestion() {
        #expect(KeySuggester.suggestion(for: "CFBundleVersion", among: ATSKey.keys(at: .topLevel).map(\.rawValue)) == nil)
    }

    @Test func keyAtTheWrongLevelIsMisplaced() throws {
        let config = try ATSFixture.configuration("<key>NSIncludesSubdomains</key><true/>")
        #expect(config.issues.first?.kind == .unknownKey(key: "NSIncludesSubdomains", suggestion: "NSIncludesSubdomains", belongsAt: .exceptionDomain))
    }

    @Test func invalidTLSVersionSuggestsTheSpelling() throws {
        let config = try ATSFixture.configuration("""
            <key>NSExceptionDomains</key><dict><key>a.example.com</key><dict>
            <key>NSExceptionMinimumTLSVersion</key><string>1.1</string></dict></dict>
            """)
        guard case .invalidValue(_, let value, _, let suggestion)? = config.issues.first?.kind else {
            Issue.record("expected invalidValue, got \(config.issues)")
            return
        }
        #expect(value == "1.1")
        #expect(suggestion == "TLSv1.1")
    }

    @Test func legacyKeysAreReadAndCurrentKeysWin() throws {
        let config = try ATSFixture.configuration("""
            <key>NSExceptionDomains</key><dict><key>a.example.com</key><dict>
            <key>NSTemporaryExceptionMinimumTLSVersion</key><string>TLSv1.0</string>
            <key>NSExceptionMinimumTLSVersion</key><string>TLSv1.2</string>
            <key>NSThirdPartyExceptionAllowsInsecureHTTPLoads</key><true/>
            </dict></dict>
            """)
        let entry = try #require(config.exceptionDomains.first)
        #expect(entry.minimumTLSVersion?.value == .tls12)
        #expect(entry.allowsInsecureHTTPLoads?.key == "NSThirdPartyExceptionAllowsInsecureHTTPLoads")
        #expect(Set(entry.legacyKeys) == [.temporaryExceptionMinimumTLSVersion, .thirdPartyExceptionAllowsInsecureHTTPLoads])
    }

    @Test func pinnedDomainsKeepPinsAsPlainValues() throws {
        let config = try ATSFixture.configuration("""
            <key>NSPinnedDomains</key><dict><key>bank.example.com</key><dict>
            <key>NSIncludesSubdomains</key><true/>
            <key>NSPinnedCAIdentities</key><array>
              <dict><key>SPKI-SHA256-BASE64</key><string>\(ATSFixture.validPinA)</string></dict>
              <dict><key>SPKI-SHA256-BASE64</key><string>not base64!</string></dict>
            </array>
            <key>NSPinnedLeafIdentities</key><array/>
            </dict></dict>
            """)
        let entry = try #require(config.pinnedDomain(named: "bank.example.com"))
        #expect(entry.coversSubdomains)
        #expect(entry.caIdentities?.map(\.base64) == [ATSFixture.validPinA, "not base64!"])
        #expect(entry.caIdentities?.map(\.isWellFormed) == [true, false])
        #expect(entry.caIdentities?.first?.digest?.count == 32)
        #expect(entry.caIdentities?.first?.scope == .certificateAuthority)
        #expect(entry.leafIdentities == [])
    }

    // MARK: Layouts and locations

    /// A file that is no property list at all is called that, with its first bytes shown safely; Foundation's own
    /// reason ("Unexpected character" with a NUL in it) is kept for files that start like one (review-api F4).
    @Test func aFileThatIsNoPropertyListIsCalledOne() throws {
        let cases: [([UInt8], String)] = [([UInt8](repeating: 0, count: 200), "it starts with the bytes 00 00 00 00"),
                                          (Array("hello world\n".utf8), "it starts with 'hello wo'"),
                                          ([0x31, 0x1A, 0x8B, 0xA5], "it starts with the bytes 31 1a 8b a5")]
        for (bytes, start) in cases {
            #expect(throws: PropertyListError.self) { _ = try PropertyListReader().read(Data(bytes)) }
            do { _ = try PropertyListReader().read(Data(bytes)) } catch {
                #expect(error.description.contains("the file is not a property list: \(start)"), "\(error)")
                #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 }, "\(error.description.debugDescription)")
            }
        }
        let control = #expect(throws: PropertyListError.self) {
            _ = try PropertyListReader().read(Data("<plist><dict><key>a</key>\u{01}</dict></plist>".utf8))
        }
        #expect(control?.description.contains("\\u{1}") == true, "\(String(describing: control))")
        #expect(control?.description.unicodeScalars.contains { $0.value < 0x20 } == false, "\(String(describing: control))")
        // An OpenStep plist and leading white space still read.
        #expect(try PropertyListReader().read(Data("  \n{ NSAllowsArbitraryLoads = YES; }".utf8)).format == .openStep)
    }

    @Test func bareDictionaryIsRecognised() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>NSAllowsArbitraryLoads</key><true/></dict></plist>
            """
        let source = try ATSFixture.source(xml)
        #expect(source.layout == .bareDictionary)
        #expect(source.configuration.allowsArbitraryLoads?.value == true)
        #expect(source.location(of: PlistKeyPath(["NSAllowsArbitraryLoads"])) == SourceLocation(line: 2, column: 28))
    }

    /// A source Info.plist (Xcode 13 and later) has no CFBundle key until Xcode builds the app: with an ATS key
    /// misplaced at its root it is still an Info.plist, whose root key the system ignores (review-ats F1).
    @Test(arguments: ["UIApplicationSceneManifest", "NSCameraUsageDescription", "LSRequiresIPhoneOS", "UILaunchScreen"])
    func aSourceInfoPlistWithAMisplacedATSKeyIsNotABareDictionary(key: String) throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>\(key)</key><string>x</string><key>NSAllowsArbitraryLoads</key><true/></dict></plist>
            """
        let source = try ATSFixture.source(xml)
        #expect(source.layout == .infoPlist)
        #expect(source.configuration == ATSConfiguration())
        #expect(source.containerIssues.contains { "\($0)".contains("NSAllowsArbitraryLoads") }, "\(source.containerIssues)")
    }

    @Test func infoPlistWithoutATSHasDefaults() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>x</string></dict></plist>
            """
        let source = try ATSFixture.source(xml)
        #expect(source.layout == .infoPlist)
        #expect(source.configuration == ATSConfiguration())
    }

    @Test func keyLocationsAreLineAndColumn() throws {
        let xml = ATSFixture.infoPlist("""
            \t\t<key>NSExceptionDomains</key>
            \t\t<dict>
            \t\t\t<key>example.com</key>
            \t\t\t<dict>
            \t\t\t\t<key>NSIncludesSubdomains</key>
            \t\t\t\t<true/>
            \t\t\t</dict>
            \t\t</dict>
            """)
        let source = try ATSFixture.source(xml)
        #expect(source.location(of: PlistKeyPath(["NSExceptionDomains"])) == SourceLocation(line: 9, column: 3))
        #expect(source.location(of: PlistKeyPath(["NSExceptionDomains", "example.com", "NSIncludesSubdomains"])) == SourceLocation(line: 13, column: 5))
    }

    @Test func keysWrittenAsCDATAAreLocated() throws {
        let xml = ATSFixture.infoPlist("\t\t<key><![CDATA[NSAllowsArbitraryLoads]]></key>\n\t\t<true/>\n"
                                       + "\t\t<key>NSExceptionDomains</key><dict><key>a<![CDATA[&b]]>.com</key><dict/></dict>")
        let source = try ATSFixture.source(xml)
        #expect(source.configuration.allowsArbitraryLoads?.value == true)
        #expect(source.location(of: PlistKeyPath(["NSAllowsArbitraryLoads"])) == SourceLocation(line: 9, column: 3))
        #expect(source.configuration.exceptionDomains.map(\.name) == ["a&b.com"])
        #expect(source.location(of: PlistKeyPath(["NSExceptionDomains", "a&b.com"])) == SourceLocation(line: 11, column: 38))
    }

    /// XML 1.0 §2.11: CR LF and a lone CR end a line, like LF.
    @Test(arguments: ["\r", "\r\n", "\n"])
    func everyLineEndingCounts(_ newline: String) throws {
        let xml = ATSFixture.infoPlist("\t\t<key>NSAllowsArbitraryLoads</key>\n\t\t<true/>").replacingOccurrences(of: "\n", with: newline)
        let f = Auditor().findings(in: try ATSFixture.source(xml))
        #expect(f.first { $0.rule == .arbitraryLoads }?.location == SourceLocation(line: 9, column: 3))
    }

    // MARK: Hostile and malformed input

    @Test func malformedXMLIsAClearError() {
        let xml = ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/").replacingOccurrences(of: "</plist>", with: "")
        #expect {
            try ConfigurationLoader().load(data: Data(xml.utf8), name: "Broken.plist")
        } throws: { error in
            guard case .propertyList(let path, .malformed)? = error as? ATSConfigurationError else { return false }
            return path == "Broken.plist" && "\(error)".contains("cannot be parsed")
        }
    }

    @Test func wrongRootType() {
        let xml = #"<?xml version="1.0"?><plist version="1.0"><array><string>x</string></array></plist>"#
        #expect(throws: PropertyListError.wrongRootType(found: .array)) { try PropertyListReader().read(Data(xml.utf8)) }
        // "root is a Array" read badly.
        #expect(PropertyListError.wrongRootType(found: .array).description.hasPrefix("the property list's root is an Array, not a dictionary"))
        #expect(PropertyListError.wrongRootType(found: .string).description.hasPrefix("the property list's root is a String, not"))
    }

    @Test func emptyAndHugeFiles() {
        #expect(throws: PropertyListError.empty) { try PropertyListReader().read(Data()) }
        let huge = Data(count: PropertyListReader.maximumSize + 1)
        #expect(throws: PropertyListError.tooLarge(bytes: huge.count, limit: PropertyListReader.maximumSize)) {
            try PropertyListReader().read(huge)
        }
    }

    @Test func deepXMLNestingIsRefusedWithItsPosition() {
        let depth = 200
        let xml = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n" + String(repeating: "<array>", count: depth)
            + String(repeating: "</array>", count: depth) + "\n</plist>"
        #expect {
            try PropertyListReader().read(Data(xml.utf8))
        } throws: { error in
            guard case .tooDeep(let limit, let location)? = error as? PropertyListError else { return false }
            return limit == PropertyListReader.maximumDepth && location?.line == 3
        }
    }

    @Test func badUTF8IsAnError() {
        var bytes = Array(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><string>X</string>").utf8)
        let x = bytes.firstIndex(of: UInt8(ascii: "X")) ?? 0
        bytes.replaceSubrange(x...x, with: [0xFF, 0xFE, 0xC3])
        #expect(throws: PropertyListError.self) { try PropertyListReader().read(Data(bytes)) }
    }

    @Test func truncatedBinaryIsCorrupt() throws {
        let data = try ATSFixture.binary(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>"))
        #expect {
            try PropertyListReader().read(data.prefix(data.count - 7))
        } throws: { error in
            guard let e = error as? PropertyListError else { return false }
            switch e {
            case .corruptBinary, .malformed: return "\(e)".contains("binary")
            default: return false
            }
        }
    }

    /// A binary plist whose only object is an array containing itself.
    @Test func recursiveBinaryReferenceIsRefused() {
        var bytes = Array("bplist00".utf8)
        bytes += [0xA1, 0x00]           // object 0: array of one, referring to object 0
        bytes += [0x08]                 // offset table at 10
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + be64(1) + be64(0) + be64(10)
        #expect {
            try PropertyListReader().read(Data(bytes))
        } throws: { error in
            guard case .corruptBinary(let reason)? = error as? PropertyListError else { return false }
            return reason.contains("cycle")
        }
    }

    /// A binary plist from objects written in order (1-byte references, 2-byte offsets), the first at the top.
    func binaryPlist(_ objects: [[UInt8]]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let table = bytes.count
        for o in offsets { bytes += [UInt8(o >> 8), UInt8(o & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1]
        bytes += be64(UInt64(objects.count))
        bytes += be64(0)
        bytes += be64(UInt64(table))
        return Data(bytes)
    }

    /// `{"k": set{"x"}}`: Foundation's reader on Linux dies on it (SIGSEGV), so it must never get there.
    @Test func aBinarySetIsRefusedBeforeFoundationReadsIt() {
        let ascii = { (s: String) -> [UInt8] in [0x50 | UInt8(s.utf8.count)] + Array(s.utf8) }
        let data = binaryPlist([[0xD1, 1, 2], ascii("k"), [0xC1, 3], ascii("x")])
        #expect(throws: PropertyListError.corruptBinary(reason: "object 2 at byte 13 is a set; property lists have no sets")) {
            try PropertyListReader().read(data)
        }
    }

    /// Foundation reports a non-string key in a binary dictionary as "Unexpected character b at line 1".
    @Test(arguments: [[UInt8]([0xA0]), [0xD0], [0x10, 5]])
    func aBinaryDictionaryKeyThatIsNotAStringIsNamed(key: [UInt8]) {
        let data = binaryPlist([[0xD1, 1, 2], key, [0x51, 0x79]])
        #expect(throws: PropertyListError.corruptBinary(reason: "dictionary object 0 at byte 8 has a key (object 1) that is not a string")) {
            try PropertyListReader().read(data)
        }
    }

    /// 100 arrays each holding the next: deeper than the limit, refused before Foundation recurses.
    @Test func deepBinaryNestingIsRefused() {
        let n = 100
        let data = binaryPlist((0..<n).map { i in i == n - 1 ? [0xA0] : [0xA1, UInt8(i + 1)] })
        #expect(throws: PropertyListError.tooDeep(limit: PropertyListReader.maximumDepth, location: nil)) {
            try PropertyListReader().read(data)
        }
    }

    @Test func hostileInputsFinishQuickly() throws {
        let payloads = [
            String(repeating: "<dict>", count: 100_000),
            "<plist><dict>" + String(repeating: "<key>k</key><string>", count: 50_000),
            "<plist><array>" + String(repeating: "<string>x</string>", count: 50_000) + "</array></plist>",
            String(repeating: "<", count: 200_000),
        ]
        for payload in payloads {
            let start = Date()
            _ = try? PropertyListReader().read(Data(payload.utf8))
            #expect(Date().timeIntervalSince(start) < 5, "\(payload.prefix(40))")
        }
    }

    private func be64(_ v: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8((v >> (UInt64($0) * 8)) & 0xFF) } }

    // MARK: Bundles and archives

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
