import ATSDiagnostics
import AppTransportSecurity
import Foundation
import Testing

@Suite struct CatalogueAndRenderingTests {
    @Test func theTestsAreNSCurlsInItsOrder() {
        let titles = ATSTestCase.nscurl.map(\.title)
        #expect(titles == [
            "ATS Default Connection", "Allow All Loads", "TLSv1.3", "TLSv1.2", "TLSv1.1", "TLSv1.0",
            "Disabling Perfect Forward Secrecy", "Disabling Perfect Forward Secrecy and Allowing Insecure HTTP",
            "TLSv1.3 with PFS disabled", "TLSv1.2 with PFS disabled", "TLSv1.1 with PFS disabled", "TLSv1.0 with PFS disabled",
            "TLSv1.3 with PFS disabled and insecure HTTP allowed", "TLSv1.2 with PFS disabled and insecure HTTP allowed",
            "TLSv1.1 with PFS disabled and insecure HTTP allowed", "TLSv1.0 with PFS disabled and insecure HTTP allowed",
        ])
        #expect(Set(ATSTestCase.all.map(\.id)).count == ATSTestCase.all.count)
        #expect(ATSTestCase.recommendationOrder.allSatisfy { ATSTestCase.named($0) != nil })
    }

    @Test func dictionariesAreTheOnesNSCurlUses() throws {
        let pfsHTTP = try #require(ATSTestCase.named("tls1.1-pfs-http"))
        #expect(pfsHTTP.relaxation.dictionary(host: "api.example.com") == [
            "NSExceptionDomains": .dictionary(["api.example.com": .dictionary([
                "NSExceptionMinimumTLSVersion": .string("TLSv1.1"),
                "NSExceptionRequiresForwardSecrecy": .boolean(false),
                "NSExceptionAllowsInsecureHTTPLoads": .boolean(true),
            ])]),
        ])
        #expect(try #require(ATSTestCase.named("default")).relaxation.dictionary(host: "x.test").isEmpty)
        #expect(try #require(ATSTestCase.named("arbitrary-loads")).relaxation.dictionary(host: "x.test") == ["NSAllowsArbitraryLoads": .boolean(true)])
    }

    @Test func plistDescriptionMatchesNSDictionaryLayout() throws {
        let dictionary = try #require(ATSTestCase.named("pfs")).relaxation.dictionary(host: "www.example.com")
        #expect(PlistRendering.description(dictionary) == """
            {
                NSExceptionDomains =     {
                    "www.example.com" =         {
                        NSExceptionRequiresForwardSecrecy = false;
                    };
                };
            }
            """)
        #expect(PlistRendering.description([:]) == "{\n}")
    }

    @Test func theXMLSnippetParsesBackToTheSameConfiguration() throws {
        let relaxation = ATSRelaxation(minimumTLSVersion: .tls10, disablesForwardSecrecy: true)
        let dictionary = relaxation.dictionary(host: "legacy.example.com")
        let snippet = PlistRendering.xmlSnippet(dictionary)
        #expect(snippet.hasPrefix("<key>NSAppTransportSecurity</key>\n<dict>\n\t<key>NSExceptionDomains</key>"))
        let parsed = try PropertyListReader().read(Data(PlistRendering.infoPlist(embedding: snippet).utf8)).root
        guard case .dictionary(let root) = parsed, case .dictionary(let ats)? = root["NSAppTransportSecurity"] else {
            Issue.record("no NSAppTransportSecurity dictionary in \(parsed)")
            return
        }
        #expect(ats == dictionary)
        let requirements = try RequirementsResolver(configuration: ATSConfiguration(dictionary: ats)).requirements(for: "https://legacy.example.com/")
        #expect(requirements.minimumTLSVersion.value == .tls10)
        #expect(!requirements.requiresForwardSecrecy.value)
    }
}
