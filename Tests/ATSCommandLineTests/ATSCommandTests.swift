import ATSCommandLine
import ATSTestSupport
import TestSupport
import Foundation
import Testing

@testable import AppTransportSecurity

@Suite struct ATSCommandTests {
    func run(_ args: [String]) async -> (Int32, Output) {
        let out = Output.capture()
        let code = await ATSCommand.run(arguments: args, output: out)
        return (code, out)
    }

    func file(_ text: String, in dir: URL, name: String = "Info.plist") throws -> String {
        let url = dir.appendingPathComponent(name)
        try ATSFixture.write(text, to: url)
        return url.path
    }

    @Test func auditExitCodes() async throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clean = try file(ATSFixture.infoPlist(""), in: dir, name: "clean.plist")
        let bad = try file(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>"), in: dir, name: "bad.plist")
        let medium = try file(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoad</key><true/>"), in: dir, name: "medium.plist")
        let broken = try file("<plist><dict><key>x</key>", in: dir, name: "broken.plist")

        #expect(await run(["audit", clean]).0 == 0)
        #expect(await run(["audit", bad]).0 == 1)
        #expect(await run(["audit", medium]).0 == 0)
        #expect(await run(["audit", medium, "--fail-on", "medium"]).0 == 1)
        let (code, out) = await run(["audit", broken])
        #expect(code == 2)
        #expect(out.standardError.contains("broken.plist"))
        #expect(await run(["audit", dir.appendingPathComponent("missing.plist").path]).0 == 2)
        #expect(await run(["audit", clean, "--fail-on", "critical"]).0 == 2)
        #expect(await run(["audit"]).0 == 2)
    }

    @Test func auditFormats() async throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = try file(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>"), in: dir)
        let (_, text) = await run(["audit", bad])
        #expect(text.standardOutput.contains("ATS100"))
        #expect(!text.standardOutput.contains("\u{1B}["))
        let (_, json) = await run(["audit", bad, "--format", "json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        #expect((object?["findings"] as? [Any])?.count == 1)
        let (_, sarif) = await run(["audit", bad, "--format", "sarif", "--platform", "ios10"])
        #expect(try SARIFValidator.validate(sarif.standardOutput) == 1)
    }

    /// Without ATS the system client still offers no RC4 suite (iOS 10 and later): such a connection is not allowed,
    /// as the requirements printed already leave RC4 out (review-ats F4). iOS 9 still had it.
    /// NSIncludesSubdomains' two readings: any depth by default, one label with --subdomains one-label, where a host
    /// two labels down falls back to ATS's defaults (review-ats F2).
    @Test func subdomainDepthCanBeCheckedUnderEitherReading() async throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plist = try file(ATSFixture.infoPlist(ATSFixture.domain("example.com",
            "<key>NSIncludesSubdomains</key><true/><key>NSExceptionMinimumTLSVersion</key><string>TLSv1.0</string>")), in: dir)
        let deep = ["check", "--plist", plist, "https://cdn.eu.example.com", "--tls", "1.0"]
        let (anyDepth, out) = await run(deep)
        #expect(anyDepth == 0)
        #expect(out.standardOutput.contains("--subdomains one-label"), "\(out.standardOutput)")
        let (oneLabel, strict) = await run(deep + ["--subdomains", "one-label"])
        #expect(oneLabel == 1, "\(strict.standardOutput)")
        #expect(await run(["check", "--plist", plist, "https://cdn.example.com", "--tls", "1.0", "--subdomains", "one-label"]).0 == 0)
        let (bad, usage) = await run(deep + ["--subdomains", "two"])
        #expect(bad == 2)
        #expect(usage.standardError.contains("any-depth") && usage.standardError.contains("one-label"), "\(usage.standardError)")
    }

    @Test func rc4IsNotAllowedEvenWithoutATS() async throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plist = try file(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>"), in: dir)
        let base = ["check", "--plist", plist, "https://foo.com", "--tls", "1.2", "--cipher"]
        let (rc4, out) = await run(base + ["TLS_RSA_WITH_RC4_128_SHA"])
        #expect(rc4 == 1, "\(out.standardOutput)")
        #expect(out.standardOutput.contains("RC4 suite, which Apple's TLS client no longer offers"), "\(out.standardOutput)")
        #expect(await run(base + ["TLS_RSA_WITH_AES_128_CBC_SHA"]).0 == 0)
        #expect(await run(base + ["TLS_RSA_WITH_RC4_128_SHA", "--platform", "ios9"]).0 == 0)
    }

    @Test func checkPrintsProvenanceAndEvaluates() async throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plist = try file(ATSFixture.infoPlist(ATSFixture.domain("example.com",
            "<key>NSIncludesSubdomains</key><true/><key>NSExceptionAllowsInsecureHTTPLoads</key><true/>")), in: dir)
        let (code, out) = await run(["check", "--plist", plist, "http://cdn.example.com"])
        #expect(code == 0)
        #expect(out.standardOutput.contains(
            "http://cdn.example.com → plain HTTP allowed by NSExceptionDomains › example.com › NSExceptionAllowsInsecureHTTPLoads (includes subdomains)"))
        let (blocked, b) = await run(["check", "--plist", plist, "https://other.com", "--tls", "1.1", "--cipher", "TLS_RSA_WITH_AES_128_CBC_SHA"])
        #expect(blocked == 1)
        #expect(b.standardOutput.contains("blocked"))
        let (allowed, _) = await run(["check", "--plist", plist, "https://other.com", "--tls", "1.2", "--cipher", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"])
        #expect(allowed == 0)
        let (jsonCode, json) = await run(["check", "--plist", plist, "http://cdn.example.com", "--json"])
        #expect(jsonCode == 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        let first = (object?["results"] as? [[String: Any]])?.first
        #expect((first?["allowsInsecureHTTP"] as? [String: Any])?["value"] as? Bool == true)
        #expect((first?["allowsInsecureHTTP"] as? [String: Any])?["key"] as? String
                == "NSExceptionDomains › example.com › NSExceptionAllowsInsecureHTTPLoads")
        #expect(object?["platform"] as? String == "iOS 26")
        // The exact release decides Certificate Transparency inside a profile's range.
        let (_, ios11) = await run(["check", "--plist", plist, "https://other.com", "--json", "--platform", "ios11"])
        let old = try JSONSerialization.jsonObject(with: Data(ios11.standardOutput.utf8)) as? [String: Any]
        #expect(old?["profile"] as? String == "ios10" && old?["platform"] as? String == "iOS 11")
        let certificate = ((old?["results"] as? [[String: Any]])?.first?["certificate"] as? [String: Any])?["value"] as? [String: Any]
        #expect(certificate?["requiresCertificateTransparency"] as? Bool == false, "\(ios11.standardOutput)")
        #expect(await run(["check", "--plist", plist, "ftp://x"]).0 == 2)
        #expect(await run(["check", "--plist", dir.appendingPathComponent("nope").path, "https://x"]).0 == 2)
    }

