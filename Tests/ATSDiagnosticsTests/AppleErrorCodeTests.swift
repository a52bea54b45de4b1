import Testing
import TransportClient
import TransportTrust

@testable import ATSDiagnostics

/// SecTrust reports one result for a chain with several failures; the most telling one decides.
@Suite struct AppleErrorCodeTests {
    @Test(arguments: [
        ([TrustFailureCode.hostnameMismatch, .expired], -1201, -9814),
        ([.untrustedRoot, .notYetValid], -1204, -9815),
        ([.weakKey, .hostnameMismatch], -1202, -9843),
        ([.revoked, .unknownIssuer], -1202, -9813),
        ([.revoked, .certificateTransparency], -1202, -9807),
        ([], -1202, -9807),
    ])
    func theMostTellingFailureDecides(_ codes: [TrustFailureCode], _ url: Int, _ ssl: Int) {
        let code = AppleErrorCode.trust(codes)
        #expect(code.urlErrorCode == url, "\(codes)")
        #expect(code.sslErrorCode == ssl, "\(codes)")
    }

    /// A cancelled task and a client shut down end as a cancelled URLSession task does: NSURLErrorCancelled.
    @Test(arguments: [TransportError.Kind.cancelled, .shutDown])
    func aCancelledRequestIsNSURLErrorCancelled(_ kind: TransportError.Kind) {
        let code = AppleErrorCode(TransportError(kind, phase: .response, host: "example.com", port: 443, "cancelled"))
        #expect(code.urlErrorCode == -999)
    }
}
