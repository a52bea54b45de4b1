import TestSupport
@testable import AppTransportSecurity
import Foundation
import Testing

@testable import TransportTrust

@Suite struct PinConfigurationFormatTests {
    let a = PinningFixtures.sha256Pin(PKI.root("A")), b = PinningFixtures.sha256Pin(PKI.root("B")), c = PinningFixtures.sha256Pin(PKI.root("C"))

    var sample: PinConfiguration {
        // In key order, as dictionary formats read them back.
        PinConfiguration([
            PinnedHost(try! HostPattern("api.example.org"), PinSet([b, c], scope: .any)),
            PinnedHost(try! HostPattern("example.com", includeSubdomains: true), PinSet([a, b], scope: .any, enforcePinning: false,
                       expirationDate: PinDates.parseDay("2030-01-31"), reportURIs: ["https://report.example.com/"])),
        ])
    }

    @Test(arguments: [PinConfigurationFormat.trustKit, .trustKitJSON, .android, .okhttp, .ats])
    func writesAndReadsBack(format: PinConfigurationFormat) throws {
        let (text, _) = format.write(sample)
        #expect(PinConfigurationFormat.detect(Array(text.utf8)) == format)
        let (back, warnings) = try PinConfigurationFormat.read(Array(text.utf8), source: "x")
        #expect(warnings.isEmpty)
        #expect(back.rules == format.rules, "a file is validated by its own system's rules")
        #expect(back.matching == format.matching)
        #expect(back.hosts.map(\.pattern) == sample.hosts.map(\.pattern))
        #expect(back.hosts.map { Set($0.pinSet.allPins) } == sample.hosts.map { Set($0.pinSet.allPins) })
        if format == .trustKit || format == .trustKitJSON {
            #expect(back == sample)
        }
        if format == .android { #expect(back.hosts[1].pinSet.expirationDate == sample.hosts[1].pinSet.expirationDate) }
    }

    /// Found by the pins-trustkit fuzz target (Fuzz/Regressions/pins-trustkit/crash-32ceb0ad…): `20310-2-03` was
    /// read as the year 20310, then written as `20310-02-03`, which no reader took back. A date is read only in the
    /// form the writers write, so such a file is refused where it is read, naming the date.
    @Test(arguments: [PinConfigurationFormat.trustKit, .trustKitJSON, .android])
    func anExpirationDateIsReadOnlyInTheFormItIsWritten(format: PinConfigurationFormat) throws {
        let (text, _) = format.write(sample)
        #expect(text.contains("2030-01-31"))
        for date in ["20310-2-03", "2030-1-031", "2030/01/31"] {
            do {
                _ = try PinConfigurationFormat.read(Array(text.replacingOccurrences(of: "2030-01-31", with: date).utf8), source: "x", format: format)
                Issue.record("the date \(date) was read")
            } catch {
                #expect(error.code == .wrongType && error.problem.contains("yyyy-MM-dd"), "\(error)")
            }
        }
    }

    /// A file saved with Windows line ends reads as the same file: Swift reads CRLF as one Character.
    @Test(arguments: [PinConfigurationFormat.trustKit, .trustKitJSON, .android, .okhttp, .ats])
    func crlfLineEndsReadTheSame(format: PinConfigurationFormat) throws {
        let (text, _) = format.write(sample)
        let crlf = text.replacingOccurrences(of: "\n", with: "\r\n")
        let back = try PinConfigurationFormat.read(Array(crlf.utf8), source: "x").configuration
        let lf = try PinConfigurationFormat.read(Array(text.utf8), source: "x").configuration
        #expect(back == lf)
    }

    @Test func aCRLFFileNamesTheLineOfAFault() throws {
        let ok = try #require(a.base64)
        #expect {
            _ = try PinConfigurationFormat.read(Array("# pins\r\nexample.com sha256/\(ok)\r\nexample.com sha256/short\r\n".utf8), source: "pins.txt")
        } throws: { error in (error as? PinConfigurationError)?.line == 3 }
    }

    @Test func atsKeepsCAAndLeafScopesAndWarnsAboutWhatItCannotSay() throws {
        let config = PinConfiguration([PinnedHost(try HostPattern("*.example.com"), PinSet(pins: [a], caPins: [b], leafPins: [c], enforcePinning: false))])
        let (text, warnings) = PinConfigurationFormat.ats.write(config)
        #expect(Set(warnings.map(\.code)) == [.lossyConversion])
        #expect(warnings.count == 3)  // one-label wildcard, report-only, any-scope pins
        let back = try PinConfigurationFormat.read(Array(text.utf8), source: "Info.plist").configuration
        #expect(Set(back.hosts[0].pinSet.caPins) == [a, b])
        #expect(back.hosts[0].pinSet.leafPins == [c])
        #expect(back.hosts[0].pattern.kind == .subdomains)
    }

