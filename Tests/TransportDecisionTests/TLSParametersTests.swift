import AppTransportSecurity
import Testing
import TransportDecision

@Suite struct TLSParametersTests {
    static let host = "www.example.com"

    static func parameters(_ entry: String) throws -> TLSParameters {
        let ats = entry.isEmpty ? "" : "<key>NSExceptionDomains</key><dict><key>\(host)</key><dict>\(entry)</dict></dict>"
        return try TLSParameters(try ConnectionPlanTests.requirements(ats))
    }

    @Test func defaultATSOffersTLS12To13WithForwardSecretSuitesBoringSSLHas() throws {
        let p = try Self.parameters("")
        #expect(p.minimumVersion == .tls12 && p.maximumVersion == .tls13)
        #expect(!p.suites.isEmpty)
        #expect(p.suites.allSatisfy { !$0.isTLS13 && TLSParameters.implementedSuites.contains($0.code) })
        // ATS's forward-secret list has ECDHE suites only.
        #expect(p.suites.allSatisfy { $0.name.contains("ECDHE") })
    }

    @Test func anExceptionLowersTheMinimumAndWidensTheSuites() throws {
        let p = try Self.parameters("<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.0</string><key>NSExceptionRequiresForwardSecrecy</key><false/>")
        #expect(p.minimumVersion == .tls10)
        #expect(p.suites.contains { $0.code == 0x009C })
    }

    @Test func aTLS13MinimumOffersNoOlderSuite() throws {
        let p = try Self.parameters("<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.3</string>")
        #expect(p.minimumVersion == .tls13 && p.maximumVersion == .tls13)
    }

    @Test func onlySuitesTheLibraryHasCanBeOffered() throws {
        let all = try ConnectionPlanTests.requirements().cipherSuites.value
        for suite in all {
            #expect(TLSParameters.canOffer(suite) == (suite.isTLS13 || TLSParameters.implementedSuites.contains(suite.code)))
        }
    }
}
