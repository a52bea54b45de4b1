import Testing

@testable import AppTransportSecurity

/// The scheme a URL is written with, before any parse: how the client refuses ws and wss, which ConnectionTarget
/// reads as http and https.
@Suite struct URLTextTests {
    @Test(arguments: [
        ("https://example.com/", "https"), ("WSS://example.com", "wss"), ("ws:", "ws"), ("git+ssh://host/x", "git+ssh"),
        ("mailto:someone@example.test", "mailto"),
    ])
    func aWrittenSchemeIsReadLowercased(_ url: String, _ scheme: String) {
        #expect(URLText.scheme(of: url) == scheme)
    }

    @Test(arguments: ["example.com", "//example.com/", "1http://example.com", "a b://example.com", "é://example.com", ":x", ""])
    func textWithoutASchemeHasNone(_ url: String) {
        #expect(URLText.scheme(of: url) == nil)
    }
}
