import TestSupport
import Testing

@testable import TransportTrust

@Suite struct HostPatternTests {
    func p(_ s: String, sub: Bool = false) throws -> HostPattern { try HostPattern(s, includeSubdomains: sub) }

    @Test func okHttpPatterns() throws {
        let one = try p("*.example.com"), any = try p("**.example.com"), exact = try p("example.com")
        #expect(one.matches("www.example.com"))
        #expect(!one.matches("example.com"))
        #expect(!one.matches("a.b.example.com"))
        #expect(any.matches("example.com"))
        #expect(any.matches("www.example.com"))
        #expect(any.matches("a.b.c.example.com"))
        #expect(!any.matches("badexample.com"))
        #expect(exact.matches("example.com"))
        #expect(!exact.matches("www.example.com"))
        #expect(try p("example.com", sub: true) == any)
    }

    @Test func comparisonIgnoresCaseTrailingDotAndIDNForm() throws {
        let pattern = try p("**.Bücher.Example")
        #expect(pattern.name == "xn--bcher-kva.example")
        #expect(pattern.matches("WWW.xn--BCHER-kva.example."))
        #expect(pattern.matches("shop.bücher.example"))
        #expect(try p("EXAMPLE.com.").matches("example.COM"))
    }

    @Test func refusesBadPatterns() {
        for bad in ["ex*ample.com", "*.*.example.com", "a..b", "", "*.example.com"] {
            #expect(throws: PinConfigurationError.self, "\(bad)") {
                try HostPattern(bad, includeSubdomains: bad == "*.example.com")
            }
        }
        #expect(throws: PinConfigurationError.self) { try HostPattern("**.192.168.0.1") }
    }

    @Test func moreLabelsAreMoreSpecificAndExactBeatsWildcards() throws {
        #expect(try p("www.example.com").specificity > p("*.example.com").specificity)
        #expect(try p("*.example.com").specificity > p("**.example.com").specificity)
        #expect(try p("**.api.example.com").specificity > p("*.example.com").specificity)
        #expect(try p("**.www.example.com").specificity < p("www.example.com").specificity)
    }
}