    func checkJSON(_ out: Output) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(out.standardOutput.utf8)) as? [String: Any]
        return try #require(object?["results"] as? [[String: Any]])
    }

    @Test func checkMatchesAnALabelEntryAndShowsTheALabelHost() async throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pins = ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB])
        let plist = try file(ATSFixture.infoPlist(ATSFixture.domain("xn--mnchen-3ya.de", "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>")
                                                  + ATSFixture.pinned("xn--mnchen-3ya.de", pins)), in: dir)
        let (code, out) = await run(["check", "--plist", plist, "http://xn--mnchen-3ya.de/", "https://xn--mnchen-3ya.de/", "--json"])
        #expect(code == 0)
        let results = try checkJSON(out)
        #expect(results.map { $0["host"] as? String } == ["xn--mnchen-3ya.de", "xn--mnchen-3ya.de"])
        #expect((results.first?["allowsInsecureHTTP"] as? [String: Any])?["value"] as? Bool == true)
        #expect(((results.last?["pins"] as? [String: Any])?["value"] as? [String: Any])?["domain"] as? String == "xn--mnchen-3ya.de")
    }

    /// A wrong type is a finding, never silently coerced: check warns, and the provenance says the key is there but ignored.
    @Test func checkWarnsAboutKeysItIgnores() async throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plist = try file(ATSFixture.infoPlist(ATSFixture.domain("a.com", "<key>NSExceptionAllowsInsecureHTTPLoads</key><integer>1</integer>")
                                                  + "<key>NSAllowsArbitraryLoad</key><true/>"), in: dir)
        let (code, out) = await run(["check", "--plist", plist, "http://a.com/"])
        #expect(code == 0)
        let warnings = out.standardError.split(separator: "\n")
        #expect(warnings.contains { $0.hasPrefix("ats check: warning: \(plist):") && $0.contains("ATS120") && $0.contains("NSExceptionAllowsInsecureHTTPLoads") },
                "\(out.standardError)")
        #expect(warnings.contains { $0.contains("ATS121") && $0.contains("did you mean NSAllowsArbitraryLoads?") }, "\(out.standardError)")
        #expect(!out.standardOutput.contains("plain HTTP      blocked  ← NSExceptionDomains › a.com (ATS default; the entry a.com does not set it"))
        #expect(out.standardOutput.contains(
            "plain HTTP blocked by NSExceptionDomains › a.com › NSExceptionAllowsInsecureHTTPLoads (ATS default; NSExceptionAllowsInsecureHTTPLoads is present but is <integer>1</integer>, not a Boolean, so it is ignored)"),
            "\(out.standardOutput)")

        let (jsonCode, json) = await run(["check", "--plist", plist, "http://a.com/", "--json"])
        #expect(jsonCode == 0)
        #expect(json.standardError.isEmpty)
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
        let listed = try #require(object?["warnings"] as? [[String: Any]])
        #expect(Set(listed.compactMap { $0["ruleId"] as? String }) == ["ATS120", "ATS121"])
        let http = try #require(try checkJSON(json).first?["allowsInsecureHTTP"] as? [String: Any])
        #expect(http["key"] as? String == "NSExceptionDomains › a.com › NSExceptionAllowsInsecureHTTPLoads")
        #expect((http["rule"] as? String)?.contains("present but is <integer>1</integer>") == true)

        let clean = try file(ATSFixture.infoPlist(ATSFixture.domain("a.com", "")), in: dir, name: "clean.plist")
        #expect(await run(["check", "--plist", clean, "http://a.com/"]).1.standardError.isEmpty)
    }

    /// An unknown suite is a usage error, like --tls 1.4, whatever the plist allows.
    @Test func checkRefusesAnUnknownCipherSuite() async throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let open = try file(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>"), in: dir, name: "open.plist")
        let strict = try file(ATSFixture.infoPlist(""), in: dir, name: "strict.plist")
        for plist in [open, strict] {
            let (code, out) = await run(["check", "--plist", plist, "https://www.example.org/", "--cipher", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA25"])
            #expect(code == 2)
            #expect(out.standardError.contains("unknown cipher suite; did you mean TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"), "\(out.standardError)")
            #expect(out.standardOutput.isEmpty)
            let (other, garbage) = await run(["check", "--plist", plist, "https://www.example.org/", "--cipher", "NOT_A_SUITE"])
            #expect(other == 2)
            #expect(garbage.standardError.contains("'NOT_A_SUITE' is an unknown cipher suite."), "\(garbage.standardError)")
        }
        #expect(await run(["check", "--plist", open, "https://www.example.org/", "--cipher", "ecdhe_rsa_with_aes_128_gcm_sha256"]).0 == 0)
        #expect(await run(["check", "--plist", open, "https://www.example.org/", "--cipher", "0xC02F"]).0 == 0)
    }

    /// no-color.org: NO_COLOR disables colour "when present and not an empty string (regardless of its value)".
    @Test func noColorMustBeNonEmpty() {
        #expect(Output.usesColor(environment: [:], standardOutputIsTerminal: true))
        #expect(Output.usesColor(environment: ["NO_COLOR": ""], standardOutputIsTerminal: true))
        #expect(!Output.usesColor(environment: ["NO_COLOR": "1"], standardOutputIsTerminal: true))
        #expect(!Output.usesColor(environment: ["NO_COLOR": "0"], standardOutputIsTerminal: true))
        #expect(!Output.usesColor(environment: ["TERM": "dumb"], standardOutputIsTerminal: true))
        #expect(!Output.usesColor(environment: [:], standardOutputIsTerminal: false))
    }

    @Test func auditReadsAnIPAAndComparesExtensions() async throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let ipa = try ATSFixture.ipa([
            ("Payload/Demo.app/Info.plist", Data(ATSFixture.infoPlist("").utf8)),
            ("Payload/Demo.app/PlugIns/Share.appex/Info.plist", Data(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>").utf8)),
        ], in: dir)
        let (code, out) = await run(["audit", ipa.path, "--format", "json"])
        #expect(code == 1)
        #expect(out.standardOutput.contains("Payload/Demo.app/PlugIns/Share.appex/Info.plist"))
        #expect(out.standardOutput.contains("ATS160"))
        let (_, sarif) = await run(["audit", ipa.path, "--format", "sarif"])
        #expect(try SARIFValidator.validate(sarif.standardOutput) > 0)
        let log = try JSONSerialization.jsonObject(with: Data(sarif.standardOutput.utf8)) as? [String: Any]
        let results = ((log?["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]) ?? []
        let lines = results.compactMap { ((($0["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?["region"] as? [String: Any])?["startLine"] as? Int }
        #expect(!lines.isEmpty && lines.allSatisfy { $0 == 1 }, "lines inside an archive member are not lines of the .ipa")
    }

    /// The plists of an .app folder are files: SARIF points at them and their lines, not at the folder's line 1.
    @Test func sarifForAnAppFolderPointsAtThePlistFile() async throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let app = dir.appendingPathComponent("Demo.app")
        try ATSFixture.write(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>"), to: app.appendingPathComponent("Info.plist"))
        try ATSFixture.write(ATSFixture.infoPlist("\n<key>NSAllowsArbitraryLoadsForMedia</key><true/>"),
                             to: app.appendingPathComponent("PlugIns/Player.appex/Info.plist"))
        let (code, out) = await run(["audit", app.path, "--format", "sarif"])
        #expect(code == 1)
        #expect(try SARIFValidator.validate(out.standardOutput) == 3)
        let log = try JSONSerialization.jsonObject(with: Data(out.standardOutput.utf8)) as? [String: Any]
        let results = ((log?["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]) ?? []
        let places = results.compactMap { r -> String? in
            guard let physical = (r["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any],
                  let uri = (physical["artifactLocation"] as? [String: Any])?["uri"] as? String,
                  let line = (physical["region"] as? [String: Any])?["startLine"] as? Int else { return nil }
            return "\(uri):\(line)"
        }
        // ATS100 in the app, ATS101 in the extension, and ATS160 (the two differ) at the extension's NSAppTransportSecurity.
        #expect(places.sorted() == ["file://\(app.path)/Info.plist:9", "file://\(app.path)/PlugIns/Player.appex/Info.plist:10",
                                    "file://\(app.path)/PlugIns/Player.appex/Info.plist:7"].sorted())
    }

    /// The parser wraps help to the terminal's width, so a line break written into a sentence of the source shows up
    /// as a short ragged line; only sentence ends may break a paragraph.
    @Test(arguments: ["verify", "audit", "check", "pins", "fetch", "diagnose", "serve", "demo"])
    func helpParagraphsAreWrappedOnlyByTheParser(command: String) async throws {
        let (code, out) = await run([command, "--help"])
        #expect(code == 0)
        let overview = out.standardOutput.components(separatedBy: "\nUSAGE:").first ?? ""
        let lines = overview.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let width = lines.map(\.count).max() ?? 0
        for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty {
            if line.hasSuffix(".") || line.hasSuffix(":") { continue }
            let nextWord = next.split(separator: " ").first ?? ""
            #expect(line.count + 1 + nextWord.count > width, "'\(line)' breaks before '\(nextWord)'")
        }
    }

    @Test func auditReadsAnAppFolder() async throws {
        let dir = try ATSFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let app = dir.appendingPathComponent("Demo.app")
        try ATSFixture.write(ATSFixture.infoPlist(""), to: app.appendingPathComponent("Info.plist"))
        #expect(await run(["audit", app.path]).0 == 0)
        try ATSFixture.write(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoadsForMedia</key><true/>"),
                             to: app.appendingPathComponent("PlugIns/Player.appex/Info.plist"))
        let (code, out) = await run(["audit", app.path])
        #expect(code == 1)
        #expect(out.standardOutput.contains("PlugIns/Player.appex/Info.plist"))
        #expect(await run(["audit", dir.path]).0 == 2, "a folder without an Info.plist is unreadable input")
    }

    /// `--as` on a file of the audit's corpus (ATSCorpusTests) that reads either way.
    @Test func auditAndCheckTakeTheReadingOnTheCommandLine() async throws {
        let file = Repository.root.appendingPathComponent("Tests/AppTransportSecurityTests/Fixtures/ATSCorpus/source-info-plist-or-bare.plist").path
        let out = Output.capture()
        #expect(await ATSCommand.run(arguments: ["audit", file, "--as", "info-plist", "--format", "json"], output: out) == 0)
        #expect(out.standardOutput.contains("\"layout\" : \"infoPlist\""), "\(out.standardOutput)")
        let check = Output.capture()
        #expect(await ATSCommand.run(arguments: ["check", "--plist", file, "--as", "ats-dictionary", "http://example.com/"], output: check) == 0,
                "\(check.standardError)")
        let bad = Output.capture()
        #expect(await ATSCommand.run(arguments: ["audit", file, "--as", "xml"], output: bad) == 2)
        #expect(bad.standardError.contains("info-plist"), "\(bad.standardError)")
    }
}
