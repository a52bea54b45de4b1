@testable import ATSDiagnostics
import Testing
import TransportTrust

struct DiagnoserTests {
    private static func verdict(_ failures: [TrustFailure]) -> TrustVerdict {
        TrustVerdict(anchor: nil, chain: [], failures: failures)
    }

    private static let limit = TrustFailure(.unsupportedAlgorithm, certificate: 0,
                                            "'CN=a' is signed with RSA-PSS, which this verifier does not support", isVerifierLimitation: true)

    /// A load refused only where this verifier cannot check is undecided; the flag decides, not the wording.
    @Test func onlyFlaggedRefusalsAreUndecided() {
        let reason = Diagnoser.undecidedAlgorithm(Self.verdict([Self.limit]))
        #expect(reason?.hasPrefix(Self.limit.message) == true)
        #expect(reason?.hasSuffix("whether an iPhone trusts it cannot be decided here") == true)

        let worded = TrustFailure(.unhandledCriticalExtension, certificate: 1, "'CN=b' has a critical extension this verifier does not process")
        #expect(Diagnoser.undecidedAlgorithm(Self.verdict([worded])) == nil)
        let unflagged = TrustFailure(.unsupportedAlgorithm, certificate: 0, "'CN=a' has an unsupported key type (DSA); this verifier")
        #expect(Diagnoser.undecidedAlgorithm(Self.verdict([unflagged])) == nil)
        let expired = TrustFailure(.expired, certificate: 0, "'CN=a' expired")
        #expect(Diagnoser.undecidedAlgorithm(Self.verdict([Self.limit, expired])) == nil)
        #expect(Diagnoser.undecidedAlgorithm(Self.verdict([])) == nil)
        #expect(Diagnoser.undecidedAlgorithm(nil) == nil)
    }
}
