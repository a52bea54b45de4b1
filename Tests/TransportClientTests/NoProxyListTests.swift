import Testing

@testable import TransportClient

/// NO_PROXY and --noproxy as curl 8 reads them.
@Suite struct NoProxyListTests {
    @Test func aNameMatchesItselfAndWhatIsBelowIt() {
        let list = NoProxyList("example.com")
        #expect(list.matches("example.com"))
        #expect(list.matches("www.example.com"))
        #expect(list.matches("a.b.example.com"))
        #expect(!list.matches("notexample.com"), "a suffix match is on a label boundary")
        #expect(!list.matches("example.com.evil.test"))
        #expect(!list.matches("com"))
    }

    @Test func leadingAndTrailingDotsAndCaseDoNotMatter() {
        #expect(NoProxyList(".example.com").matches("www.example.com"))
        #expect(NoProxyList(".example.com").matches("example.com"), "curl drops a leading dot")
        #expect(NoProxyList("example.com.").matches("www.example.com"))
        #expect(NoProxyList("example.com").matches("WWW.Example.COM."))
    }

    @Test func entriesAreSeparatedByCommasAndSpaces() {
        let list = NoProxyList(" localhost, internal.test  10.0.0.0/8,,")
        #expect(list.entries.map(String.init) == ["localhost", "internal.test", "10.0.0.0/8"])
        #expect(list.matches("localhost"))
        #expect(list.matches("api.internal.test"))
        #expect(list.matches("10.1.2.3"))
        #expect(!list.matches("example.com"))
        #expect(!NoProxyList("").matches("localhost"))
        #expect(!NoProxyList(" , ").matches("localhost"))
    }

    @Test func anAsteriskAloneBypassesEveryHost() {
        #expect(NoProxyList("*").matches("example.com"))
        #expect(NoProxyList(" * ").matches("10.0.0.1"))
        // Only the whole list: curl has no wildcard inside a list or a name.
        #expect(!NoProxyList("localhost,*").matches("example.com"))
        #expect(!NoProxyList("*.example.com").matches("www.example.com"))
    }

    @Test func ipv4LiteralsMatchExactlyOrByRange() {
        #expect(NoProxyList("127.0.0.1").matches("127.0.0.1"))
        #expect(!NoProxyList("127.0.0.1").matches("127.0.0.2"))
        #expect(NoProxyList("192.168.0.0/16").matches("192.168.44.9"))
        #expect(!NoProxyList("192.168.0.0/16").matches("192.169.0.1"))
        #expect(NoProxyList("10.0.0.0/9").matches("10.127.255.255"))
        #expect(!NoProxyList("10.0.0.0/9").matches("10.128.0.0"))
        #expect(NoProxyList("0.0.0.0/0").matches("8.8.8.8") == false, "curl reads /0 as the whole address")
        #expect(!NoProxyList("10.0.0.0/33").matches("10.0.0.0"), "more bits than the address has match nothing")
        #expect(!NoProxyList("10.0.0.0/x").matches("10.0.0.0"))
    }

    @Test func ipv6LiteralsMatchExactlyOrByRangeWithOrWithoutBrackets() {
        #expect(NoProxyList("::1").matches("::1"))
        #expect(NoProxyList("::1").matches("[::1]"))
        #expect(NoProxyList("[::1]").matches("::1"))
        #expect(NoProxyList("2001:db8::/32").matches("2001:db8:ffff::1"))
        #expect(!NoProxyList("2001:db8::/32").matches("2001:db9::1"))
        #expect(NoProxyList("fe80::/10").matches("febf::1"))
        #expect(!NoProxyList("fe80::/10").matches("fec0::1"))
        #expect(!NoProxyList("127.0.0.0/8").matches("::1"), "an IPv4 range never matches an IPv6 address")
    }

    @Test func namesAndAddressesNeverMatchEachOther() {
        #expect(!NoProxyList("localhost").matches("127.0.0.1"), "nothing is looked up")
        #expect(!NoProxyList("127.0.0.1").matches("localhost"))
        #expect(!NoProxyList("0.1").matches("10.0.0.1"), "an address is not matched as a name suffix")
    }
}
