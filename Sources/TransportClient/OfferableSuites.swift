import AppTransportSecurity
import TransportDecision

extension HTTPSClient {
    /// Whether this client can offer `suite` in a ClientHello. TLS 1.3 suites always; older suites only when
    /// BoringSSL implements them (not the ECDHE `*_CBC_SHA384` suites, DHE, or RC4), so a diagnosis can say
    /// "not testable here" instead of failing a server that only speaks one of those.
    public static func canOffer(_ suite: CipherSuite) -> Bool {
        TLSParameters.canOffer(suite)
    }

    /// The suites of `suites` this client cannot offer, in their order: where a server that takes only one of them
    /// fails here, Apple's client might still load it.
    package static func unofferable(_ suites: [CipherSuite]) -> [CipherSuite] {
        suites.filter { !canOffer($0) }
    }
}
