import ATSTestSupport
import Foundation
import Testing
import TransportTrust

@testable import AppTransportSecurity

@Suite struct ATSRequirementsTests {
    /// One precedence case: a configuration, a profile, a URL, and whether plain HTTP / ATS apply.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var body: String
        var profile: PlatformProfile
        var url: String
        var context: LoadContext = .urlSession
        var httpAllowed: Bool
        var atsEnforced: Bool
        var entry: String? = nil
        var testDescription: String { "\(name) [\(profile.rawValue)] \(url)" }
    }

    static let arbitrary = "<key>NSAllowsArbitraryLoads</key><true/>"
    static let arbitraryAndMediaNO = arbitrary + "<key>NSAllowsArbitraryLoadsForMedia</key><false/>"
    static let arbitraryAndWeb = arbitrary + "<key>NSAllowsArbitraryLoadsInWebContent</key><true/>"
    static let arbitraryWithEmptyEntry = arbitrary + "<key>NSExceptionDomains</key><dict><key>api.example.com</key><dict/></dict>"
    static let subdomainsHTTP = """
        <key>NSExceptionDomains</key><dict><key>example.com</key><dict>
        <key>NSIncludesSubdomains</key><true/><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict></dict>
        """
    static let exactHTTP = """
        <key>NSExceptionDomains</key><dict><key>example.com</key><dict>
        <key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict></dict>
        """
    static let ipHTTP = """
        <key>NSExceptionDomains</key><dict><key>10.0.0.1</key><dict>
        <key>NSIncludesSubdomains</key><true/><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict></dict>
        """
    static let cidrHTTP = """
        <key>NSExceptionDomains</key><dict><key>10.0.0.0/8</key><dict>
        <key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict></dict>
        """
    static let localNetworking = "<key>NSAllowsLocalNetworking</key><true/>"
    static let upperHTTP = """
        <key>NSExceptionDomains</key><dict><key>Example.com</key><dict>
        <key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict></dict>
        """

    static let cases: [Case] = [
        // NSAllowsArbitraryLoads alone is honoured everywhere.
        Case(name: "arbitrary loads", body: arbitrary, profile: .ios9, url: "http://a.com", httpAllowed: true, atsEnforced: false),
        Case(name: "arbitrary loads", body: arbitrary, profile: .ios10, url: "http://a.com", httpAllowed: true, atsEnforced: false),
        Case(name: "arbitrary loads", body: arbitrary, profile: .ios17, url: "http://a.com", httpAllowed: true, atsEnforced: false),
        // The presence of ForMedia (even NO) makes it ignored from iOS 10; iOS 9 did the opposite.
        Case(name: "arbitrary + ForMedia NO", body: arbitraryAndMediaNO, profile: .ios9, url: "http://a.com", httpAllowed: true, atsEnforced: false),
        Case(name: "arbitrary + ForMedia NO", body: arbitraryAndMediaNO, profile: .ios10, url: "http://a.com", httpAllowed: false, atsEnforced: true),
        Case(name: "arbitrary + ForMedia NO", body: arbitraryAndMediaNO, profile: .ios17, url: "http://a.com", httpAllowed: false, atsEnforced: true),
        Case(name: "arbitrary + ForMedia NO", body: arbitraryAndMediaNO, profile: .macos10_12, url: "http://a.com", httpAllowed: false, atsEnforced: true),
        // InWebContent applies to web views only, and still silences NSAllowsArbitraryLoads elsewhere.
        Case(name: "arbitrary + web", body: arbitraryAndWeb, profile: .ios10, url: "http://a.com", httpAllowed: false, atsEnforced: true),
        Case(name: "arbitrary + web", body: arbitraryAndWeb, profile: .ios10, url: "http://a.com", context: .webContent, httpAllowed: true, atsEnforced: false),
        Case(name: "arbitrary + web", body: arbitraryAndWeb, profile: .ios9, url: "http://a.com", httpAllowed: true, atsEnforced: false),
        Case(name: "arbitrary + web", body: arbitraryAndWeb, profile: .ios9, url: "http://a.com", context: .webContent, httpAllowed: true, atsEnforced: false),
        // An empty exception entry takes none of the global keys.
        Case(name: "empty entry", body: arbitraryWithEmptyEntry, profile: .ios9, url: "http://api.example.com", httpAllowed: false, atsEnforced: true, entry: "api.example.com"),
        Case(name: "empty entry", body: arbitraryWithEmptyEntry, profile: .ios17, url: "http://api.example.com", httpAllowed: false, atsEnforced: true, entry: "api.example.com"),
        Case(name: "empty entry", body: arbitraryWithEmptyEntry, profile: .ios17, url: "http://www.api.example.com", httpAllowed: true, atsEnforced: false),
        // NSIncludesSubdomains.
        Case(name: "subdomains", body: subdomainsHTTP, profile: .ios17, url: "http://example.com", httpAllowed: true, atsEnforced: true, entry: "example.com"),
        Case(name: "subdomains", body: subdomainsHTTP, profile: .ios17, url: "http://cdn.example.com", httpAllowed: true, atsEnforced: true, entry: "example.com"),
        Case(name: "subdomains", body: subdomainsHTTP, profile: .ios17, url: "http://a.b.example.com", httpAllowed: true, atsEnforced: true, entry: "example.com"),
        Case(name: "subdomains", body: subdomainsHTTP, profile: .ios17, url: "http://notexample.com", httpAllowed: false, atsEnforced: true),
        Case(name: "subdomains", body: subdomainsHTTP, profile: .ios17, url: "http://CDN.Example.COM:8080/x", httpAllowed: true, atsEnforced: true, entry: "example.com"),
        Case(name: "exact only", body: exactHTTP, profile: .ios17, url: "http://cdn.example.com", httpAllowed: false, atsEnforced: true),
        Case(name: "exact only", body: exactHTTP, profile: .ios17, url: "http://example.com", httpAllowed: true, atsEnforced: true, entry: "example.com"),
        Case(name: "uppercase entry", body: upperHTTP, profile: .ios17, url: "http://example.com", httpAllowed: false, atsEnforced: true),
        // Names never match IPs; IP entries never match names; includeSubdomains does nothing for IPs.
        Case(name: "name entry vs IP", body: exactHTTP, profile: .ios17, url: "http://93.184.216.34", httpAllowed: false, atsEnforced: true),
        Case(name: "IP entry", body: ipHTTP, profile: .ios17, url: "http://10.0.0.1/", httpAllowed: true, atsEnforced: true, entry: "10.0.0.1"),
        Case(name: "IP entry on iOS 9", body: ipHTTP, profile: .ios9, url: "http://10.0.0.1/", httpAllowed: false, atsEnforced: true),
        // Local networking.
        Case(name: "unqualified", body: "", profile: .ios9, url: "http://printer/", httpAllowed: false, atsEnforced: true),
        Case(name: "unqualified", body: "", profile: .ios10, url: "http://printer/", httpAllowed: true, atsEnforced: false),
        Case(name: "unqualified", body: "", profile: .ios17, url: "http://printer/", httpAllowed: true, atsEnforced: false),
        Case(name: ".local", body: "", profile: .ios17, url: "http://printer.local/", httpAllowed: true, atsEnforced: false),
        Case(name: "IP literal", body: "", profile: .ios9, url: "http://192.168.1.5/", httpAllowed: false, atsEnforced: true),
        Case(name: "IP literal", body: "", profile: .ios10, url: "http://192.168.1.5/", httpAllowed: true, atsEnforced: false),
        Case(name: "IP literal", body: "", profile: .ios17, url: "http://192.168.1.5/", httpAllowed: false, atsEnforced: true),
        Case(name: "IPv6 literal", body: "", profile: .macos14, url: "http://[fe80::1]/", httpAllowed: false, atsEnforced: true),
        Case(name: "IP literal + local networking", body: localNetworking, profile: .ios17, url: "http://192.168.1.5/", httpAllowed: true, atsEnforced: false),
        Case(name: "local networking, public name", body: localNetworking, profile: .ios17, url: "http://example.com/", httpAllowed: false, atsEnforced: true),
        // CIDR ranges from iOS 17.
        Case(name: "CIDR", body: cidrHTTP, profile: .ios17, url: "http://10.20.30.40/", httpAllowed: true, atsEnforced: true, entry: "10.0.0.0/8"),
        Case(name: "CIDR", body: cidrHTTP, profile: .ios17, url: "http://11.0.0.1/", httpAllowed: false, atsEnforced: true),
        Case(name: "CIDR", body: cidrHTTP, profile: .ios10, url: "http://10.20.30.40/", httpAllowed: true, atsEnforced: false),
        Case(name: "CIDR", body: cidrHTTP, profile: .ios9, url: "http://10.20.30.40/", httpAllowed: false, atsEnforced: true),
    ]

    @Test(arguments: cases)
    func precedence(_ c: Case) throws {
        let req = try ATSFixture.resolver(c.body, c.profile).requirements(for: c.url, context: c.context)
        #expect(req.allowsInsecureHTTP.value == c.httpAllowed, "\(req.allowsInsecureHTTP.because)")
        #expect(req.atsEnforced.value == c.atsEnforced, "\(req.atsEnforced.because)")
        #expect(req.exceptionDomain == c.entry)
    }

    @Test func provenanceNamesTheKeyAndRule() throws {
        let req = try ATSFixture.resolver(Self.subdomainsHTTP).requirements(for: "http://cdn.example.com")
        #expect(req.allowsInsecureHTTP.because.description
                == "NSExceptionDomains › example.com › NSExceptionAllowsInsecureHTTPLoads (includes subdomains)")
        #expect(req.minimumTLSVersion.because.keyPath == PlistKeyPath(["NSExceptionDomains", "example.com"]))
        #expect(req.minimumTLSVersion.because.rule.contains("global keys do not apply"))
    }

    @Test func mistypedKeysArePresentButIgnored() throws {
        let body = ATSFixture.domain("a.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLS1.0</string>"
                                        + "<key>NSExceptionRequiresForwardSecrecy</key><string>NO</string>")
            + "<key>NSAllowsArbitraryLoads</key><integer>1</integer>"
        let resolver = try ATSFixture.resolver(body)
        let entry = try resolver.requirements(for: "https://a.com/")
        #expect(entry.minimumTLSVersion.value == .tls12)
        #expect(entry.minimumTLSVersion.because.keyPath == PlistKeyPath(["NSExceptionDomains", "a.com", "NSExceptionMinimumTLSVersion"]))
        #expect(entry.minimumTLSVersion.because.rule.contains("'TLS1.0' is not one of its values, so it is ignored"))
        #expect(entry.requiresForwardSecrecy.value)
        #expect(entry.requiresForwardSecrecy.because.rule.contains("present but is <string>NO</string>, not a Boolean, so it is ignored"))
        #expect(entry.allowsInsecureHTTP.because.rule.contains("does not set it"), "a key that is really absent")
        let global = try resolver.requirements(for: "http://b.com/")
        #expect(!global.allowsInsecureHTTP.value)
        #expect(global.allowsInsecureHTTP.because.rule.contains("NSAllowsArbitraryLoads is present but is <integer>1</integer>"))
    }

    @Test func ignoredArbitraryLoadsIsExplained() throws {
        let req = try ATSFixture.resolver(Self.arbitraryAndMediaNO, .ios10).requirements(for: "http://a.com")
        #expect(req.allowsInsecureHTTP.because.rule.contains("NSAllowsArbitraryLoads is ignored"))
        #expect(req.allowsInsecureHTTP.because.rule.contains("NSAllowsArbitraryLoadsForMedia"))
    }

    /// The system requires CT from iOS 12.1.1 / macOS 10.14.2, inside the ios10 profile; before that only
    /// NSRequiresCertificateTransparency = YES does, and the key goes with the requirements to the trust evaluation.
    @Test(arguments: [
        ("ios11", false, false), ("ios12.1", false, false), ("ios12.1.1", true, false), ("ios13", true, false),
        ("macos10.14.1", false, false), ("macos10.14.2", true, false), ("ios9", false, false),
        ("ios11", true, true), ("ios9", true, true), ("ios26", true, true),
    ])
    func certificateTransparencyFollowsTheExactRelease(release: String, required: Bool, key: Bool) throws {
        let platform = try #require(ApplePlatform(name: release))
        let body = key ? ATSFixture.domain("a.com", "<key>NSRequiresCertificateTransparency</key><true/>") : ""
        let resolver = RequirementsResolver(configuration: try ATSFixture.configuration(body), platform: platform)
        #expect(resolver.profile == PlatformProfile(platform))
        let cert = try resolver.requirements(for: "https://a.com/").certificate
        #expect(cert.value.requiresCertificateTransparency == required)
        #expect(cert.value.certificateTransparencyFromConfiguration == key)
        let policy = cert.value.trustPolicy(host: nil)
        #expect(policy.certificateTransparency.mode == (required ? .enforce : .off))
        #expect(policy.certificateTransparency.requiredByConfiguration == key)
        if key {
            #expect(cert.because.rule.contains(platform.enforcesCertificateTransparency
                ? "NSRequiresCertificateTransparency is obsolete on \(platform)"
                : "NSRequiresCertificateTransparency = YES requires Certificate Transparency, which \(platform) does not require by itself"),
                "\(cert.because.rule)")
        }
    }

    /// A profile alone is resolved as its newest release: ios10 covers iOS 13, which requires CT.
    @Test func aProfileAloneIsItsNewestRelease() throws {
        for profile in PlatformProfile.allCases {
            #expect(PlatformProfile(profile.newestRelease) == profile, "\(profile)")
        }
        #expect(try ATSFixture.resolver("", .ios10).requirements(for: "https://a.com/").certificate.value.requiresCertificateTransparency)
        #expect(try !ATSFixture.resolver("", .ios9).requirements(for: "https://a.com/").certificate.value.requiresCertificateTransparency)
        #expect(PlatformProfile(ApplePlatform(.iOS, 13, 7)) == .ios10)
        #expect(PlatformProfile(ApplePlatform(.macOS, 10, 11)) == .macos10_11)
        #expect(PlatformProfile(ApplePlatform(.macOS, 12)) == .macos11)
    }

    /// Any depth is the default, and a match deeper than one label says that Apple's page may disagree.
    @Test func aDeepSubdomainMatchIsFlagged() throws {
        let resolver = try ATSFixture.resolver(Self.subdomainsHTTP)
        #expect(try resolver.requirements(for: "http://cdn.example.com").notes.isEmpty)
        let deep = try resolver.requirements(for: "http://a.b.example.com")
        #expect(deep.allowsInsecureHTTP.value)
        #expect(deep.notes.contains { $0.contains("a.b.example.com is more than one label below example.com") }, "\(deep.notes)")
    }

    @Test func oneLabelSubdomainMatchingIsAvailable() throws {
        var resolver = try ATSFixture.resolver(Self.subdomainsHTTP)
        resolver.subdomainMatching = .oneLabel
        #expect(try resolver.requirements(for: "http://cdn.example.com").allowsInsecureHTTP.value)
        #expect(try !resolver.requirements(for: "http://a.b.example.com").allowsInsecureHTTP.value)
    }

    @Test func mostSpecificEntryWins() throws {
        let body = """
            <key>NSExceptionDomains</key><dict>
            <key>example.com</key><dict><key>NSIncludesSubdomains</key><true/><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict>
            <key>api.example.com</key><dict/>
            </dict>
            """
        let resolver = try ATSFixture.resolver(body)
        #expect(try resolver.requirements(for: "http://api.example.com").exceptionDomain == "api.example.com")
        #expect(try !resolver.requirements(for: "http://api.example.com").allowsInsecureHTTP.value)
        #expect(try resolver.requirements(for: "http://x.api.example.com").exceptionDomain == "example.com")
    }

    // MARK: Internationalised names

    /// Foundation's `URLComponents.host` turns `xn--mnchen-3ya.de` into `münchen.de` on Linux; both sides are
    /// compared in A-label form, whichever way the entry and the URL are written.
    @Test(arguments: [("xn--mnchen-3ya.de", "http://xn--mnchen-3ya.de/"), ("xn--mnchen-3ya.de", "http://münchen.de/"),
                      ("münchen.de", "http://xn--mnchen-3ya.de/"), ("münchen.de", "http://münchen.de/")])
    func idnEntriesMatchInALabelForm(_ entry: String, _ url: String) throws {
        let pins = ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB])
        let body = ATSFixture.domain(entry, "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>") + ATSFixture.pinned(entry, pins)
        let resolver = try ATSFixture.resolver(body)
        let req = try resolver.requirements(for: url)
        #expect(req.target.host == "xn--mnchen-3ya.de")
        #expect(req.allowsInsecureHTTP.value, "\(req.allowsInsecureHTTP.because)")
        #expect(req.exceptionDomain == entry)
        let https = try resolver.requirements(for: url.replacingOccurrences(of: "http:", with: "https:"))
        #expect(https.pins.value?.domain == entry)
    }

    @Test func idnSubdomainsAreCovered() throws {
        let body = ATSFixture.domain("xn--mnchen-3ya.de", "<key>NSIncludesSubdomains</key><true/><key>NSExceptionAllowsInsecureHTTPLoads</key><true/>")
        let req = try ATSFixture.resolver(body).requirements(for: "http://www.münchen.de/")
        #expect(req.target.host == "www.xn--mnchen-3ya.de")
        #expect(req.allowsInsecureHTTP.value)
    }

    // MARK: Cipher suites, TLS and certificates

    @Test func defaultsAreATSStrict() throws {
        let req = try ATSFixture.resolver("").requirements(for: "https://example.com")
        #expect(req.minimumTLSVersion.value == .tls12)
        #expect(req.requiresForwardSecrecy.value)
        #expect(req.cipherSuites.value == CipherSuite.atsForwardSecrecy + CipherSuite.tls13)
        #expect(req.cipherSuites.value.allSatisfy { $0.hasForwardSecrecy })
        #expect(req.certificate.value.requiresATSKeyStrength)
        #expect(req.certificate.value.validation == .standard)
        #expect(req.certificate.value.trustPolicy(host: try PeerName("example.com")).requiresATSStrength)
        // Apple's eleven, then the three its implementation accepts beyond the page (0xC014, 0xCCA9, 0xCCA8).
        #expect(CipherSuite.atsForwardSecrecy.count == 14)
        #expect(CipherSuite.atsForwardSecrecy.suffix(3).map(\.code) == [0xC014, 0xCCA9, 0xCCA8])
    }

    @Test func forwardSecrecyNOUnderATLS13MinimumAddsNoSuiteAndSaysSo() throws {
        let body = """
            <key>NSExceptionDomains</key><dict><key>modern.example.com</key><dict>
            <key>NSExceptionMinimumTLSVersion</key><string>TLSv1.3</string>
            <key>NSExceptionRequiresForwardSecrecy</key><false/></dict></dict>
            """
        let req = try ATSFixture.resolver(body).requirements(for: "https://modern.example.com")
        #expect(req.cipherSuites.value == CipherSuite.tls13)
        #expect(!req.cipherSuites.because.rule.contains("adds the RSA"), "\(req.cipherSuites.because.rule)")
        #expect(req.cipherSuites.because.rule.contains("adds no suite"))
        let findings = try ATSAuditTests().findings(body)
        let fs = try #require(findings.first { $0.rule == .forwardSecrecyDisabled })
        #expect(fs.severity == .medium)
        #expect(fs.message.contains("only the certificate key-size check is dropped"), "\(fs.message)")
        #expect(!fs.message.contains("RSA key-exchange suites are allowed"))
    }

    /// NSExceptionAllowsInsecureHTTPLoads alone lets the app loosen trust but keeps the key sizes (Apple: it "doesn't by
    /// itself change default server trust evaluation requirements"); a weak key is a certificate failure the app's own
    /// trust handling may waive.
    @Test func insecureHTTPLoadsAloneKeepsTheKeySizes() throws {
        let http = "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>"
        let alone = try ATSFixture.resolver(ATSFixture.domain("a.com", http)).requirements(for: "https://a.com/")
        #expect(alone.certificate.value.validation == .relaxed)
        #expect(alone.certificate.value.requiresATSKeyStrength)
        #expect(alone.certificate.value.trustPolicy(host: nil).requiresATSStrength)
        #expect(alone.certificate.because.rule.contains("RSA ≥ 2048 or EC ≥ 256 bits) still apply unless the app waives them"))
        let weak = alone.evaluate(ConnectionDescription(scheme: "https", tlsVersion: .tls12, cipherSuite: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                                                        trust: .trusted(keyMeetsATSStrength: false)))
        #expect(weak.blockingReasons.map(\.kind) == [.certificate])
        let withoutFS = try ATSFixture.resolver(ATSFixture.domain("a.com", http + "<key>NSExceptionRequiresForwardSecrecy</key><false/>"))
            .requirements(for: "https://a.com/")
        #expect(!withoutFS.certificate.value.requiresATSKeyStrength)
        #expect(withoutFS.certificate.because.rule.contains("NSExceptionRequiresForwardSecrecy = NO removes the ATS key-size check"))
    }

    @Test func forwardSecrecyNOAddsRSASuitesAndDropsKeySize() throws {
        let body = """
            <key>NSExceptionDomains</key><dict><key>legacy.example.com</key><dict>
            <key>NSExceptionRequiresForwardSecrecy</key><false/></dict></dict>
            """
        let req = try ATSFixture.resolver(body).requirements(for: "https://legacy.example.com")
        #expect(!req.requiresForwardSecrecy.value)
        for suite in CipherSuite.atsRSAKeyExchange { #expect(req.cipherSuites.value.contains(suite)) }
        #expect(req.cipherSuites.value.contains { $0.name == "TLS_RSA_WITH_AES_128_CBC_SHA" })
        #expect(!req.certificate.value.requiresATSKeyStrength)
        #expect(!req.certificate.value.trustPolicy(host: nil).requiresATSStrength)
        #expect(req.certificate.because.rule.contains("key-size"))
        #expect(req.minimumTLSVersion.value == .tls12, "forward secrecy does not change the TLS version")
    }

    @Test func insecureHTTPRelaxesCertificateValidation() throws {
        let req = try ATSFixture.resolver(Self.exactHTTP).requirements(for: "https://example.com")
        #expect(req.certificate.value.validation == .relaxed)
        #expect(req.certificate.because.keyPath?.last == "NSExceptionAllowsInsecureHTTPLoads")
        let other = try ATSFixture.resolver(Self.exactHTTP).requirements(for: "https://other.example.com")
        #expect(other.certificate.value.validation == .standard)
    }

    @Test func minimumTLSOneZeroExceptionAndEvaluation() throws {
        let body = """
            <key>NSExceptionDomains</key><dict><key>old.example.com</key><dict>
            <key>NSExceptionMinimumTLSVersion</key><string>TLSv1.0</string></dict></dict>
            """
        let resolver = try ATSFixture.resolver(body)
        let old = try resolver.requirements(for: "https://old.example.com")
        #expect(old.minimumTLSVersion.value == .tls10)
        let ok = old.evaluate(ConnectionDescription(scheme: "https", tlsVersion: .tls10, cipherSuite: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"))
        #expect(ok.isAllowed)
        let strict = try resolver.requirements(for: "https://new.example.com")
        let blocked = strict.evaluate(ConnectionDescription(scheme: "https", tlsVersion: .tls10, cipherSuite: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"))
        #expect(!blocked.isAllowed)
        #expect(blocked.blockingReasons.map(\.check) == ["tls-version"])
    }

    @Test func evaluationReportsEachReason() throws {
        let req = try ATSFixture.resolver("").requirements(for: "https://example.com")
        let e = req.evaluate(ConnectionDescription(scheme: "https", tlsVersion: .tls12, cipherSuite: "TLS_RSA_WITH_AES_128_GCM_SHA256",
                                                   trust: .trusted(keyMeetsATSStrength: false)))
        #expect(!e.isAllowed)
        #expect(e.blockingReasons.map(\.check) == ["cipher-suite", "certificate"])
        let good = req.evaluate(ConnectionDescription(scheme: "https", tlsVersion: .tls13, cipherSuite: "TLS_AES_128_GCM_SHA256",
                                                      trust: .trusted(keyMeetsATSStrength: true)))
        #expect(good.isAllowed)
        let http = req.evaluate(ConnectionDescription(scheme: "http"))
        #expect(!http.isAllowed)
        let mismatch = req.evaluate(ConnectionDescription(scheme: "https", tlsVersion: .tls12, cipherSuite: "TLS_AES_128_GCM_SHA256"))
        #expect(!mismatch.isAllowed, "a TLS 1.3 suite cannot be negotiated with TLS 1.2")
    }

    /// GCM and SHA-256/384 suites exist only from TLS 1.2 (RFC 5246, 5288, 5289): such a description is impossible.
    @Test(arguments: [("TLSv1.0", "TLS_RSA_WITH_AES_256_GCM_SHA384", false), ("TLSv1.1", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", false),
                      ("TLSv1.0", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", false), ("TLSv1.1", "TLS_RSA_WITH_AES_256_CBC_SHA256", false),
                      ("TLSv1.0", "TLS_RSA_WITH_AES_256_CBC_SHA", true), ("TLSv1.1", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", true),
                      ("TLSv1.2", "TLS_RSA_WITH_AES_256_GCM_SHA384", true)])
    func suitesNewerThanTheVersionAreImpossible(_ version: String, _ suite: String, _ possible: Bool) throws {
        let tls = try #require(TLSVersion(rawValue: version))
        let old = ATSFixture.domain("old.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.0</string>"
                                       + "<key>NSExceptionRequiresForwardSecrecy</key><false/>")
        for (body, url) in [(old, "https://old.com/"), (Self.arbitrary, "https://a.com/")] {
            let e = try ATSFixture.resolver(body).requirements(for: url).evaluate(ConnectionDescription(scheme: "https", tlsVersion: tls, cipherSuite: suite))
            #expect(e.isAllowed == possible, "\(url): \(e.reasons.map(\.message))")
            if !possible {
                #expect(e.blockingReasons.map(\.check) == ["cipher-suite"])
                #expect(e.blockingReasons.first?.message.contains("needs TLS 1.2 or later") == true)
            }
        }
    }

    @Test func arbitraryLoadsLeaveSuitesUnrestricted() throws {
        let req = try ATSFixture.resolver(Self.arbitrary).requirements(for: "https://a.com")
        #expect(!req.cipherSuitesRestricted)
        #expect(!req.certificate.value.requiresATSKeyStrength)
        #expect(req.evaluate(ConnectionDescription(scheme: "https", tlsVersion: .tls10, cipherSuite: "TLS_RSA_WITH_AES_128_CBC_SHA")).isAllowed)
    }

    // MARK: Pins

    @Test func pinsComeFromTheMatchingPinnedDomain() throws {
        let body = """
            <key>NSPinnedDomains</key><dict><key>bank.example.com</key><dict>
            <key>NSIncludesSubdomains</key><true/>
            <key>NSPinnedCAIdentities</key><array>
              <dict><key>SPKI-SHA256-BASE64</key><string>\(ATSFixture.validPinA)</string></dict>
              <dict><key>SPKI-SHA256-BASE64</key><string>\(ATSFixture.validPinB)</string></dict>
            </array></dict></dict>
            """
        let resolver = try ATSFixture.resolver(body)
        let pins = try #require(try resolver.requirements(for: "https://login.bank.example.com").pins.value)
        #expect(pins.domain == "bank.example.com")
        #expect(pins.caIdentities?.map(\.base64) == [ATSFixture.validPinA, ATSFixture.validPinB])
        #expect(pins.leafIdentities == nil)
        // Checked as every pin format is: a CA-scoped set, for the entry's pattern with its subdomains.
        let host = pins.pinnedHost
        #expect(host.pattern == HostPattern(canonicalName: "bank.example.com", kind: .subdomains))
        #expect(host.pinSet.caPins == [ATSFixture.validPinA, ATSFixture.validPinB].map { Pin.spkiSHA256(Array(Data(base64Encoded: $0) ?? Data())) })
        #expect(host.pinSet.leafPins.isEmpty && host.pinSet.pins.isEmpty && host.pinSet.enforcePinning && host.pinSet.expirationDate == nil)
        #expect(try resolver.requirements(for: "https://example.com").pins.value == nil)
    }

    /// NSPinnedDomains exists from iOS 14 / macOS 11; earlier systems connect without the pins.
    @Test(arguments: [("ios9", false), ("ios12", false), ("ios13", false), ("ios14", true), ("ios16", true), ("ios17", true),
                      ("macos10.15", false), ("macos11", true), ("macos13", true), ("macos14", true)])
    func pinnedDomainsApplyFromIOS14(_ platform: String, _ pinned: Bool) throws {
        let profile = try #require(PlatformProfile(name: platform))
        let body = ATSFixture.pinned("example.com", ATSFixture.pins("NSPinnedCAIdentities", [ATSFixture.validPinA, ATSFixture.validPinB]))
        let req = try ATSFixture.resolver(body, profile).requirements(for: "https://example.com/")
        #expect((req.pins.value != nil) == pinned, "\(req.pins.because)")
        if !pinned {
            #expect(req.pins.because.rule.contains("NSPinnedDomains is ignored on"), "\(req.pins.because)")
            #expect(req.pins.because.keyPath == PlistKeyPath(["NSPinnedDomains", "example.com"]))
        }
    }

    @Test func bothPinListsBecomeScopesThatMustEachMatch() {
        let pins = PinRequirement(domain: "a", includesSubdomains: false,
                                  caIdentities: [PinnedIdentity(scope: .certificateAuthority, base64: ATSFixture.validPinA)],
                                  leafIdentities: [PinnedIdentity(scope: .leaf, base64: ATSFixture.validPinB)])
        let set = pins.pinnedHost.pinSet
        #expect(set.groups.map(\.scope) == [.ca, .leaf])
        #expect(set.leafPins == [Pin.spkiSHA256(Array(Data(base64Encoded: ATSFixture.validPinB) ?? Data()))])
        // An array that is present but holds nothing usable still must match: its scope gets a pin that matches nothing.
        let empty = PinRequirement(domain: "a", includesSubdomains: false, caIdentities: [], leafIdentities: nil).pinnedHost.pinSet
        #expect(empty.caPins == [.spkiSHA256([])])
        let neither = PinRequirement(domain: "a", includesSubdomains: false, caIdentities: nil, leafIdentities: nil).pinnedHost.pinSet
        #expect(neither.allPins.isEmpty)
    }

    // MARK: Inputs

    @Test(arguments: ["ftp://example.com", "example.com", "https://"])
    func invalidURLs(_ url: String) throws {
        #expect(throws: RequirementsError.self) { try ATSFixture.resolver("").requirements(for: url) }
    }

    @Test(arguments: [("http://exa mple.com/", "it has a space (U+0020) at character 11"),
                      // Foundation percent-encodes these silently; the client refuses them, so `ats check` does too.
                      ("https://a.com/\u{01}", "it has an invisible control character (U+0001)"), ("https://a.com/\t", "it has a tab (U+0009)"),
                      ("https://a.com/\u{7F}", "it has an invisible control character (U+007F)"), ("http://example.com:abc/", "the port 'abc' is not a number"),
                      ("https://[::1/", "has no closing ']'"), ("https://[::1]x/", "only a port such as :443 may follow"),
                      ("http://example.com:99999/", "the port 99999 is out of range"), ("http://[::1]:70000/", "the port 70000 is out of range"),
                      // Found by the url fuzz target: a trailing dot inside brackets made `[::.]` the address `::`.
                      ("http://[::.]:80", "looks like an IPv6 address but is not a valid one"),
                      ("http://[127.0.0.1]/", "brackets hold only an IPv6 address"), ("http://[example.com]/", "brackets hold only an IPv6 address"),
                      // Too large for an Int, Foundation reads no port at all: never the default port.
                      ("http://127.0.0.1:99999999999999999999/", "the port 99999999999999999999 is out of range"),
                      ("example.com", "it has no scheme"), ("https://", "it has no host"), ("ftp://example.com", "not 'ftp'"),
                      // A name whose last label is a number is neither a name nor an address, so no IP entry can cover it.
                      ("http://a.10.0.0.1/", "ends in a numeric label"),
                      // An address parser takes no trailing dot: not read as the address (review-ats F10).
                      ("http://1.2.3.4./", "is an IP address with a trailing dot")])
    func invalidURLsSayWhatIsWrong(_ url: String, _ reason: String) {
        do {
            let target = try ConnectionTarget(url: url)
            Issue.record("\(url) was accepted as \(target.host)")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    /// Two entries for one host, a U-label and its A-label: the one written as the host is sent applies, in either
    /// order, as the device compares the key's text with the A-label (review-ats F5).
    @Test(arguments: [true, false])
    func theEntryWrittenAsTheHostIsSentWinsOverItsULabel(uLabelFirst: Bool) throws {
        let u = "<key>münchen.de</key><dict><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict>"
        let a = "<key>xn--mnchen-3ya.de</key><dict/>"
        let r = try ATSFixture.resolver("<key>NSExceptionDomains</key><dict>\(uLabelFirst ? u + a : a + u)</dict>")
        let req = try r.requirements(for: "http://xn--mnchen-3ya.de/")
        #expect(req.exceptionDomain == "xn--mnchen-3ya.de")
        #expect(!req.allowsInsecureHTTP.value)
        // Alone, the U-label entry still covers the host.
        #expect(try ATSFixture.resolver("<key>NSExceptionDomains</key><dict>\(u)</dict>").requirements(for: "http://xn--mnchen-3ya.de/").allowsInsecureHTTP.value)
    }

    @Test func thePortMayBeAnyValidNumber() throws {
        #expect(try ConnectionTarget(url: "https://example.com:65535/").host == "example.com")
        #expect(try ConnectionTarget(url: "http://[::1]:8080/").ipAddress?.count == 16)
    }

    @Test(arguments: [("ios12", PlatformProfile.ios10), ("ios15", .ios14), ("ios17", .ios17), ("iOS 18", .ios17), ("ios9", .ios9),
                      ("macos10.11", .macos10_11), ("macos10.15", .macos10_12), ("macos13", .macos11), ("macos15", .macos14)])
    func profileNames(_ name: String, _ profile: PlatformProfile) {
        #expect(PlatformProfile(name: name) == profile)
    }

    @Test func domainPatterns() {
        #expect(ATSDomainKey("example.com").pattern == HostPattern(canonicalName: "example.com", kind: .exact))
        #expect(ATSDomainKey("Example.com").problems == [.uppercase])
        #expect(ATSDomainKey("Example.com").pattern == nil)
        #expect(ATSDomainKey("example.com:443").problems == [.port])
        #expect(ATSDomainKey("https://example.com").problems == [.scheme])
        #expect(ATSDomainKey("*.example.com").problems == [.wildcard])
        #expect(ATSDomainKey("example.com/api").problems == [.path])
        #expect(ATSDomainKey("::1").pattern?.matches(address: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]) == true)
        #expect(ATSDomainKey("::1").isIP)
        #expect(ATSDomainKey("192.168.0.0/16").isIP)
        #expect(ATSDomainKey("192.168.0.0/16").pattern?.matches(address: [192, 168, 4, 1]) == true)
        #expect(IPRange(cidr: "192.168.0.0/33") == nil)
        // Said as what they are, not as a path or stray characters; the suggested fix is one that can match.
        #expect(ATSDomainKey("192.168.0.0/33").problems == [.invalidPrefixLength])
        #expect(ATSDomainKey("fd00::/129").problems == [.invalidPrefixLength])
        #expect(ATSDomainKey("10.0.0.0/x").problems == [.invalidPrefixLength])
        #expect(ATSDomainKey("[::2]").problems == [.bracketedAddress])
        #expect(ATSDomainKey("[::2]").pattern == nil)
        #expect(Auditor.suggestedHost("[::2]") == "::2")
        #expect(ATSDomainKey(Auditor.suggestedHost("[::2]")).problems.isEmpty)
        #expect(IPRange(cidr: "fd00::/8")?.contains([0xfd] + Array(repeating: 1, count: 15)) == true)
        #expect(IPRange(cidr: "fd00::/8")?.contains([10, 0, 0, 1]) == false)
    }
}
