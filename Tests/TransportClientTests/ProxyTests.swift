import Testing

@testable import TransportClient

/// Proxy URLs as curl takes them, and proxy selection per URL.
@Suite struct ProxyTests {
    @Test func aProxyURLDefaultsAsCurlDoes() throws {
        let bare = try Proxy(url: "proxy.internal")
        #expect(bare.scheme == .http)
        #expect(bare.host == "proxy.internal")
        #expect(bare.port == 1080)
        #expect(try Proxy(url: "https://Proxy.Internal").port == 443)
        #expect(try Proxy(url: "https://proxy.internal").host == "proxy.internal")
        #expect(try Proxy(url: "http://127.0.0.1:3128/").port == 3128)
        #expect(try Proxy(url: "http://[::1]:3128").host == "::1")
    }

    @Test func credentialsComeFromTheURLAndAreNeverPrinted() throws {
        let proxy = try Proxy(url: "http://alice:s%40cret@proxy.internal:8080")
        #expect(proxy.user == "alice")
        #expect(proxy.password == "s@cret", "percent-encoded in the URL, as curl takes it")
        #expect(proxy.description == "http://proxy.internal:8080")
        #expect(!"\(proxy)".contains("alice"))
        #expect(!"\(proxy)".contains("cret"))
    }

    @Test func unusableProxyURLsSayWhyWithoutTheirPassword() {
        #expect(throws: ProxyError.self) { try Proxy(url: "socks5://proxy.internal:1080") }
        #expect(throws: ProxyError.self) { try Proxy(url: "http://proxy.internal:99999") }
        // Too large for an Int, Foundation reads no port: never curl's default 1080.
        #expect { try Proxy(url: "http://proxy.internal:99999999999999999999") } throws: { "\($0)".contains("port 99999999999999999999 is out of range") }
        #expect(throws: ProxyError.self) { try Proxy(url: "http://proxy.internal:8080/path") }
        #expect(throws: ProxyError.self) { try Proxy(url: "") }
        do {
            _ = try Proxy(url: "socks5://bob:hunter2@proxy.internal:1080")
            Issue.record("a socks proxy was accepted")
        } catch {
            #expect(error.description.contains("socks5"))
            #expect(!error.description.contains("hunter2"))
            #expect(!error.description.contains("bob"))
        }
    }

    @Test func eachSchemeHasItsProxyAndNoProxyWins() throws {
        let https = try Proxy(url: "http://tunnel.internal:3128")
        let http = try Proxy(url: "http://plain.internal:3128")
        let configuration = ProxyConfiguration(https: https, http: http, noProxy: NoProxyList("localhost,.corp.test"))
        #expect(configuration.proxy(scheme: "https", host: "example.com")?.host == "tunnel.internal")
        #expect(configuration.proxy(scheme: "http", host: "example.com")?.host == "plain.internal")
        #expect(configuration.proxy(scheme: "https", host: "localhost") == nil)
        #expect(configuration.proxy(scheme: "https", host: "git.corp.test") == nil)
        #expect(ProxyConfiguration(https: https).proxy(scheme: "http", host: "example.com") == nil)
    }
}
