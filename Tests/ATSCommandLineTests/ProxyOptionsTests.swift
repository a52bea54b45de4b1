import Testing

@testable import ATSCommandLine
@testable import TransportClient

/// `ats fetch`'s proxy options and environment variables, read with curl's precedence.
@Suite struct ProxyOptionsTests {
    private func configuration(_ environment: [String: String], arguments: [String] = []) throws -> ProxyConfiguration? {
        try ProxyOptions.parse(arguments).configuration(environment: environment)
    }

    @Test func lowerCaseWinsAndAllProxyFillsIn() throws {
        let both = try configuration(["https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2", "ALL_PROXY": "http://all:3"])
        #expect(both?.https?.host == "lower")
        #expect(both?.http?.host == "all", "no http_proxy: all_proxy applies to http")
        let upper = try configuration(["HTTPS_PROXY": "http://upper:2", "all_proxy": "http://all:3", "ALL_PROXY": "http://ALL:4"])
        #expect(upper?.https?.host == "upper")
        #expect(upper?.http?.host == "all")
        #expect(try configuration([:]) == nil)
        #expect(try configuration(["https_proxy": "  "]) == nil, "an empty variable is unset")
    }

    @Test func upperCaseHTTPProxyIsIgnoredAsCurlIgnoresIt() throws {
        // CGI puts a request's Proxy header in HTTP_PROXY ("httpoxy"), so curl reads only http_proxy.
        #expect(try configuration(["HTTP_PROXY": "http://attacker:1"]) == nil)
        #expect(try configuration(["http_proxy": "http://proxy:1"])?.http?.host == "proxy")
    }

    @Test func optionsOverrideTheEnvironment() throws {
        let environment = ["https_proxy": "http://env:1", "no_proxy": "example.com", "NO_PROXY": "other.test"]
        #expect(try configuration(environment)?.noProxy.text == "example.com")
        #expect(try configuration(environment, arguments: ["--noproxy", "internal.test"])?.noProxy.text == "internal.test")
        #expect(try configuration(environment, arguments: ["--noproxy", ""])?.noProxy.text == "", "an empty --noproxy clears NO_PROXY, as in curl")
        let given = try configuration(environment, arguments: ["--proxy", "https://cli:8443"])
        #expect(given?.https?.host == "cli" && given?.http?.host == "cli")
        #expect(given?.https?.scheme == .https)
        #expect(given?.noProxy.text == "example.com", "NO_PROXY applies to --proxy too")
        #expect(try configuration(environment, arguments: ["--proxy", ""]) == nil, "an empty --proxy turns proxies off")
    }

    @Test func aBadProxyVariableIsNamedWithoutItsPassword() throws {
        do {
            _ = try configuration(["https_proxy": "socks5://user:hunter2@proxy:1080"])
            Issue.record("a socks proxy was accepted")
        } catch {
            #expect("\(error)".contains("https_proxy"))
            #expect(!"\(error)".contains("hunter2"))
        }
    }
}
