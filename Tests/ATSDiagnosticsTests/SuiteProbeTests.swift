import AppTransportSecurity
import Testing

@testable import ATSDiagnostics

@Suite struct SuiteProbeTests {
    /// As the client, the probe connects to an override as it is and never looks one up: a name there would send a
    /// query off the machine for a host the user meant to pin to an address.
    @Test func anOverrideThatIsNotAnAddressIsNeverLookedUp() async {
        let answer = await SuiteProbe.probe(host: "www.example.test", port: 1, override: "not-an-address.example.test",
                                            suites: Array(CipherSuite.atsForwardSecrecy.prefix(1)), timeout: .seconds(5))
        guard case .unknown(let why) = answer else {
            Issue.record("expected no answer, got \(answer)")
            return
        }
        #expect(why.contains("never looked up"), "\(why)")
    }
}
