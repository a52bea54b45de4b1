import ATSDiagnostics
import ATSTestServers

// What a diagnosis of each local case must conclude. Here, beside the commands that check it (`ats demo`,
// `ats serve`), so that the test servers do not depend on the diagnostics they are used to test.
extension BadSSLCase {
    /// The recommendation a diagnosis must make.
    package var expectedRecommendation: Recommendation.Kind {
        switch self {
        case .good, .basicAuth: return .noneNeeded
        case .tls10Only, .tls11Only, .staticRSA, .redirectToHTTP: return .exception
        default: return .noExceptionHelps
        }
    }

    /// The expected default result and recommendation, in the words `ats serve` prints.
    package var expectedText: String {
        Recommendation.outcomeText(defaultResult: expectedMatrix.hasPrefix("P") ? "PASS" : "FAIL", kind: expectedRecommendation,
                                   configuration: expectedConfiguration)
    }
}
