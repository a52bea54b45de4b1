@testable import AppTransportSecurity
import Testing
@testable import TransportDecision
import TransportTrust

/// A refusal is classified once, by the assessment, in a fixed order; the decision takes that kind as it is.
@Suite struct ConnectionAssessmentTests {
    static let tls13 = HandshakeSummary(tlsVersion: .tls13, cipherSuite: "TLS_AES_128_GCM_SHA256", cipherSuiteCode: 0x1301)

    func assessment(failures: [TrustFailureCode], failing checks: [ConnectionEvaluation.Check]) -> ConnectionAssessment {
        let verdict = TrustVerdict(anchor: nil, chain: [], failures: failures.map { TrustFailure($0, certificate: nil, "\($0)") })
        let reasons = checks.map { ConnectionEvaluation.Reason(kind: $0, passed: false, message: "\($0)", because: Provenance(rule: "test")) }
        return ConnectionAssessment(verdict: verdict, evaluation: ConnectionEvaluation(reasons: reasons), handshake: Self.tls13,
                                    presented: [], notes: [], delegateMayLoosenTrust: true)
    }

    @Test func pinsComeFirstThenTheHostListThenTheChainThenATS() {
        #expect(assessment(failures: [.expired, .hostNotAllowed, .pinMismatch], failing: [.certificate, .tlsVersion]).refusalKind == .pinMismatch)
        #expect(assessment(failures: [], failing: [.pins, .certificate]).refusalKind == .pinMismatch)
        #expect(assessment(failures: [.expired, .hostNotAllowed], failing: [.certificate]).refusalKind == .hostNotAllowed)
        #expect(assessment(failures: [.expired], failing: [.certificate, .tlsVersion]).refusalKind == .serverTrustRefused)
        #expect(assessment(failures: [], failing: [.tlsVersion]).refusalKind == .atsRefused)
        #expect(assessment(failures: [], failing: [.cipherSuite]).refusalKind == .atsRefused)
    }

    @Test func aDelegateMayWaiveOnlyAChainRefusal() throws {
        let plan = ConnectionPlan(peer: try PeerName("www.example.com"), port: 443,
                                  requirements: try RequirementsResolver(configuration: ATSConfiguration(dictionary: ["NSAllowsArbitraryLoads": .boolean(true)]))
                                      .requirements(for: "https://www.example.com/"),
                                  settings: TrustSettings())
        let chain = assessment(failures: [.expired], failing: [.certificate])
        #expect(plan.decide(chain, answer: .acceptServerTrust).isAllowed)
        for hard in [TrustFailureCode.pinMismatch, .hostNotAllowed] {
            let refused = plan.decide(assessment(failures: [.expired, hard], failing: [.certificate]), answer: .acceptServerTrust)
            #expect(refused.refusal?.kind == (hard == .pinMismatch ? .pinMismatch : .hostNotAllowed))
        }
    }
}