    @Test func readsAnInfoPlistsNSPinnedDomains() throws {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example</string>
            <key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict>
              <key>example.com</key><dict>
                <key>NSIncludesSubdomains</key><true/>
                <key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(a.base64!)</string></dict></array>
                <key>NSPinnedLeafIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(b.base64!)</string></dict></array>
              </dict>
            </dict></dict></dict></plist>
            """
        let config = try PinConfigurationFormat.read(Array(plist.utf8), source: "Info.plist").configuration
        #expect(config.hosts.count == 1)
        #expect(config.entry(for: "deep.www.example.com")?.pinSet == PinSet(caPins: [a], leafPins: [b]))
    }

    @Test func malformedInputNamesTheFileTheLineAndTheFix() throws {
        let ok = try #require(a.base64)
        // OkHttp: a bad pin on line 3.
        do {
            _ = try PinConfigurationFormat.read(Array("# pins\nexample.com sha256/\(ok)\nexample.com sha256/short\n".utf8), source: "pins.txt")
            Issue.record("a short pin was accepted")
        } catch {
            #expect(error.source == "pins.txt")
            #expect(error.line == 3)
            #expect(error.description.hasPrefix("pins.txt:3: "))
            #expect(!error.fix.isEmpty)
        }
        // Android: a non-SHA-256 digest.
        let xml = "<?xml version=\"1.0\"?>\n<network-security-config>\n<domain-config>\n<domain>example.com</domain>\n<pin-set>\n<pin digest=\"SHA-1\">\(ok)</pin>\n</pin-set>\n</domain-config>\n</network-security-config>\n"
        do { _ = try PinConfigurationFormat.read(Array(xml.utf8), source: "nsc.xml"); Issue.record("SHA-1 digest accepted") } catch {
            #expect(error.code == .malformedPin)
            #expect(error.line == 6)
        }
        // TrustKit: a string where a Boolean belongs.
        let json = "{\"TSKPinnedDomains\": {\"example.com\": {\n\"TSKIncludeSubdomains\": \"yes\",\n\"TSKPublicKeyHashes\": [\"\(ok)\"]}}}"
        do { _ = try PinConfigurationFormat.read(Array(json.utf8), source: "tk.json"); Issue.record("string Boolean accepted") } catch {
            #expect(error.code == .wrongType)
            #expect(error.line == 2)
        }
        // Not a document at all.
        #expect(throws: PinConfigurationError.self) { try PinConfigurationFormat.read(Array("{ nope".utf8), source: "x.json") }
        #expect(throws: PinConfigurationError.self) { try PinConfigurationFormat.read(Array("# nothing\n".utf8), source: "empty.txt") }
    }

    /// The format is told by the document's structure: an Android file whose licence comment runs past the first
    /// kilobytes is still Android, and an OkHttp file whose comment names <network-security-config> is still OkHttp.
    @Test func detectionReadsTheStructureNotWordsInComments() throws {
        let header = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!--\n"
            + String(repeating: "  Licensed under the Apache License, Version 2.0; see the LICENSE file for the terms.\n", count: 80)
            + "-->\n<?processing instruction?>\n<!DOCTYPE network-security-config [ <!ENTITY x \"y\"> ]>\n"
        let android = header + "<network-security-config>\n<domain-config><domain>example.com</domain>"
            + "<pin-set><pin digest=\"SHA-256\">\(a.base64!)</pin><pin digest=\"SHA-256\">\(b.base64!)</pin></pin-set></domain-config>\n"
            + "</network-security-config>\n"
        #expect(header.utf8.count > 6000)
        #expect(PinConfigurationFormat.detect(Array(android.utf8)) == .android)
        #expect(try PinConfigurationFormat.read(Array(android.utf8), source: "nsc.xml").configuration.hosts.map(\.pattern.name) == ["example.com"])

        let okhttp = "# exported from our <network-security-config> and <plist>\n// {\"TSKPinnedDomains\"}\napi.example.com \(a) \(b)\n"
        #expect(PinConfigurationFormat.detect(Array(okhttp.utf8)) == .okhttp)
        #expect(try PinConfigurationFormat.read(Array(okhttp.utf8), source: "pins.txt").configuration.hosts.first?.pinSet.pins == [a, b])

        #expect(PinConfigurationFormat.detect(Array("\u{FEFF}\n  {\"TSKPinnedDomains\": {}}".utf8)) == .trustKitJSON)
        #expect(PinConfigurationFormat.detect(Array("<!-- <network-security-config> -->\n<plist><dict/></plist>".utf8)) == .ats)
    }

    /// JSON of the wrong shape is refused as JSON, not read as an OkHttp line whose first word is '[]'.
    @Test(arguments: ["[]", " [ {\"TSKPinnedDomains\": {}} ]\n", "null", "true\n"])
    func jsonThatIsNotAnObjectIsRefusedAsJSON(text: String) {
        #expect(PinConfigurationFormat.detect(Array(text.utf8)) == .trustKitJSON)
        #expect {
            try PinConfigurationFormat.read(Array(text.utf8), source: "pins.json")
        } throws: { error in
            let said = "\(error)"
            return !said.contains("has no pin after it") && said.contains("pins.json")
        }
    }

    /// TrustKit's kTSKExcludeSubdomainFromParentPolicy: the domain is not pinned and needs no hashes. TrustKit's
    /// constant is the string "kSKExcludeSubdomainFromParentPolicy"; the spelling its name suggests is read too,
    /// with a warning that TrustKit itself would not.
    @Test(arguments: ["kSKExcludeSubdomainFromParentPolicy", "TSKExcludeSubdomainFromParentPolicy"])
    func trustKitExcludedSubdomainsAreExemptFromTheParentsPins(key: String) throws {
        let json = """
            {"TSKPinnedDomains": {
              "example.com": {"TSKIncludeSubdomains": true, "TSKPublicKeyHashes": ["\(a.base64!)", "\(b.base64!)"]},
              "api.example.com": {"\(key)": true}
            }}
            """
        let (config, warnings) = try PinConfigurationFormat.read(Array(json.utf8), source: "tk.json")
        #expect(try config.validate(now: PKI.now).isEmpty)
        #expect(config.entry(for: "api.example.com")?.isExempt == true)
        #expect(config.entry(for: "www.example.com")?.pinSet.pins == [a, b])
        #expect(config.entry(for: "deep.api.example.com")?.isExempt == false, "TrustKit exempts the exact name")
        #expect(warnings.map(\.code) == (key.hasPrefix("TSK") ? [.differsFromSource] : []))
        // Written back with the key TrustKit reads, and nothing else in the entry.
        for format in [PinConfigurationFormat.trustKit, .trustKitJSON] {
            let (text, lossy) = format.write(config)
            #expect(lossy.isEmpty)
            let back = try PinConfigurationFormat.read(Array(text.utf8), source: "out")
            #expect(back.warnings.isEmpty)
            #expect(back.configuration.entry(for: "api.example.com") == .exempt(try HostPattern("api.example.com")))
        }
        // Formats that cannot exempt a host say so.
        for format in [PinConfigurationFormat.ats, .okhttp] {
            #expect(format.write(config).warnings.contains { $0.message.contains("cannot exempt") })
        }
        // TrustKit refuses an excluded domain with other keys.
        let extra = "{\"TSKPinnedDomains\": {\"api.example.com\": {\"\(key)\": true, \"TSKEnforcePinning\": true}}}"
        #expect(throws: PinConfigurationError.self) { try PinConfigurationFormat.read(Array(extra.utf8), source: "tk.json") }
    }

    /// OkHttp's CertificatePinner applies the pins of every pattern that matches a host, and any one passes; the
    /// other formats apply the most specific entry alone. Converting between the two says what changes.
    @Test func okHttpAppliesEveryMatchingPattern() throws {
        let text = "**.example.com \(a) \(c)\napi.example.com \(b) \(c)\n"
        let config = try PinConfigurationFormat.read(Array(text.utf8), source: "pins.txt").configuration
        #expect(config.matching == .everyMatch)
        let api = try #require(config.entry(for: "api.example.com"))
        #expect(api.pattern.description == "api.example.com", "the most specific pattern is noted")
        #expect(api.pinSet.pins == [b, c, a])
        #expect(config.entry(for: "www.example.com")?.pinSet.pins == [a, c])
        var specific = config
        specific.matching = .mostSpecific
        #expect(specific.entry(for: "api.example.com")?.pinSet.pins == [b, c])

        let toTrustKit = PinConfigurationFormat.trustKitJSON.write(config).warnings
        #expect(toTrustKit.contains { $0.code == .lossyConversion && $0.message.contains("no longer accept the pins of **.example.com") })
        let toOkHttp = PinConfigurationFormat.okhttp.write(specific).warnings
        #expect(toOkHttp.contains { $0.message.contains("will also accept the pins of **.example.com") })
        #expect(PinConfigurationFormat.okhttp.write(config).warnings.isEmpty)
        // Patterns no host matches both of change nothing.
        let apart = try PinConfigurationFormat.read(Array("*.a.example.com \(a)\n*.example.com \(b)\n".utf8), source: "p").configuration
        #expect(!PinConfigurationFormat.trustKitJSON.write(apart).warnings.contains { $0.message.contains("OkHttp") })
        #expect(apart.overlappingPatterns() == nil)
    }

    @Test func okHttpCommentsDoNotCutPinsWithSlashes() throws {
        let pin = Pin.spkiSHA256(Array(repeating: 0xFF, count: 32))  // base64 "//////…"
        let text = "// header\nexample.com \(pin) // trailing\n"
        #expect(try PinConfigurationFormat.read(Array(text.utf8), source: "p", format: .okhttp).configuration.hosts.first?.pinSet.pins == [pin])
    }

    /// As OkHttp reads a pin: the prefix in lower case only, the hash with or without padding, in either base64
    /// alphabet (review-pins F9).
    /// TrustKit and Android have no wildcards: `*.example.com` is compared with host names as written, so it pins no
    /// host, where OkHttp reads it as one label below example.com. Read so, with a warning (review-pins F6).
    @Test func trustKitAndAndroidReadAStarLiterally() throws {
        let trustKit = "{\"TSKPinnedDomains\": {\"*.example.com\": {\"TSKPublicKeyHashes\": [\"\(a.base64!)\", \"\(b.base64!)\"]}}}"
        let android = "<network-security-config><domain-config><domain>*.example.com</domain><pin-set>"
            + "<pin digest=\"SHA-256\">\(a.base64!)</pin></pin-set></domain-config></network-security-config>"
        for (text, format, system) in [(trustKit, PinConfigurationFormat.trustKitJSON, "TrustKit"), (android, .android, "Android")] {
            let (configuration, warnings) = try PinConfigurationFormat.read(Array(text.utf8), source: "pins", format: format)
            #expect(configuration.entry(for: "api.example.com") == nil, "\(system)")
            #expect(warnings.contains { $0.message.contains("\(system) has no wildcards") }, "\(warnings)")
        }
        let okhttp = "*.example.com sha256/\(a.base64!)\n"
        #expect(try PinConfigurationFormat.read(Array(okhttp.utf8), source: "pins", format: .okhttp).configuration.entry(for: "api.example.com") != nil)
    }

    @Test func okHttpPinsAreReadAsOkHttpReadsThem() throws {
        let pin = Pin.spkiSHA256(Array(repeating: 0xFB, count: 32))  // base64 "+/v7…=", URL-safe "-_v7…"
        let base64 = try #require(pin.base64)
        let unpadded = base64.replacingOccurrences(of: "=", with: "")
        let urlSafe = unpadded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        for written in [base64, unpadded, urlSafe] {
            let text = "example.com sha256/\(written)\n"
            #expect(try PinConfigurationFormat.read(Array(text.utf8), source: "p", format: .okhttp).configuration.hosts.first?.pinSet.pins == [pin], "\(written)")
        }
        do {
            _ = try PinConfigurationFormat.read(Array("example.com SHA256/\(base64)\n".utf8), source: "p", format: .okhttp)
            Issue.record("an upper-case prefix was read")
        } catch {
            #expect(error.fix.contains("lower case only"), "\(error)")
        }
    }

    @Test func okHttpLegacySHA1PinsAreReadWithAWarning() throws {
        let sha1 = Data(repeating: 3, count: 20).base64EncodedString()
        let (config, warnings) = try PinConfigurationFormat.read(Array("**.example.com sha1/\(sha1), sha256/\(a.base64!)\n".utf8), source: "p")
        #expect(warnings.map(\.code) == [.legacySHA1])
        #expect(warnings.first?.line == 1)
        #expect(config.hosts.first?.pinSet.pins.count == 2)
    }

    @Test func androidNestedConfigsInheritThePinSet() throws {
        let xml = """
            <network-security-config>
              <domain-config>
                <domain includeSubdomains="true">example.com</domain>
                <pin-set expiration="2031-02-03"><pin digest="SHA-256">\(a.base64!)</pin><pin digest="SHA-256">\(b.base64!)</pin></pin-set>
                <domain-config><domain>api.example.com</domain></domain-config>
              </domain-config>
            </network-security-config>
            """
        let config = try PinConfigurationFormat.read(Array(xml.utf8), source: "nsc.xml").configuration
        #expect(config.hosts.count == 2)
        #expect(config.entry(for: "api.example.com")?.pattern.kind == .exact)
        #expect(config.entry(for: "api.example.com")?.pinSet.pins == [a, b])
        #expect(config.entry(for: "api.example.com")?.pinSet.expirationDate == PinDates.parseDay("2031-02-03"))
    }

    /// Found by the pins-android fuzz target (Fuzz/Regressions/pins-android/): Foundation's XMLParser crashes on a
    /// processing instruction without data, so such a file never reaches it. One with data still reads.
    @Test func androidProcessingInstructionsAreRefusedBeforeTheParser() throws {
        for text in ["<?6\u{0}", "<?xml version=\"1.0\"?>\n<network-security-config><?pi?></network-security-config>", "<?pi ?><network-security-config/>"] {
            do {
                _ = try PinConfigurationFormat.read(Array(text.utf8), source: "nsc.xml", format: .android)
                Issue.record("a processing instruction was accepted")
            } catch {
                #expect(error.problem.contains("processing instruction"), "\(error)")
            }
        }
        let declared = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<?pi data?><network-security-config></network-security-config>"
        #expect(try PinConfigurationFormat.read(Array(declared.utf8), source: "nsc.xml", format: .android).configuration.hosts.isEmpty)
    }

    /// Android resolves pin sets after reading the whole file: a nested domain-config inherits its parent's pin set
    /// even when the <pin-set> comes after it.
    @Test func androidInheritanceDoesNotDependOnDocumentOrder() throws {
        let xml = """
            <network-security-config><domain-config><domain>example.com</domain>
            <domain-config><domain>api.example.com</domain></domain-config>
            <pin-set><pin digest="SHA-256">\(a.base64!)</pin><pin digest="SHA-256">\(b.base64!)</pin></pin-set>
            </domain-config></network-security-config>
            """
        let config = try PinConfigurationFormat.read(Array(xml.utf8), source: "nsc.xml").configuration
        #expect(config.entry(for: "api.example.com")?.pinSet.pins == [a, b])
        #expect(config.entry(for: "api.example.com")?.isExempt == false)
    }

    /// The most specific domain-config applies. One with no pin-set anywhere up its chain, or an empty pin-set, is not
    /// pinned (Android's checkPins returns when there are no pins), and it shadows a broader pinned domain-config.
    @Test func androidDomainConfigsWithoutPinsAreExemptAndShadowBroaderOnes() throws {
        let pins = "<pin-set><pin digest=\"SHA-256\">\(a.base64!)</pin><pin digest=\"SHA-256\">\(b.base64!)</pin></pin-set>"
        let xml = """
            <network-security-config>
            <base-config cleartextTrafficPermitted="false"/>
            <domain-config><domain includeSubdomains="true">example.com</domain>\(pins)
              <domain-config><domain>empty.example.com</domain><pin-set></pin-set></domain-config>
            </domain-config>
            <domain-config cleartextTrafficPermitted="true"><domain>api.example.com</domain></domain-config>
            </network-security-config>
            """
        let config = try PinConfigurationFormat.read(Array(xml.utf8), source: "nsc.xml").configuration
        #expect(try config.validate(now: PKI.now).isEmpty)
        #expect(config.entry(for: "api.example.com")?.isExempt == true)
        #expect(config.entry(for: "empty.example.com")?.isExempt == true)
        #expect(config.entry(for: "www.example.com")?.pinSet.pins == [a, b])
        // Written back, the exemptions survive.
        let (text, _) = PinConfigurationFormat.android.write(config)
        let back = try PinConfigurationFormat.read(Array(text.utf8), source: "out.xml").configuration
        #expect(back.entry(for: "api.example.com")?.isExempt == true && back.entry(for: "empty.example.com")?.isExempt == true)
        #expect(back.entry(for: "www.example.com")?.pinSet.pins == [a, b])
    }

    /// What Android refuses is refused, with the line: two pin-sets in one domain-config (the last one used to win
    /// silently), a pin-set outside a domain-config, the same domain twice, a domain-config without a domain.
    @Test(arguments: [
        ("<domain-config><domain>x.example.com</domain>\n<pin-set/>\n<pin-set/></domain-config>", 4, "two <pin-set>"),
        ("<base-config>\n<pin-set/></base-config>", 3, "<pin-set> in <base-config>"),
        ("<domain-config><domain>x.example.com</domain></domain-config>\n<domain-config><domain includeSubdomains=\"true\">X.example.com</domain></domain-config>", 3, "appears twice"),
        ("<domain-config>\n<pin-set/>\n</domain-config>", 2, "has no <domain>"),
    ])
    func androidRefusesWhatAndroidRefuses(body: String, line: Int, words: String) throws {
        let xml = "<network-security-config>\n" + body + "</network-security-config>\n"
        #expect {
            _ = try PinConfigurationFormat.read(Array(xml.utf8), source: "nsc.xml")
        } throws: { error in
            guard let error = error as? PinConfigurationError else { return false }
            return error.line == line && error.description.contains(words)
        }
    }

    /// A file cut off inside <pin> used to read as "exempt": Foundation's XMLParser on Linux reports success for a
    /// document that stops inside an element, and the half-read pin-set had no pins. Cut anywhere before the root's
    /// end, the file is refused with the element left open; broken XML is described in words, not as an error number.
    /// An external entity is never loaded, and a reference to one dropped the next <pin>'s text, so the error blamed
    /// a valid pin. The declaration is refused, on its line.
    @Test(arguments: ["<!ENTITY x SYSTEM \"file:///etc/hostname\">", "<!ENTITY x PUBLIC \"-//A//B\" \"http://example.com/x\">",
                      "<!NOTATION n SYSTEM \"n\">\n<!ENTITY x SYSTEM \"x.bin\" NDATA n>", "<!ENTITY % p SYSTEM \"p.dtd\">"])
    func androidExternalEntitiesAreRefusedWhereTheyAreDeclared(declaration: String) throws {
        let text = "<?xml version=\"1.0\"?>\n<!DOCTYPE network-security-config [\n\(declaration)\n]>\n<network-security-config>\n"
            + "<domain-config><domain>&x;example.com</domain>\n<pin-set><pin digest=\"SHA-256\">\(a.base64!)</pin></pin-set></domain-config>\n"
            + "</network-security-config>\n"
        do {
            _ = try PinConfigurationFormat.read(Array(text.utf8), source: "nsc.xml", format: .android)
            Issue.record("an external entity was accepted")
        } catch {
            #expect(error.code == .malformedDocument)
            #expect(error.problem.contains("as an external entity, which is never loaded"), "\(error)")
            #expect(error.line == 3 || error.line == 4, "\(error)")
            #expect(!error.fix.isEmpty)
        }
    }

    /// Foundation's parser on Linux drops a declared entity's text: `&www;example.com` read as example.com, pinning
    /// another host than the file names. A declared entity in use is refused; declared and unused, the file reads.
    @Test func androidDeclaredEntitiesAreRefusedWhereTheyAreUsed() throws {
        let head = "<?xml version=\"1.0\"?>\n<!DOCTYPE network-security-config [ <!ENTITY www \"www.\"> ]>\n<network-security-config>\n"
        let tail = "<pin-set><pin digest=\"SHA-256\">\(a.base64!)</pin></pin-set></domain-config>\n</network-security-config>\n"
        let used = head + "<domain-config><domain>&www;example.com</domain>\n" + tail
        do {
            _ = try PinConfigurationFormat.read(Array(used.utf8), source: "nsc.xml", format: .android)
            Issue.record("a declared entity in use was accepted")
        } catch {
            #expect(error.code == .malformedDocument)
            #expect(error.problem.contains("the entity &www; is declared in the DOCTYPE"), "\(error)")
            #expect(error.line == 4, "\(error)")
        }
        let unused = head + "<domain-config><domain>www.example.com</domain>\n" + tail
        #expect(try PinConfigurationFormat.read(Array(unused.utf8), source: "nsc.xml").configuration.hosts.map(\.pattern.name) == ["www.example.com"])
        // The predefined entities and character references read as written.
        let predefined = "<network-security-config><domain-config><domain>www.&#101;xample.&#x63;om</domain>" + tail
        #expect(try PinConfigurationFormat.read(Array(predefined.utf8), source: "nsc.xml", format: .android).configuration.hosts.map(\.pattern.name) == ["www.example.com"])
    }

    /// TrustKit and Android read a pin as the bare base64 of a SHA-256 and refuse anything else at start-up; the
    /// general parser would strip an OkHttp or HPKP prefix, or read a SHA-1 pin (review-pins F5).
    @Test(arguments: ["sha256/", "pin-sha256=", "sha1/", "SHA-1", "space"])
    func trustKitAndAndroidReadOnlyBareSHA256Pins(form: String) throws {
        let sha1 = Data(repeating: 7, count: 20).base64EncodedString()
        let pin = switch form {
        case "pin-sha256=": "pin-sha256=\"\(a.base64!)\""
        case "sha1/": "sha1/\(sha1)"
        case "SHA-1": sha1
        case "space": " \(a.base64!)"
        default: form + a.base64!
        }
        let trustKit = "{\"TSKPinnedDomains\": {\"example.com\": {\"TSKPublicKeyHashes\": [\(String(reflecting: pin)), \"\(b.base64!)\"]}}}"
        let android = "<network-security-config><domain-config><domain>example.com</domain><pin-set>"
            + "<pin digest=\"SHA-256\">\(pin)</pin><pin digest=\"SHA-256\">\(b.base64!)</pin></pin-set></domain-config></network-security-config>"
        for (text, format, system) in [(trustKit, PinConfigurationFormat.trustKitJSON, "TrustKit"), (android, .android, "Android")] {
            if format == .android && pin.hasPrefix(" ") { continue }  // the element's text is read trimmed, as Android's Base64 skips spaces
            do {
                _ = try PinConfigurationFormat.read(Array(text.utf8), source: "pins", format: format)
                Issue.record("\(system) read the pin \(pin)")
            } catch {
                #expect(error.problem.contains(system), "\(system): \(error)")
                #expect(!error.fix.contains("sha1/"), "\(error.fix)")
            }
        }
        let bare = "{\"TSKPinnedDomains\": {\"example.com\": {\"TSKPublicKeyHashes\": [\"\(a.base64!)\", \"\(b.base64!)\"]}}}"
        #expect(try PinConfigurationFormat.read(Array(bare.utf8), source: "pins", format: .trustKitJSON).configuration.hosts.first?.pinSet.allPins.count == 2)
    }

    @Test func androidFileCutShortOrBrokenIsRefusedWithWhereItBroke() throws {
        let whole = "<?xml version=\"1.0\"?>\n<network-security-config><domain-config><domain>localhost</domain><pin-set>\n<pin digest=\"SHA-256\">\(a.base64!)</pin></pin-set></domain-config></network-security-config>\n"
        #expect(try PinConfigurationFormat.read(Array(whole.utf8), source: "nsc.xml").configuration.entry(for: "localhost")?.isExempt == false)
        for (cut, more) in [("<pin digest=\"SHA-256\">", "xx"), ("</pin>", ""), ("</domain-config>", "")] {
            let end = try #require(whole.range(of: cut)).upperBound
            let text = String(whole[..<end]) + more
            #expect {
                _ = try PinConfigurationFormat.read(Array(text.utf8), source: "nsc.xml", format: .android)
            } throws: { error in
                guard let error = error as? PinConfigurationError else { return false }
                return error.code == .malformedDocument && error.line != nil && error.description.hasPrefix("nsc.xml:")
                    && error.description.contains("cut short") && !error.fix.isEmpty
            }
        }
        let noBracket = String(whole.dropLast(2))
        do {
            _ = try PinConfigurationFormat.read(Array(noBracket.utf8), source: "nsc.xml", format: .android)
            Issue.record("a root end tag without '>' was accepted")
        } catch {
            #expect(error.description.contains("'>'") && !error.description.contains("NSXMLParserErrorDomain"), "\(error)")
            #expect(error.line == 3)
        }
    }

    /// A cut-off TrustKit file used to be explained with Foundation's "The data is not in the correct format.";
    /// the error now says the file is cut short and which bracket or element was left open.
    @Test(arguments: [PinConfigurationFormat.trustKitJSON, .trustKit])
    func aCutOffTrustKitFileSaysWhatWasLeftOpen(format: PinConfigurationFormat) throws {
        let (text, _) = format.write(sample)
        _ = try PinConfigurationFormat.read(Array(text.utf8), source: "tk", format: format)
        let cut = Array(text.utf8.prefix(text.utf8.count * 2 / 3))
        do {
            _ = try PinConfigurationFormat.read(cut, source: "tk", format: format)
            Issue.record("a file cut at two thirds was read")
        } catch {
            #expect(error.code == .malformedDocument)
            #expect(error.line != nil && error.description.contains("cut short"), "\(error)")
            #expect(!error.description.contains("correct format"), "\(error)")
        }
    }

    /// TrustKit raises "initialized with an invalid domain" when GetRegistryLength is 0, with or without
    /// includeSubdomains, so a TrustKit file pinning such a domain is refused where it is read.
    @Test func aTrustKitDomainWithNoRegistrableDomainIsReadWithAWarningThatTrustKitRefusesIt() throws {
        func json(_ domain: String) -> [UInt8] {
            Array("{\"TSKPinnedDomains\": {\"\(domain)\": {\"TSKPublicKeyHashes\": [\"\(a.base64!)\", \"\(b.base64!)\"]}}}".utf8)
        }
        // TrustKit raises at start-up for these; the pins still serve a local server or a CI check here.
        for name in ["localhost", "intranet", "api.internal", "co.uk", "example.test"] {
            let (configuration, warnings) = try PinConfigurationFormat.read(json(name), source: "tk.json", format: .trustKitJSON)
            #expect(configuration.hosts.count == 1, "\(name)")
            let warning = try #require(warnings.first { $0.code == .differsFromSource }, "\(name)")
            #expect(warning.message.contains("TrustKit itself refuses it at start-up"), "\(warning)")
            #expect(warning.message.contains(name))
        }
        for name in ["example.com", "api.example.co.uk", "user.github.io"] {
            let (configuration, warnings) = try PinConfigurationFormat.read(json(name), source: "tk.json", format: .trustKitJSON)
            #expect(configuration.hosts.count == 1, "\(name)")
            #expect(warnings.isEmpty, "\(name): \(warnings)")
        }
    }

    /// overridePins="true" lets Android skip pins for chains ending at those anchors; here the anchors are unknown,
    /// so pins are always checked, and a warning says so. Elements Android skips are skipped with all they hold.
    @Test func androidOverridePinsIsAWarningAndUnknownElementsAreSkipped() throws {
        let xml = """
            <network-security-config>
            <domain-config><domain>example.com</domain>
            <trust-anchors><certificates src="user" overridePins="true"/><certificates src="system"/></trust-anchors>
            <pin-set><pin digest="SHA-256">\(a.base64!)</pin></pin-set>
            <vendor-extension><pin-set><pin digest="SHA-256">\(b.base64!)</pin></pin-set><domain>other.example.com</domain></vendor-extension>
            </domain-config>
            <debug-overrides><trust-anchors><certificates src="user"/></trust-anchors></debug-overrides>
            </network-security-config>
            """
        let (config, warnings) = try PinConfigurationFormat.read(Array(xml.utf8), source: "nsc.xml")
        #expect(warnings.map(\.code) == [.differsFromSource])
        #expect(warnings.first?.line == 3)
        #expect(warnings.first?.message.contains("overridePins") == true)
        #expect(config.hosts.map(\.pattern.name) == ["example.com"])
        #expect(config.entry(for: "example.com")?.pinSet.pins == [a])
    }

    /// Foundation's XMLParser on Linux traps on an element name or processing instruction that is not UTF-8, which
    /// would kill the process; the file is refused first, with the line of the bad byte.
    @Test(arguments: [Array("<domain-config".utf8) + [0xEB], Array("<?xml-".utf8) + [0xC3, 0x28] + Array("?>".utf8)])
    func androidXMLThatIsNotUTF8IsRefusedBeforeTheParser(bad: [UInt8]) throws {
        let head = Array("<?xml version=\"1.0\"?>\n<network-security-config>\n".utf8)
        let tail = Array(">\n<domain>example.com</domain>\n</domain-config>\n</network-security-config>\n".utf8)
        #expect {
            _ = try PinConfigurationFormat.read(head + bad + tail, source: "nsc.xml", format: .android)
        } throws: { error in
            guard let error = error as? PinConfigurationError else { return false }
            return error.code == .malformedDocument && error.line == 3 && error.description.contains("is not valid UTF-8")
        }
    }

    /// Pin files come from elsewhere: what an error echoes of them is escaped and bounded, and a binary file is called
    /// one instead of having its bytes read as a host pattern (review-api F1).
    @Test func errorsNeverEchoControlCharactersFromTheFile() {
        let escape = "\u{1B}]0;pwned\u{07}\u{1B}[31mhost\n"
        let json = #"{"TSKPinnedDomains":{"a\u001b[31m.com":{"TSKPublicKeyHashes":["x"]}}}"#
        for (text, format) in [(escape, PinConfigurationFormat.okhttp), (json, .trustKitJSON), ("host.example \u{1B}[2J\n", .okhttp)] {
            do {
                _ = try PinConfigurationFormat.read(Array(text.utf8), source: "pins", format: format)
                Issue.record("read: \(text)")
            } catch {
                #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(error.description.debugDescription)")
                #expect(error.description.contains("\\u{1B}"), "\(error.description)")
            }
        }
        let long = String(repeating: "x", count: 5000) + "\n"
        let longLine = #expect(throws: PinConfigurationError.self) {
            _ = try PinConfigurationFormat.read(Array(long.utf8), source: "pins", format: .okhttp)
        }
        #expect((longLine?.description.count ?? .max) < 400, "\(longLine?.description.count ?? 0) characters")
        var binary = Array("host ".utf8) + [0x00, 0xFF, 0x1A]
        binary += Array(repeating: 0x41, count: 10)
        do {
            _ = try PinConfigurationFormat.read(binary, source: "garbage", format: .okhttp)
            Issue.record("a binary file was read")
        } catch {
            #expect(error.problem == "it is not a text file: byte 5 is NUL", "\(error)")
        }
    }

    /// An XML file whose root is neither <plist> nor Android's (a misspelt root) is named by its root, not called a
    /// broken property list with Foundation's text and plutil advice (review-api F3).
    @Test func anXMLFileOfAnotherKindIsNamedByItsRoot() {
        let typo = "<?xml version=\"1.0\"?>\n<!-- pins -->\n<network-security-confg><domain-config/></network-security-confg>\n"
        do {
            _ = try PinConfigurationFormat.read(Array(typo.utf8), source: "nsc.xml")
            Issue.record("read")
        } catch {
            #expect(error.problem == "its root element is <network-security-confg>, which no pin file has", "\(error)")
            #expect(error.fix.contains("<network-security-config> (Android)"), "\(error.fix)")
        }
        #expect(ATSPinFile.rootElement(of: Array("\u{FEFF}<?xml version=\"1.0\"?><!DOCTYPE plist PUBLIC \"x\" \"y\"><plist version=\"1.0\">".utf8)) == "plist")
        #expect(ATSPinFile.rootElement(of: Array("bplist00".utf8)) == nil)
        #expect(ATSPinFile.rootElement(of: Array("<!-- never closed".utf8)) == nil)
    }

    @Test func firstInvalidUTF8FindsTheByte() {
        #expect(AndroidPinFormat.firstInvalidUTF8(Array("ok é ✓ 𝄞".utf8)) == nil)
        #expect(AndroidPinFormat.firstInvalidUTF8(Array("ab".utf8) + [0xFF]) == 2)
        #expect(AndroidPinFormat.firstInvalidUTF8(Array("é".utf8) + [0xE2, 0x82]) == 2, "a truncated sequence")
        #expect(AndroidPinFormat.firstInvalidUTF8([0xED, 0xA0, 0x80]) == 0, "an encoded surrogate")
    }

    /// `{"k": set{"x"}}` as a binary plist: Foundation's reader on Linux dies on it (SIGSEGV), so a pin file must not reach it.
    @Test(arguments: [PinConfigurationFormat?.none, .ats, .trustKit])
    func aBinaryPlistWithASetIsRefusedBeforeFoundationReadsIt(format: PinConfigurationFormat?) {
        let ascii = { (s: String) -> [UInt8] in [0x50 | UInt8(s.utf8.count)] + Array(s.utf8) }
        let objects: [[UInt8]] = [[0xD1, 1, 2], ascii("k"), [0xC1, 3], ascii("x")]
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects { offsets.append(bytes.count); bytes += object }
        let table = bytes.count
        for o in offsets { bytes += [UInt8(o >> 8), UInt8(o & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1]
        for v in [UInt64(objects.count), 0, UInt64(table)] { bytes += (0..<8).reversed().map { UInt8((v >> (8 * UInt64($0))) & 0xFF) } }
        #expect {
            _ = try PinConfigurationFormat.read(bytes, source: "pins.plist", format: format)
        } throws: { error in
            "\(error)".contains("pins.plist") && "\(error)".contains("is a set")
        }
    }
}

/// The one-pass index of key lines that error and warning positions come from.
@Suite struct KeyLinesTests {
    @Test func namesTheLineOfAKeyOnOneLineOnly() {
        let json = "{\n  \"TSKPinnedDomains\": {\n    \"a.example.com\": {\"TSKIncludeSubdomains\": true},\n    \"b.example.com\": {\"TSKIncludeSubdomains\": \"yes\"}\n  }\n}\n"
        let lines = PlistPinFormats.KeyLines(Array(json.utf8))
        #expect(lines.line(of: "TSKPinnedDomains") == 2)
        #expect(lines.line(of: "a.example.com") == 3)
        #expect(lines.line(of: "b.example.com") == 4)
        #expect(lines.line(of: "yes") == 4)
        #expect(lines.line(of: "TSKIncludeSubdomains") == nil, "on two lines: no single place to name")
        #expect(lines.line(of: "c.example.com") == nil)
        let plist = "<dict>\n<key>TSKPinnedDomains</key><dict>\n<key>a.example.com</key><dict/><key>b.example.com</key>\n</dict></dict>\n"
        let xml = PlistPinFormats.KeyLines(Array(plist.utf8))
        #expect(xml.line(of: "TSKPinnedDomains") == 2)
        #expect(xml.line(of: "a.example.com") == 3)
        #expect(xml.line(of: "b.example.com") == 3)
        #expect(PlistPinFormats.line(of: "a.example.com", in: Array(plist.utf8)) == 3)
    }
}
