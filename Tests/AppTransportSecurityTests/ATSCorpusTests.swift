import Foundation
import Testing

@testable import AppTransportSecurity

/// The audit on a corpus of real-world shapes (Fixtures/ATSCorpus, written for this repository): the exact finding
/// codes and severities for each file, and advice that never switches a risky setting on (issue #41).
@Suite struct ATSCorpusTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/ATSCorpus")

    /// The audit of one file, read as `ats audit` reads a plist: one source, named by its path.
    static func audit(_ name: String, as layout: ConfigurationSource.Layout? = nil) throws -> AuditReport {
        let file = folder.appendingPathComponent(name)
        let source = try ConfigurationLoader(layout: layout).load(data: Data(contentsOf: file), name: file.path)
        return Auditor(profile: .ios17).audit([source])
    }

    /// Each finding as `CODE severity key`, sorted, so that a test names exactly what the file gives.
    static func codes(_ report: AuditReport) -> [String] {
        report.findings.map { "\($0.rule.id) \($0.severity.rawValue) \($0.key ?? "-")" }.sorted()
    }

    static let expected: [String: [String]] = [
        "keys-inside-exception-domains.plist": [
            "ATS114 info example.com",
            "ATS124 medium NSExceptionAllowsInsecureHTTPLoads",
            "ATS124 medium NSIncludesSubdomains",
        ],
        "misspelt-pin-key.plist": ["ATS151 medium SPKI-SHA256-Base64"],
        "loopback-entries.plist": [
            "ATS110 info NSExceptionAllowsInsecureHTTPLoads",
            "ATS111 info NSExceptionMinimumTLSVersion", "ATS111 info NSExceptionMinimumTLSVersion",
            "ATS113 info NSExceptionRequiresForwardSecrecy", "ATS113 info NSExceptionRequiresForwardSecrecy",
            "ATS114 info 127.0.0.1", "ATS114 info localhost",
        ],
        "loosening-key-typos.plist": [
            "ATS110 high NSExceptionAllowsInsecureHTTPLoads",
            "ATS114 info example.com",
            "ATS121 medium NSAllowArbitraryLoads",
            "ATS121 medium NSAllowsArbitraryLoadInMedia",
            "ATS121 medium NSExceptionAllowsInsecureHTTPSLoads",
        ],
        "string-true.plist": ["ATS120 high NSAllowsArbitraryLoads"],
        "arbitrary-loads-with-web-content.plist": [
            "ATS100 medium NSAllowsArbitraryLoads",
            "ATS102 high NSAllowsArbitraryLoadsInWebContent",
            "ATS104 low NSAllowsArbitraryLoads",
        ],
        "source-info-plist-or-bare.plist": [
            "ATS110 high NSExceptionAllowsInsecureHTTPLoads",
            "ATS114 info example.com",
        ],
        "duplicate-keys.plist": [
            "ATS114 info api.example.com",
            "ATS122 high NSExceptionMinimumTLSVersion",
            "ATS123 medium NSAllowsArbitraryLoads",
            "ATS123 medium api.example.com",
        ],
        "ip-port-and-case-entries.plist": [
            "ATS110 high NSExceptionAllowsInsecureHTTPLoads",
            "ATS110 low NSExceptionAllowsInsecureHTTPLoads",
            "ATS111 low NSExceptionMinimumTLSVersion",
            "ATS114 info 192.168.1.10", "ATS114 info CDN.Example.com", "ATS114 info api.example.com:8443",
            "ATS130 medium CDN.Example.com", "ATS130 medium api.example.com:8443",
            "ATS131 low NSIncludesSubdomains",
        ],
        "placeholder-pins.plist": [
            "ATS150 medium NSPinnedCAIdentities",
            "ATS150 medium NSPinnedLeafIdentities",
            "ATS151 medium SPKI-SHA256-BASE64",
        ],
    ]

    @Test(arguments: expected.keys.sorted())
    func eachFileGetsExactlyItsFindings(_ name: String) throws {
        #expect(Self.codes(try Self.audit(name)) == Self.expected[name], "\(name)")
    }

    @Test func theCorpusIsWhollyTested() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".plist") }.sorted()
        #expect(files == Self.expected.keys.sorted())
    }

    /// Every fix for a key whose correction would loosen ATS says to remove it first.
    @Test(arguments: ["keys-inside-exception-domains.plist", "loosening-key-typos.plist", "string-true.plist"])
    func noFixLeadsWithARiskySetting(_ name: String) throws {
        let report = try Self.audit(name)
        let loosening: Set<String> = ["NSAllowArbitraryLoads", "NSAllowsArbitraryLoadInMedia", "NSExceptionAllowsInsecureHTTPSLoads",
                                      "NSExceptionAllowsInsecureHTTPLoads", "NSAllowsArbitraryLoads"]
        let checked = report.findings.filter { [.unknownKey, .misplacedKey, .wrongType].contains($0.rule) && loosening.contains($0.key ?? "") }
        #expect(!checked.isEmpty)
        for finding in checked {
            #expect(finding.fix.hasPrefix("Remove \(finding.key ?? "")"), "\(finding.fix)")
            #expect(finding.fix.contains("do that only if it is really wanted"), "\(finding.fix)")
            #expect(!finding.fix.hasPrefix("Rename") && !finding.fix.hasPrefix("Move") && !finding.fix.hasPrefix("Write <true/>"))
        }
    }

    @Test func aKeyAmongTheDomainsNamesWhereItBelongsAndTheLikelyEntry() throws {
        let report = try Self.audit("keys-inside-exception-domains.plist")
        let subdomains = try #require(report.findings.first { $0.key == "NSIncludesSubdomains" })
        #expect(subdomains.message.contains("written directly inside NSExceptionDomains"), "\(subdomains.message)")
        #expect(subdomains.message.contains("likely example.com, whose entry is empty"))
        #expect(subdomains.fix == "Move NSIncludesSubdomains into the dictionary of example.com (the one empty entry of NSExceptionDomains)")
        #expect(!report.findings.contains { $0.fix.contains("<dict>") }, "no advice makes a domain of a key")
        let http = try #require(report.findings.first { $0.key == "NSExceptionAllowsInsecureHTTPLoads" })
        #expect(http.fix.contains("Moving NSExceptionAllowsInsecureHTTPLoads into the dictionary of example.com"))
        #expect(http.fix.contains("would allow plain HTTP"))
    }

    @Test func theIgnoredArbitraryLoadsAreReportedOnceWithTheRightRelease() throws {
        let report = try Self.audit("arbitrary-loads-with-web-content.plist")
        let ignored = try #require(report.findings.first { $0.rule == .arbitraryLoadsIgnored })
        #expect(ignored.message.contains("from iOS 10 / macOS 10.12 on"), "\(ignored.message)")
        #expect(!report.findings.contains { $0.message.contains("iOS 17") }, "the profile's name does not leak into the sentences")
        let arbitrary = try #require(report.findings.first { $0.rule == .arbitraryLoads })
        #expect(arbitrary.message.contains("iOS 9") && !arbitrary.message.contains("ignored"), "each fact once: \(arbitrary.message)")
    }

    @Test func theReadingTakenIsSaidAndCanBeChosen() throws {
        let detected = try Self.audit("source-info-plist-or-bare.plist")
        let reading = try #require(detected.readings.first)
        #expect(reading.layout == .bareDictionary)
        #expect(reading.reason.contains("no NSAppTransportSecurity, CFBundle… or other Info.plist key"), "\(reading.reason)")
        #expect(TextReportRenderer(color: false).render(detected).contains(reading.reason))
        #expect(JSONReportRenderer().render(detected).contains("\"layout\" : \"bareDictionary\""))
        #expect(SARIFReportRenderer(toolVersion: "test").render(detected).contains("\"readings\""))

        // Read as an Info.plist, the same keys are misplaced and loosen nothing; moving them would, so removal comes first.
        let asInfo = try Self.audit("source-info-plist-or-bare.plist", as: .infoPlist)
        #expect(asInfo.readings.first?.layout == .infoPlist)
        #expect(asInfo.readings.first?.reason.contains("as asked, though its keys read as a bare") == true)
        #expect(Self.codes(asInfo) == ["ATS124 medium NSAllowsArbitraryLoads", "ATS124 medium NSExceptionDomains"])
        let domains = try #require(asInfo.findings.first { $0.key == "NSExceptionDomains" })
        #expect(domains.fix.hasPrefix("Remove NSExceptionDomains from the root"), "\(domains.fix)")

        let asBare = try Self.audit("loosening-key-typos.plist", as: .bareDictionary)
        #expect(asBare.readings.first?.reason.contains("as asked") == true)
    }
}
