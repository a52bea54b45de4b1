import Testing

@testable import TransportClient

/// Which URLs a protection space belongs to, for delegates that answer only their own origin.
@Suite struct ProtectionSpaceTests {
    private func space(_ scheme: String, _ host: String, _ port: Int) -> ProtectionSpace {
        ProtectionSpace(host: host, port: port, protocol: scheme, realm: "r", authenticationMethod: .httpBasic)
    }

    @Test func originIsSchemeHostAndPortAsTheClientWritesThem() {
        #expect(space("https", "www.example.test", 443).isOnOrigin(of: "https://WWW.Example.TEST./path?q=1"))
        #expect(space("https", "www.example.test", 8443).isOnOrigin(of: "https://www.example.test:8443/"))
        #expect(space("http", "www.example.test", 80).isOnOrigin(of: "http://www.example.test/"))
        #expect(space("https", "::1", 443).isOnOrigin(of: "https://[::1]/"))
    }

    @Test func anotherHostPortOrSchemeIsAnotherOrigin() {
        let s = space("https", "www.example.test", 443)
        #expect(!s.isOnOrigin(of: "https://other.example.test/"))
        #expect(!s.isOnOrigin(of: "https://www.example.test:8443/"))
        #expect(!s.isOnOrigin(of: "http://www.example.test:443/"))
        #expect(!s.isOnOrigin(of: "https://sub.www.example.test/"))
        #expect(!s.isOnOrigin(of: "ftp://www.example.test/"))
        #expect(!s.isOnOrigin(of: "not a url"))
    }

    @Test func aProxySpaceIsNeverAnOriginAndNeverEqualsOne() {
        let proxy = ProtectionSpace(host: "www.example.test", port: 443, protocol: "https", realm: "r", authenticationMethod: .httpBasic,
                                    proxyType: "https")
        #expect(proxy.isProxy)
        #expect(!space("https", "www.example.test", 443).isProxy)
        #expect(!proxy.isOnOrigin(of: "https://www.example.test/"), "a proxy's credential is not the origin's, even on the same host and port")
        #expect(proxy != space("https", "www.example.test", 443), "stored credentials are kept apart")
        #expect(proxy.description.hasPrefix("proxy "))
    }
}
