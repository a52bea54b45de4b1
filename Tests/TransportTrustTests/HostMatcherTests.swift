import Testing

@testable import TransportTrust

/// The one host matcher: pin files, trust managers and ATS domain dictionaries all choose their entry here.
@Suite struct HostMatcherTests {
    func matcher(_ patterns: [String]) throws -> HostMatcher<String> {
        HostMatcher(try patterns.map { (try HostPattern($0), $0) })
    }

    func best(_ matcher: HostMatcher<String>, _ host: String) throws -> String? { matcher.best(try PeerName(host))?.entry }

    @Test func theMostSpecificMatchWinsWhateverTheOrder() throws {
        let m = try matcher(["**.example.com", "*.example.com", "api.example.com", "**.api.example.com"])
        #expect(try best(m, "api.example.com") == "api.example.com")
        #expect(try best(m, "v1.api.example.com") == "**.api.example.com")
        #expect(try best(m, "www.example.com") == "*.example.com")
        #expect(try best(m, "a.b.example.com") == "**.example.com")
        #expect(try best(m, "example.com") == "**.example.com")
        #expect(try best(m, "example.org") == nil)
        #expect(try best(m, "badexample.com") == nil)
    }

    @Test func everyMatchComesMostSpecificFirst() throws {
        let m = try matcher(["**.example.com", "api.example.com", "**.api.example.com", "other.com"])
        #expect(m.matches(try PeerName("api.example.com")).map(\.entry) == ["api.example.com", "**.api.example.com", "**.example.com"])
    }

    @Test func ofEquallySpecificEntriesTheEarlierWins() throws {
        let patterns = [try HostPattern("example.com"), try HostPattern("EXAMPLE.com.")]
        let m = HostMatcher([(patterns[0], "first"), (patterns[1], "second")])
        #expect(try best(m, "example.com") == "first")
        let reversed = HostMatcher([(patterns[1], "second"), (patterns[0], "first")])
        #expect(try best(reversed, "example.com") == "second")
    }

    @Test func anAddressBeatsEveryRangeThatHoldsIt() throws {
        let wide = try #require(IPRange(cidr: "10.0.0.0/8")), narrow = try #require(IPRange(cidr: "10.1.0.0/16"))
        let v6 = try #require(IPRange(cidr: "2001:db8::/32"))
        let m = HostMatcher([(HostPattern(range: wide), "/8"), (try HostPattern("10.1.2.3"), "address"),
                             (HostPattern(range: narrow), "/16"), (HostPattern(range: v6), "v6 range"),
                             (try HostPattern("2001:db8::1"), "v6 address")])
        #expect(try best(m, "10.1.2.3") == "address")
        #expect(try best(m, "10.1.2.4") == "/16")
        #expect(try best(m, "10.2.0.1") == "/8")
        #expect(try best(m, "2001:db8::1") == "v6 address")
        #expect(try best(m, "2001:db8::2") == "v6 range")
    }

    @Test func namesNeverMatchAddressesNorAddressesNames() throws {
        let m = try matcher(["**.example.com", "192.0.2.1"])
        #expect(try best(m, "192.0.2.1") == "192.0.2.1")
        #expect(try best(try matcher(["**.example.com"]), "192.0.2.1") == nil)
        #expect(try best(m, "192.0.2.1.example.com") == "**.example.com")
    }

    @Test func theTrustManagerAndThePinFileChooseAsTheMatcherDoes() throws {
        let patterns = ["**.example.com", "*.example.com", "api.example.com"]
        let m = try matcher(patterns)
        let manager = ServerTrustManager(rules: try patterns.map { ServerTrustManager.Rule(try HostPattern($0), DefaultTrustEvaluator()) })
        let file = PinConfiguration(try patterns.map { PinnedHost(try HostPattern($0), PinSet()) })
        for host in ["api.example.com", "www.example.com", "a.b.example.com", "example.com"] {
            let expected = try best(m, host).map { try HostPattern($0).description }
            #expect(try manager.rule(forHost: PeerName(host))?.pattern.description == expected)
            #expect(file.entry(for: host)?.pattern.description == expected)
        }
    }
}
