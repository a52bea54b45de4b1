import Testing
import TransportClient
import TransportTrust

@testable import ATSDiagnostics

/// The fix `ats diagnose` tells a server's operator, per failure code: specific where the code says what to do.
@Suite struct ServerFixesTests {
    func advice(_ code: TrustFailureCode) throws -> [String] {
        let test = try #require(ATSTestCase.named("default"))
        var outcome = TestOutcome(test: test, result: .fail, dictionary: [:], milliseconds: 0)
        let failure = TrustFailure(code, certificate: 0, "the reason")
        outcome.failure = TestFailure(TransportError(.serverTrustRefused, phase: .handshake, host: "example.com", port: 443,
                                                     "refused", verdict: TrustVerdict.refused(failure)))
        outcome.verdict = TrustVerdict.refused(failure)
        return ServerFixes.advice(for: outcome, host: "example.com")
    }

    @Test(arguments: [
        (TrustFailureCode.revoked, "revoked"),
        (.revocationUnknown, "staple an OCSP response"),
        (.certificateTransparency, "SCTs"),
        (.validityPeriodTooLong, "398 days"),
        (.distrusted, "distrusted"),
        (.chainTooLong, "fewer intermediates"),
        (.pathBuildingLimit, "fewer intermediates"),
        (.expired, "renew"),
    ])
    func eachCodeGetsItsOwnAdvice(_ code: TrustFailureCode, _ words: String) throws {
        let fixes = try advice(code)
        #expect(fixes.count == 1)
        #expect(fixes.first?.contains(words) == true, "\(code): \(fixes)")
        #expect(fixes.first?.hasSuffix("(the reason)") == true, "the failure's own message follows the advice")
    }
}
