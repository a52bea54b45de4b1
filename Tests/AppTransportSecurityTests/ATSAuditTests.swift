import ATSTestSupport
import Foundation
import Testing
import TransportTrust

@testable import AppTransportSecurity

@Suite struct ATSAuditTests {
    func findings(_ body: String, profile: PlatformProfile = .ios17) throws -> [Finding] {
        Auditor(profile: profile).findings(in: try ATSFixture.source(ATSFixture.infoPlist(body)))
    }

    func rules(_ body: String, profile: PlatformProfile = .ios17) throws -> Set<AuditRule> {
        Set(try findings(body, profile: profile).map(\.rule))
    }

    /// Each rule with a configuration that triggers it and a close one that does not.
    struct RuleCase: CustomTestStringConvertible, Sendable {
        var rule: AuditRule
        var triggers: String
        var clean: String
        var profile: PlatformProfile = .ios17
        var testDescription: String { rule.id + " " + rule.name }
    }

    static let ruleCases: [RuleCase] = [
        RuleCase(rule: .arbitraryLoads, triggers: "<key>NSAllowsArbitraryLoads</key><true/>", clean: "<key>NSAllowsArbitraryLoads</key><false/>"),
        RuleCase(rule: .arbitraryLoadsForMedia, triggers: "<key>NSAllowsArbitraryLoadsForMedia</key><true/>", clean: "<key>NSAllowsArbitraryLoadsForMedia</key><false/>"),
        RuleCase(rule: .arbitraryLoadsInWebContent, triggers: "<key>NSAllowsArbitraryLoadsInWebContent</key><true/>", clean: "<key>NSAllowsArbitraryLoadsInWebContent</key><false/>"),
        RuleCase(rule: .localNetworking, triggers: "<key>NSAllowsLocalNetworking</key><true/>", clean: "<key>NSAllowsLocalNetworking</key><false/>"),
        RuleCase(rule: .arbitraryLoadsIgnored,
                 triggers: "<key>NSAllowsArbitraryLoads</key><true/><key>NSAllowsLocalNetworking</key><false/>",
                 clean: "<key>NSAllowsArbitraryLoads</key><true/>"),
        RuleCase(rule: .insecureHTTPException,
                 triggers: ATSFixture.domain("example.com", "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>"),
                 clean: ATSFixture.domain("example.com", "<key>NSExceptionAllowsInsecureHTTPLoads</key><false/>")),
        RuleCase(rule: .weakMinimumTLS,
                 triggers: ATSFixture.domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.1</string>"),
                 clean: ATSFixture.domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.3</string>")),
        RuleCase(rule: .explicitMinimumTLS,
                 triggers: ATSFixture.domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.2</string>"),
                 clean: ATSFixture.domain("example.com", "")),
        RuleCase(rule: .forwardSecrecyDisabled,
                 triggers: ATSFixture.domain("example.com", "<key>NSExceptionRequiresForwardSecrecy</key><false/>"),
                 clean: ATSFixture.domain("example.com", "<key>NSExceptionRequiresForwardSecrecy</key><true/>")),
        RuleCase(rule: .exceptionDomain, triggers: ATSFixture.domain("example.com", ""), clean: "<key>NSExceptionDomains</key><dict/>"),
        RuleCase(rule: .includesSubdomains,
                 triggers: ATSFixture.domain("example.com", "<key>NSIncludesSubdomains</key><true/>"),
                 clean: ATSFixture.domain("example.com", "<key>NSIncludesSubdomains</key><false/>")),
        RuleCase(rule: .wrongType, triggers: "<key>NSAllowsArbitraryLoads</key><integer>1</integer>", clean: "<key>NSAllowsArbitraryLoads</key><true/>"),
        RuleCase(rule: .unknownKey, triggers: "<key>NSAllowsArbitraryLoad</key><true/>", clean: "<key>NSAllowsArbitraryLoads</key><true/>"),
        RuleCase(rule: .invalidValue,
                 triggers: ATSFixture.domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLS1.2</string>"),
                 clean: ATSFixture.domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.2</string>")),
        RuleCase(rule: .duplicateKey,
                 triggers: "<key>NSAllowsLocalNetworking</key><false/><key>NSAllowsLocalNetworking</key><true/>",
                 clean: "<key>NSAllowsLocalNetworking</key><true/>"),
        RuleCase(rule: .duplicateDomain,
                 triggers: "<key>NSExceptionDomains</key><dict><key>münchen.de</key><dict/><key>xn--mnchen-3ya.de</key><dict/></dict>",
                 clean: "<key>NSExceptionDomains</key><dict><key>münchen.de</key><dict/><key>example.com</key><dict/></dict>"),
        RuleCase(rule: .misplacedKey, triggers: "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>",
                 clean: ATSFixture.domain("example.com", "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>")),
        RuleCase(rule: .unmatchableDomain, triggers: ATSFixture.domain("api.example.com:8443", ""), clean: ATSFixture.domain("api.example.com", "")),
        // No host is longer than 253 characters or has a label over 63 (review-ats F10).
        RuleCase(rule: .unmatchableDomain, triggers: ATSFixture.domain(String(repeating: "a.", count: 127) + "com", ""),
                 clean: ATSFixture.domain(String(repeating: "a.", count: 100) + "com", "")),
        RuleCase(rule: .unmatchableDomain, triggers: ATSFixture.domain(String(repeating: "a", count: 64) + ".com", ""),
                 clean: ATSFixture.domain(String(repeating: "a", count: 63) + ".com", "")),
        RuleCase(rule: .includesSubdomainsOnIP,
                 triggers: ATSFixture.domain("10.0.0.1", "<key>NSIncludesSubdomains</key><true/>"), clean: ATSFixture.domain("10.0.0.1", "")),
        RuleCase(rule: .ipExceptionUnsupported, triggers: ATSFixture.domain("10.0.0.0/8", ""), clean: ATSFixture.domain("10.0.0.0/8", ""), profile: .ios10),
        RuleCase(rule: .legacyKey,
                 triggers: ATSFixture.domain("example.com", "<key>NSTemporaryExceptionMinimumTLSVersion</key><string>TLSv1.2</string>"),
                 clean: ATSFixture.domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.2</string>")),
        RuleCase(rule: .obsoleteCertificateTransparencyKey,
                 triggers: ATSFixture.domain("example.com", "<key>NSRequiresCertificateTransparency</key><true/>"), clean: ATSFixture.domain("example.com", "")),
        RuleCase(rule: .pinWithoutBackup,
                 triggers: ATSFixture.pinned("example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA])),
                 clean: ATSFixture.pinned("example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB]))),
        RuleCase(rule: .malformedPin,
                 triggers: ATSFixture.pinned("example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, "c2hvcnQ="])),
                 clean: ATSFixture.pinned("example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB]))),
        RuleCase(rule: .emptyPinnedDomain,
                 triggers: ATSFixture.pinned("example.com", "<key>NSPinnedCAIdentities</key><array/>"),
                 clean: ATSFixture.pinned("example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB]))),
        RuleCase(rule: .pinnedDomainAllowsHTTP,
                 triggers: ATSFixture.domain("example.com", "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>")
                    + ATSFixture.pinned("example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB])),
                 clean: ATSFixture.domain("other.com", "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>")
                    + ATSFixture.pinned("example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB]))),
        RuleCase(rule: .pinnedDomainsUnsupported,
                 triggers: ATSFixture.pinned("example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB])),
                 clean: ATSFixture.domain("example.com", ""), profile: .ios10),
    ]

    @Test(arguments: ruleCases)
    func ruleTriggersAndStaysQuiet(_ c: RuleCase) throws {
        let triggered = try rules(c.triggers, profile: c.profile)
        #expect(triggered.contains(c.rule), "expected \(c.rule.id) in \(triggered.map(\.id).sorted())")
        let clean = try rules(c.clean, profile: c.rule == .ipExceptionUnsupported ? .ios17 : c.profile)
        #expect(!clean.contains(c.rule), "did not expect \(c.rule.id) in \(clean.map(\.id).sorted())")
    }

    /// NSRequiresCertificateTransparency is obsolete only where the system requires CT (iOS 12.1.1, macOS 10.14.2).
    @Test func theCTKeyIsObsoleteOnlyWhereTheSystemRequiresCT() throws {
        let source = try ATSFixture.source(ATSFixture.infoPlist(ATSFixture.domain("example.com", "<key>NSRequiresCertificateTransparency</key><true/>")))
        func obsolete(_ release: String) throws -> Bool {
            let auditor = Auditor(platform: try #require(ApplePlatform(name: release)))
            return auditor.findings(in: source).contains { $0.rule == .obsoleteCertificateTransparencyKey }
        }
        #expect(try obsolete("ios12.1.1"))
        #expect(try obsolete("macos10.14.2"))
        #expect(try !obsolete("ios12.1"))
        #expect(try !obsolete("ios11"))
        #expect(try !obsolete("macos10.13"))
        #expect(try rules(ATSFixture.domain("example.com", "<key>NSRequiresCertificateTransparency</key><true/>"), profile: .ios10)
            .contains(.obsoleteCertificateTransparencyKey), "a profile alone is its newest release, iOS 13")
    }

    /// iOS 9 does not know the media, web-content and local-networking keys: there they change nothing, and the
    /// audit says so at low severity rather than reporting ATS as loosened.
    /// iOS 10 to 16 exempt unqualified names, .local names and IP addresses with or without NSAllowsLocalNetworking,
    /// as the resolver says: the key loosens nothing there. From iOS 17 it exempts every IP address (review-ats F6).
    @Test func localNetworkingIsHighOnlyWhereItLoosensSomething() throws {
        let body = "<key>NSAllowsLocalNetworking</key><true/>"
        for profile in [PlatformProfile.ios10, .ios14, .macos11] {
            let finding = try #require(try findings(body, profile: profile).first { $0.rule == .localNetworking })
            #expect(finding.severity == .low, "\(profile)")
            #expect(finding.message.contains("no effect on \(profile)"), "\(finding.message)")
        }
        let ios17 = try #require(try findings(body, profile: .ios17).first { $0.rule == .localNetworking })
        #expect(ios17.severity == .high)
        #expect(ios17.message.contains("IP addresses (any, not only private ones)"), "\(ios17.message)")
        // The resolver agrees: on iOS 14 the key changes nothing for these hosts.
        for url in ["http://192.168.1.5/", "http://nas.local/", "http://printer/"] {
            let with = try ATSFixture.resolver(body, .ios14).requirements(for: url), without = try ATSFixture.resolver("", .ios14).requirements(for: url)
            #expect(with.atsEnforced.value == without.atsEnforced.value && with.allowsInsecureHTTP.value == without.allowsInsecureHTTP.value, "\(url)")
        }
    }

    /// Before iOS 17 an IP entry is ignored, so its risky settings change nothing there: at most low, saying why
    /// (review-ats F9). From iOS 17 they are high.
    /// A TLS version written loosely but meaning TLS 1.0 or 1.1 is high, as a mistyped risky Boolean is; one meaning
    /// TLS 1.2 stays medium (review-ats F8).
    @Test(arguments: [("tlsv1.0", Severity.high), ("TLSv1.1 ", .high), ("tlsv1.2", .medium)])
    func aLooseTLSVersionIsAsRiskyAsWhatItMeans(_ value: String, _ severity: Severity) throws {
        let body = ATSFixture.domain("example.com", "<key>NSExceptionMinimumTLSVersion</key><string>\(value)</string>")
        let all = try findings(body)
        let finding = try #require(all.first { $0.rule == .invalidValue }, "\(all.map(\.rule.id))")
        #expect(finding.severity == severity, "\(finding.message)")
    }

    /// A pinned host that web views may load over plain HTTP is found too, not only one URLSession may (review-ats F10).
    @Test func aPinnedHostOpenToHTTPInWebViewsIsReported() throws {
        let body = "<key>NSAllowsArbitraryLoadsInWebContent</key><true/>"
            + ATSFixture.pinned("api.example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB]))
        let finding = try #require(try findings(body).first { $0.rule == .pinnedDomainAllowsHTTP })
        #expect(finding.message.contains("allowed for web views"), "\(finding.message)")
        let urlSessionOnly = ATSFixture.pinned("api.example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB]))
        #expect(try !findings(urlSessionOnly).contains { $0.rule == .pinnedDomainAllowsHTTP })
    }

    /// A legacy key the current one overrides, but that says something riskier, is reported at medium under the rule its
    /// value would trip: Apple does not document the order (review-ats F7). One that says the same is only ATS140.
    @Test func aRiskierLegacyKeyBehindACurrentOneIsReported() throws {
        let body = ATSFixture.domain("a.com", "<key>NSExceptionAllowsInsecureHTTPLoads</key><false/><key>NSTemporaryExceptionAllowsInsecureHTTPLoads</key><true/>"
            + "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.2</string><key>NSThirdPartyExceptionMinimumTLSVersion</key><string>TLSv1.0</string>"
            + "<key>NSExceptionRequiresForwardSecrecy</key><true/><key>NSTemporaryExceptionRequiresForwardSecrecy</key><false/>")
        let all = try findings(body)
        for rule in [AuditRule.insecureHTTPException, .weakMinimumTLS, .forwardSecrecyDisabled] {
            let finding = try #require(all.first { $0.rule == rule }, "\(rule.id): \(all.map(\.rule.id))")
            #expect(finding.severity == .medium)
            #expect(finding.message.contains("overridden here by"), "\(finding.message)")
        }
        let same = ATSFixture.domain("a.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.2</string><key>NSTemporaryExceptionMinimumTLSVersion</key><string>TLSv1.2</string>")
        #expect(try !findings(same).contains { $0.rule == .weakMinimumTLS })
    }

    /// ATS125 names the U-label entry only, with or without a trailing dot on both; a name with and without the dot
    /// matches different URLs, so the two are no duplicates.
    @Test func aDuplicateDomainIsTheULabelEntryOnly() throws {
        for dot in ["", "."] {
            let body = "<key>NSExceptionDomains</key><dict><key>münchen.de\(dot)</key><dict/><key>xn--mnchen-3ya.de\(dot)</key><dict/></dict>"
            let flagged = try findings(body).filter { $0.rule == .duplicateDomain }.map(\.domain)
            #expect(flagged == ["münchen.de\(dot)"], "\(dot): \(flagged)")
        }
        let absoluteAndNot = "<key>NSExceptionDomains</key><dict><key>example.com</key><dict/><key>example.com.</key><dict/></dict>"
        #expect(try !findings(absoluteAndNot).contains { $0.rule == .duplicateDomain })
    }

    @Test func riskySettingsOfAnIgnoredIPEntryAreLow() throws {
        let body = ATSFixture.domain("10.0.0.0/8", "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>")
        let ios14 = try #require(try findings(body, profile: .ios14).first { $0.rule == .insecureHTTPException })
        #expect(ios14.severity == .low)
        #expect(ios14.message.contains("ignores IP entries, so this has no effect there"), "\(ios14.message)")
        #expect(try findings(body, profile: .ios17).first { $0.rule == .insecureHTTPException }?.severity == .high)
    }

    @Test(arguments: ["NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent", "NSAllowsLocalNetworking"])
    func keysIOS9DoesNotKnowAreLowThere(key: String) throws {
        let body = "<key>\(key)</key><true/>"
        let now = try #require(try findings(body).first { $0.location != nil && $0.message.hasPrefix("\(key) is YES") })
        #expect(now.severity > .low)
        #expect(!now.message.contains("no effect"))
        let old = try #require(try findings(body, profile: .ios9).first { $0.rule == now.rule })
        #expect(old.severity == .low)
        #expect(old.message.hasPrefix("\(key) is YES: iOS 9 does not know the key, so it has no effect there; from iOS 10 / macOS 10.12 on, "), "\(old.message)")
        #expect(try ATSFixture.resolver(body, .ios9).requirements(for: "http://192.168.1.2/").atsEnforced.value, "and check agrees")
    }

    @Test func misspellingFindingSaysDidYouMean() throws {
        let f = try findings(ATSFixture.domain("example.com", "<key>NSExceptionMinimumTLSVerion</key><string>TLSv1.0</string>"))
        let typo = try #require(f.first { $0.rule == .unknownKey })
        #expect(typo.message.contains("NSExceptionMinimumTLSVerion is not an ATS key → did you mean NSExceptionMinimumTLSVersion?"))
        #expect(typo.severity == .medium)
        #expect(typo.domain == "example.com")
        #expect(typo.location != nil)
        #expect(!f.contains { $0.rule == .weakMinimumTLS }, "the misspelt key has no effect")
    }

    @Test(arguments: ["<false/>", "<string>NO</string>", "<string>no</string>", "<integer>0</integer>"])
    func forwardSecrecyDisabledInAnyForm(_ value: String) throws {
        let f = try findings(ATSFixture.domain("example.com", "<key>NSExceptionRequiresForwardSecrecy</key>\(value)"))
        let fs = try #require(f.first { $0.rule == .forwardSecrecyDisabled })
        #expect(fs.severity == .high)
    }

    @Test func stringYESForForwardSecrecyIsOnlyATypeProblem() throws {
        let f = try findings(ATSFixture.domain("example.com", "<key>NSExceptionRequiresForwardSecrecy</key><string>YES</string>"))
        #expect(!f.contains { $0.rule == .forwardSecrecyDisabled })
        #expect(f.first { $0.rule == .wrongType }?.severity == .medium)
    }

    @Test func nonDictionaryConfigurationAndMisspeltContainer() throws {
        let head = #"<?xml version="1.0"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>x</string>"#
        let notDict = try ATSFixture.source(head + "<key>NSAppTransportSecurity</key><true/></dict></plist>")
        #expect(Auditor().findings(in: notDict).map(\.rule) == [.configurationNotDictionary])
        let misspelt = try ATSFixture.source(head + "<key>NSAppTransportSecurty</key><dict/></dict></plist>")
        let f = Auditor().findings(in: misspelt)
        #expect(f.map(\.rule) == [.unknownKey])
        #expect(f.first?.message.contains("did you mean NSAppTransportSecurity?") == true)
        let fine = try ATSFixture.source(head + "<key>NSAppTransportSecurity</key><dict/></dict></plist>")
        #expect(Auditor().findings(in: fine).isEmpty)
    }

    /// ATS reads only NSAppTransportSecurity: its keys at the Info.plist's root do nothing, with or without the dictionary.
    @Test func atsKeysAtTheRootAreMisplaced() throws {
        let head = #"<?xml version="1.0"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>x</string>"#
        let keys = "\n<key>NSAllowsArbitraryLoads</key><true/>\n<key>NSExceptionDomains</key><dict><key>a.com</key><dict>"
            + "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict></dict>\n<key>NSIncludesSubdomains</key><true/>"
        for ats in ["", "<key>NSAppTransportSecurity</key><dict/>"] {
            let f = Auditor().findings(in: try ATSFixture.source(head + ats + keys + "</dict></plist>"))
            #expect(f.map(\.rule) == [.misplacedKey, .misplacedKey, .misplacedKey], "\(f.map(\.message))")
            let arbitrary = try #require(f.first { $0.key == "NSAllowsArbitraryLoads" })
            #expect(arbitrary.message.contains("belongs in NSAppTransportSecurity"))
            #expect(arbitrary.location?.line == 2)
            #expect(f.first { $0.key == "NSIncludesSubdomains" }?.message.contains("an NSExceptionDomains entry inside NSAppTransportSecurity") == true)
        }
        let unrelated = try ATSFixture.source(head + "<key>NSAppTransportSecurity</key><dict/><key>UIRequiredDeviceCapabilities</key><array/></dict></plist>")
        #expect(Auditor().findings(in: unrelated).isEmpty)
    }

    /// NSIncludesSubdomains has no effect on an IP entry, so the message must not promise subdomains.
    @Test func insecureHTTPOnAnIPEntryMentionsNoSubdomains() throws {
        let both = "<key>NSIncludesSubdomains</key><true/><key>NSExceptionAllowsInsecureHTTPLoads</key><true/>"
        let ip = try findings(ATSFixture.domain("10.0.0.1", both))
        #expect(ip.first { $0.rule == .insecureHTTPException }?.message.contains("subdomains") == false)
        #expect(ip.contains { $0.rule == .includesSubdomainsOnIP })
        let name = try findings(ATSFixture.domain("example.com", both))
        #expect(name.first { $0.rule == .insecureHTTPException }?.message.contains("(and for its subdomains)") == true)
    }

    @Test func localhostHTTPIsOnlyInfo() throws {
        let f = try findings(ATSFixture.domain("localhost", "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>"))
        #expect(f.first { $0.rule == .insecureHTTPException }?.severity == .info)
    }

    @Test func unmatchableDomainsAreExplained() throws {
        for (name, problem) in [("Example.com", "uppercase"), ("example.com:80", "port"), ("https://example.com", "scheme"),
                                ("*.example.com", "wildcard"), ("example.com/api", "path")] {
            let f = try findings(ATSFixture.domain(name, ""))
            let finding = try #require(f.first { $0.rule == .unmatchableDomain }, "\(name)")
            #expect(finding.message.contains(problem == "uppercase" ? "uppercase" : problem), "\(name): \(finding.message)")
        }
    }

    /// Apple (NSExceptionDomains): "example.com. (with a trailing dot) matches "example.com." but not "example.com".
    /// Similarly, example.com matches "example.com" but not "example.com."."
    @Test func aTrailingDotMatchesOnlyAHostWrittenWithOne() throws {
        let allowHTTP = "<key>NSIncludesSubdomains</key><true/><key>NSExceptionAllowsInsecureHTTPLoads</key><true/>"
        let body = "<key>NSExceptionDomains</key><dict><key>example.org.</key><dict>\(allowHTTP)</dict>"
            + "<key>plain.com</key><dict>\(allowHTTP)</dict></dict>"
        let resolver = try ATSFixture.resolver(body)
        #expect(try resolver.requirements(for: "http://example.org./").allowsInsecureHTTP.value)
        #expect(try resolver.requirements(for: "http://www.example.org./").allowsInsecureHTTP.value)
        #expect(try !resolver.requirements(for: "http://example.org/").allowsInsecureHTTP.value)
        #expect(try resolver.requirements(for: "http://plain.com/").allowsInsecureHTTP.value)
        #expect(try !resolver.requirements(for: "http://plain.com./").allowsInsecureHTTP.value)
        let f = try findings(body)
        #expect(!f.contains { $0.rule == .unmatchableDomain }, "\(f.map(\.message))")
    }

    /// Apple matches the key string, so a dot no host carries makes the entry dead: reported, not normalised.
    @Test(arguments: [(".example.com", "example.com", "starts with a dot"), ("a..b.net", "a.b.net", "empty label")])
    func entriesWithStrayDotsNeverMatch(_ name: String, _ suggestion: String, _ why: String) throws {
        let body = ATSFixture.domain(name, "<key>NSIncludesSubdomains</key><true/><key>NSExceptionAllowsInsecureHTTPLoads</key><true/>")
        let f = try findings(body)
        let dead = try #require(f.first { $0.rule == .unmatchableDomain }, "\(f.map(\.rule.id))")
        #expect(dead.message.contains(why), "\(dead.message)")
        #expect(dead.fix.contains("'\(suggestion)'"), "\(dead.fix)")
        let http = try #require(f.first { $0.rule == .insecureHTTPException })
        #expect(http.severity == .low, "an entry that never matches has no effect")
        #expect(http.message.contains("never matches"))
        let resolver = try ATSFixture.resolver(body)
        for url in ["http://\(suggestion)/", "http://www.\(suggestion)/"] {
            #expect(try resolver.requirements(for: url).exceptionDomain == nil, "\(url)")
        }
    }

    @Test func findingsCarryLineAndColumnInXML() throws {
        let xml = ATSFixture.infoPlist("\t\t<key>NSAllowsArbitraryLoads</key>\n\t\t<true/>")
        let f = Auditor().findings(in: try ATSFixture.source(xml))
        #expect(f.first { $0.rule == .arbitraryLoads }?.location == SourceLocation(line: 9, column: 3))
        let binary = Auditor().findings(in: try ConfigurationLoader().load(data: try ATSFixture.binary(xml), name: "b.plist"))
        #expect(binary.first { $0.rule == .arbitraryLoads }?.location == nil)
    }

    /// Foundation keeps the last of repeated keys: findings point at that copy, and ATS123 at each copy it drops.
    @Test func repeatedKeysPointAtTheCopyThatTakesEffect() throws {
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n<key>NSAppTransportSecurity</key>\n<dict>\n"
        let flat = head + "<key>NSAllowsArbitraryLoads</key>\n<false/>\n<key>NSAllowsArbitraryLoads</key>\n<true/>\n</dict>\n</dict>\n</plist>\n"
        let f = Auditor().findings(in: try ATSFixture.source(flat))
        #expect(f.first { $0.rule == .arbitraryLoads }?.location == SourceLocation(line: 8, column: 1))
        #expect(f.filter { $0.rule == .duplicateKey }.map(\.location) == [SourceLocation(line: 6, column: 1)])

        let entry = "<dict>\n<key>a.com</key>\n<dict>\n<key>NSExceptionAllowsInsecureHTTPLoads</key>\n<true/>\n</dict>\n</dict>\n"
        let nested = head + "<key>NSExceptionDomains</key>\n" + entry + "<key>NSExceptionDomains</key>\n" + entry + "</dict>\n</dict>\n</plist>\n"
        let g = Auditor().findings(in: try ATSFixture.source(nested))
        #expect(g.filter { $0.rule == .duplicateKey }.map(\.location) == [SourceLocation(line: 6, column: 1)])
        #expect(g.first { $0.rule == .exceptionDomain }?.location == SourceLocation(line: 16, column: 1))
        #expect(g.first { $0.rule == .insecureHTTPException }?.location == SourceLocation(line: 18, column: 1))
        #expect(try ATSFixture.source(nested).location(of: PlistKeyPath(["NSExceptionDomains"])) == SourceLocation(line: 14, column: 1))
    }

    /// A plist written in UTF-16 or UTF-32 is found its repeated keys and positions as a UTF-8 one is.
    @Test func aUTF16PlistKeepsItsRepeatedKeysAndPositions() throws {
        let flat = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<plist version=\"1.0\">\n<dict>\n<key>NSAppTransportSecurity</key>\n<dict>\n"
            + "<key>NSAllowsArbitraryLoads</key>\n<false/>\n<key>NSAllowsArbitraryLoads</key>\n<true/>\n</dict>\n</dict>\n</plist>\n"
        // With its byte-order mark, as plutil and Xcode write it: Foundation here reads no UTF-16 plist without one.
        let encodings: [(String, [UInt8], String.Encoding)] = [("UTF-16LE", [0xFF, 0xFE], .utf16LittleEndian), ("UTF-16BE", [0xFE, 0xFF], .utf16BigEndian)]
        for (encoding, mark, body) in encodings {
            let data = Data(mark) + (try #require(flat.data(using: body)))
            let source: ConfigurationSource
            do { source = try ConfigurationLoader().load(data: data, name: "u.plist") } catch {
                Issue.record("\(encoding): \(error)")
                continue
            }
            let f = Auditor().findings(in: source)
            #expect(f.filter { $0.rule == .duplicateKey }.map(\.location) == [SourceLocation(line: 6, column: 1)], "\(encoding)")
            #expect(f.first { $0.rule == .arbitraryLoads }?.location == SourceLocation(line: 8, column: 1), "\(encoding)")
        }
    }

    @Test func deadArbitraryLoadsIsReportedAsSuch() throws {
        let body = "<key>NSAllowsArbitraryLoads</key><true/><key>NSAllowsArbitraryLoadsInWebContent</key><true/>"
        let f = try findings(body)
        #expect(f.first { $0.rule == .arbitraryLoads }?.severity == .medium)
        #expect(f.contains { $0.rule == .arbitraryLoadsIgnored })
        let old = try findings(body, profile: .ios9)
        #expect(old.first { $0.rule == .arbitraryLoads }?.severity == .high)
        #expect(!old.contains { $0.rule == .arbitraryLoadsIgnored })
    }

    @Test func extensionsThatContradictTheAppAreFound() throws {
        let loader = ConfigurationLoader()
        let pinned = ATSFixture.pinned("bank.example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB]))
        let app = try loader.load(data: Data(ATSFixture.infoPlist(ATSFixture.domain("api.example.com", "") + pinned).utf8), name: "App", role: .app)
        let ext = try loader.load(data: Data(ATSFixture.infoPlist(ATSFixture.domain("api.example.com", "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>")).utf8),
                                  name: "Ext", role: .appExtension)
        let report = Auditor().audit([app, ext])
        let contradictions = report.findings.filter { $0.rule == .extensionContradiction }
        #expect(contradictions.count == 2)
        #expect(contradictions.allSatisfy { $0.file == "Ext" })
        #expect(contradictions.contains { $0.domain == "bank.example.com" && $0.message.contains("skip the pins") })
        let same = Auditor().audit([app, try loader.load(data: Data(ATSFixture.infoPlist(ATSFixture.domain("api.example.com", "") + pinned).utf8), name: "Ext", role: .appExtension)])
        #expect(!same.findings.contains { $0.rule == .extensionContradiction })
    }

    @Test func auditComparesIDNEntriesInALabelForm() throws {
        let pins = ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB])
        let f = try findings(ATSFixture.domain("xn--mnchen-3ya.de", "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>")
                             + ATSFixture.pinned("xn--mnchen-3ya.de", pins))
        #expect(f.contains { $0.rule == .pinnedDomainAllowsHTTP && $0.domain == "xn--mnchen-3ya.de" })
        let loader = ConfigurationLoader()
        let app = try loader.load(data: Data(ATSFixture.infoPlist(ATSFixture.domain("münchen.de", "") + ATSFixture.pinned("münchen.de", pins)).utf8),
                                  name: "App", role: .app)
        let ext = try loader.load(data: Data(ATSFixture.infoPlist(ATSFixture.domain("xn--mnchen-3ya.de", "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>")
                                                                  + ATSFixture.pinned("xn--mnchen-3ya.de", pins)).utf8),
                                  name: "Ext", role: .appExtension)
        let contradictions = Auditor().audit([app, ext]).findings.filter { $0.rule == .extensionContradiction }
        #expect(contradictions.map(\.domain) == ["xn--mnchen-3ya.de"], "the same host, configured differently; its pins are present")
    }

    @Test func pinnedDomainsAreReportedAsIgnoredBeforeIOS14() throws {
        let body = ATSFixture.pinned("example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB]))
        for platform in ["ios9", "ios12", "macos10.15"] {
            let f = try findings(body, profile: try #require(PlatformProfile(name: platform)))
            let ignored = try #require(f.first { $0.rule.id == "ATS154" }, "\(platform)")
            #expect(ignored.message.contains("NSPinnedDomains is ignored on"))
            #expect(ignored.severity == .medium)
            #expect(ignored.location != nil)
        }
        for platform in ["ios14", "ios15", "macos11", "ios17"] {
            #expect(try !findings(body, profile: try #require(PlatformProfile(name: platform))).contains { $0.rule.id == "ATS154" }, "\(platform)")
        }
        #expect(try !findings("", profile: try #require(PlatformProfile(name: "ios12"))).contains { $0.rule.id == "ATS154" })
    }

    /// Pins protect only HTTPS: a pinned parent with NSIncludesSubdomains covers an exception subdomain that allows
    /// HTTP, and pinned IP addresses are checked like names.
    @Test func pinnedDomainAllowingHTTPCoversSubdomainsAndAddresses() throws {
        let pins = ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB])
        let http = "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>"
        let sub = try findings(ATSFixture.domain("cdn.example.com", http) + ATSFixture.pinned("example.com", "<key>NSIncludesSubdomains</key><true/>" + pins))
        let found = try #require(sub.first { $0.rule == .pinnedDomainAllowsHTTP })
        #expect(found.domain == "example.com")
        #expect(found.message.contains("plain HTTP to cdn.example.com is allowed"), "\(found.message)")
        let exactOnly = try findings(ATSFixture.domain("cdn.example.com", http) + ATSFixture.pinned("example.com", pins))
        #expect(!exactOnly.contains { $0.rule == .pinnedDomainAllowsHTTP }, "without NSIncludesSubdomains the pins do not reach cdn.example.com")
        let closer = try findings(ATSFixture.domain("cdn.example.com", http) + "<key>NSPinnedDomains</key><dict><key>example.com</key><dict>"
                                  + "<key>NSIncludesSubdomains</key><true/>\(pins)</dict><key>cdn.example.com</key><dict>\(pins)</dict></dict>")
        #expect(closer.filter { $0.rule == .pinnedDomainAllowsHTTP }.map(\.domain) == ["cdn.example.com"], "the closer pinned entry governs the host")
        for address in ["10.0.0.1", "fd00::1"] {
            let ip = try findings(ATSFixture.domain(address, http) + ATSFixture.pinned(address, pins))
            #expect(ip.contains { $0.rule == .pinnedDomainAllowsHTTP && $0.domain == address }, "\(address)")
        }
        let local = try findings("<key>NSAllowsLocalNetworking</key><true/>" + ATSFixture.pinned("192.168.1.2", pins))
        #expect(local.contains { $0.rule == .pinnedDomainAllowsHTTP }, "local networking allows HTTP to the pinned address")
    }

    /// A misspelt hash key is ATS151 (an identity without SPKI-SHA256-BASE64) naming the spelling found, with the
    /// suggestion: the identity is no pin. It was ATS121 alone, and a domain whose only identity was misspelt was
    /// said to list no pin at all (ATS152).
    @Test func aMisspeltIdentityKeyIsAMalformedPinWithASuggestion() throws {
        for written in ["SPKI-SHA256", "spki-sha256-base64-hash", "sha256", "SPKI-SHA256-Base64"] {
            let identity = "<dict><key>\(written)</key><string>\(ATSFixture.validPinB)</string></dict>"
            let f = try findings(ATSFixture.pinned("example.com", "<key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>"
                                                 + ATSFixture.validPinA + "</string></dict>\(identity)</array>"))
            let typo = try #require(f.first { $0.rule == .malformedPin && $0.key == written }, "\(written): \(f.map(\.rule.id))")
            #expect(typo.message.contains("its hash is under '\(written)' → did you mean SPKI-SHA256-BASE64?"), "\(typo.message)")
            #expect(typo.fix == "Rename \(written) to SPKI-SHA256-BASE64")
            #expect(typo.severity == .medium)
            #expect(f.filter { $0.rule == .malformedPin || $0.rule == .unknownKey }.count == 1, "one finding for one mistake")
            // Its only identity misspelt, the domain still lists a pin, a malformed one: no ATS152.
            let only = try findings(ATSFixture.pinned("example.com", "<key>NSPinnedCAIdentities</key><array>\(identity)</array>"))
            #expect(only.map(\.rule).contains(.malformedPin), "\(only.map(\.rule.id))")
            #expect(!only.contains { $0.rule == .emptyPinnedDomain }, "\(only.map(\.message))")
        }
    }

    @Test func anIdentityWithoutAHashIsAMalformedPin() throws {
        let good = [ATSFixture.validPinA, ATSFixture.validPinB].map { "<dict><key>SPKI-SHA256-BASE64</key><string>\($0)</string></dict>" }.joined()
        for empty in ["<dict/>", "<dict></dict>"] {
            let f = try findings(ATSFixture.pinned("example.com", "<key>NSPinnedLeafIdentities</key><array>\(good)\(empty)</array>"))
            let pin = try #require(f.first { $0.rule == .malformedPin }, "\(f.map(\.rule.id))")
            #expect(pin.keyPath == PlistKeyPath(["NSPinnedDomains", "example.com", "NSPinnedLeafIdentities", "2"]))
            #expect(pin.message.contains("has no SPKI-SHA256-BASE64"), "\(pin.message)")
            #expect(pin.domain == "example.com")
        }
        #expect(try !findings(ATSFixture.pinned("example.com", "<key>NSPinnedLeafIdentities</key><array>\(good)</array>")).contains { $0.rule == .malformedPin })
    }

    @Test func exitStatusFollowsFailOn() throws {
        let report = Auditor().audit([try ATSFixture.source(ATSFixture.infoPlist(ATSFixture.domain("example.com", "<key>NSIncludesSubdomains</key><true/>")))])
        #expect(report.findings.allSatisfy { $0.severity == .info })
        #expect(report.exitStatus(failOn: .high) == 0)
        #expect(report.exitStatus(failOn: .low) == 0)
        #expect(report.exitStatus(failOn: .info) == 1)
    }

    // MARK: Renderers

    @Test func jsonReportRoundTrips() throws {
        let report = Auditor().audit([try ATSFixture.source(ATSFixture.infoPlist("<key>NSAllowsArbitraryLoads</key><true/>"))])
        let text = JSONReportRenderer().render(report)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let findings = try #require(object["findings"] as? [[String: Any]])
        #expect(findings.first?["ruleId"] as? String == "ATS100")
        #expect(findings.first?["severity"] as? String == "high")
        #expect(findings.first?["line"] as? Int == 9)
        #expect((object["summary"] as? [String: Int])?["high"] == 1)
        struct Doc: Decodable { var findings: [Finding] }
        let decoded = try JSONDecoder().decode(Doc.self, from: Data(text.utf8))
        #expect(decoded.findings == report.findings)
    }

    @Test func textReportGroupsByDomainAndHonoursColor() throws {
        let body = "<key>NSAllowsArbitraryLoads</key><true/>" + ATSFixture.domain("b.example.com", "<key>NSIncludesSubdomains</key><true/>")
        let report = Auditor().audit([try ATSFixture.source(ATSFixture.infoPlist(body))])
        let plain = TextReportRenderer(color: false).render(report)
        #expect(!plain.contains("\u{1B}["))
        let global = try #require(plain.range(of: "(global)"))
        let domain = try #require(plain.range(of: "  b.example.com\n"))
        #expect(global.lowerBound < domain.lowerBound)
        #expect(TextReportRenderer(color: true).render(report).contains("\u{1B}[1;31m"))
    }
}
