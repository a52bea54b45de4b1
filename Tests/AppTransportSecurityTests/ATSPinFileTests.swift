import AppTransportSecurity
import Foundation
import ATSTestSupport
import Testing
import TransportTrust

/// An ATS pin file is read by the ATS parser: what it pins is what the resolver enforces, and what ATS would
/// quietly ignore is an error with its line.
@Suite struct ATSPinFileTests {
    static func file(_ pinned: String) -> [UInt8] {
        Array(ATSFixture.infoPlist("<key>NSPinnedDomains</key>\n" + pinned).utf8)
    }

    static func read(_ pinned: String) throws -> PinConfiguration {
        try PinConfigurationFormat.read(file(pinned), source: "Info.plist").configuration
    }

    static func failure(_ pinned: String) -> PinConfigurationError? {
        do { _ = try PinConfigurationFormat.read(file(pinned), source: "Info.plist") } catch { return error }
        return nil
    }

    @Test func theFileAndTheResolverReadTheSamePins() throws {
        let pinned = """
            <dict><key>bank.example.com</key><dict><key>NSIncludesSubdomains</key><true/>
            <key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(ATSFixture.validPinA)</string></dict></array>
            <key>NSPinnedLeafIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(ATSFixture.validPinB)</string></dict></array>
            </dict></dict>
            """
        let fromFile = try #require(try Self.read(pinned).entry(for: "login.bank.example.com"))
        let body = "<key>NSPinnedDomains</key>\n" + pinned
        let resolved = try #require(try ATSFixture.resolver(body).requirements(for: "https://login.bank.example.com/").pins.value)
        #expect(fromFile == resolved.pinnedHost)
    }

    @Test func aWrongTypeIsAnErrorWithItsLine() throws {
        let error = try #require(Self.failure("<dict><key>a.example.com</key><dict>\n<key>NSPinnedCAIdentities</key><string>x</string></dict></dict>"))
        #expect(error.code == .wrongType)
        #expect(error.line != nil)
        #expect(error.description.contains("NSPinnedCAIdentities"), "\(error)")
    }

    @Test func anIdentityWithoutItsHashIsAnError() throws {
        let error = try #require(Self.failure("<dict><key>a.example.com</key><dict><key>NSPinnedCAIdentities</key><array><dict/></array></dict></dict>"))
        #expect(error.code == .missingKey)
        #expect(error.description.contains("SPKI-SHA256-BASE64"))
    }

    @Test func aFileWithoutNSPinnedDomainsSaysSo() throws {
        let bytes = Array(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>").utf8)
        let error = #expect(throws: PinConfigurationError.self) { try PinConfigurationFormat.read(bytes, source: "Info.plist", format: .ats) }
        #expect(error?.code == .missingKey && error?.description.contains("NSPinnedDomains") == true)
    }

    @Test func aHashThatIsNotSHA256OrAWildcardDomainIsRefused() throws {
        let sha1 = "sha1/" + Data(repeating: 7, count: 20).base64EncodedString()
        let legacy = try #require(Self.failure("<dict><key>a.example.com</key><dict><key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(sha1)</string></dict></array></dict></dict>"))
        #expect(legacy.code == .wrongHashLength)
        let short = try #require(Self.failure("<dict><key>a.example.com</key><dict><key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>AAAA</string></dict></array></dict></dict>"))
        #expect(short.code == .wrongHashLength)
        let wildcard = try #require(Self.failure("<dict><key>*.a.example.com</key><dict><key>NSIncludesSubdomains</key><true/><key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(ATSFixture.validPinA)</string></dict></array></dict></dict>"))
        #expect(wildcard.code == .invalidHost)
    }

    /// iOS decodes SPKI-SHA256-BASE64 as plain base64, so an OkHttp `sha256/` prefix makes a pin that never matches,
    /// as `ats audit` says (ATS151). The pin file used to strip the prefix and trust the chain.
    @Test(arguments: ["sha256/", "SHA256/", "pin-sha256="])
    func aPrefixedHashIsRefusedAsAuditSaysItNeverMatches(prefix: String) throws {
        let pinned = "<dict><key>a.example.com</key><dict><key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(prefix)\(ATSFixture.validPinA)</string></dict></array></dict></dict>"
        let error = try #require(Self.failure(pinned))
        #expect(error.code == .malformedPin)
        #expect(error.description.contains(prefix) && error.fix.contains("Remove"), "\(error)")
        let findings = Auditor().findings(in: try ATSFixture.source(ATSFixture.infoPlist("<key>NSPinnedDomains</key>\n" + pinned)))
        #expect(findings.contains { $0.rule == .malformedPin }, "the audit and the pin file disagree")
    }
}
