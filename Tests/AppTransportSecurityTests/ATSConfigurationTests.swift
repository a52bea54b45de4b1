import ATSTestSupport
import Foundation
import Testing

@testable import AppTransportSecurity

@Suite struct ATSConfigurationTests {
    // MARK: Strict typing

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
            let error = #expect(throws: PropertyListError.self) { _ = try PropertyListReader().read(Data(bytes)) }
            #expect(error?.description.contains("the file is not a property list: \(start)") == true, "\(String(describing: error))")
            #expect(error?.description.unicodeScalars.contains { $0.value < 0x20 } == false, "\(String(describing: error))")
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
}
