import Testing
import TransportClient
import TransportTrust

@testable import ATSCommandLine

/// The command line adds its flags to what the library says, once, in `FlagHints`.
@Suite struct FlagHintsTests {
    @Test func aSelfSignedOrUntrustedRootNamesTheAnchorsAndPinFlags() {
        for code in [TrustFailureCode.selfSignedLeaf, .untrustedRoot] {
            #expect(FlagHints.hint(for: code)?.contains("--anchors FILE") == true, "\(code)")
        }
        #expect(FlagHints.hint(for: .expired) == nil)
    }

    @Test func aServerThatWouldNotSpeakHTTP2NamesTheFlagThatAskedForIt() {
        let error = TransportError(.http2NotNegotiated, phase: .handshake, host: "example.com", port: 443, "the server did not agree")
        #expect(FlagHints.hint(for: error, verbose: false)?.contains("drop --http2") == true)
        #expect(FlagHints.adding(FlagHints.hint(for: error, verbose: false), to: error.message)
            == "the server did not agree (drop --http2 to let the server choose HTTP/1.1)")
    }

    @Test func anUnknownTLSReasonPointsToVerboseUnlessItIsOn() {
        let error = TransportError(.tlsFailure, phase: .handshake, host: "example.com", port: 443, "the handshake failed", underlying: "SSL_ERROR")
        #expect(FlagHints.hint(for: error, verbose: false)?.contains("--verbose") == true)
        #expect(FlagHints.hint(for: error, verbose: true) == nil)
    }

    @Test func aMissingBundledLogListNamesTheFlagThatReplacesIt() {
        #expect(FlagHints.hint(for: CTLogListError.bundledListMissing("gone"))?.contains("--ct-log-list FILE") == true)
        #expect(FlagHints.hint(for: CTLogListError.invalid(source: "x", reason: "y")) == nil)
    }
}
