import TestSupport
import Testing

@testable import TransportTrust

@Suite struct HostnameMatchingTests {
    func matches(_ pattern: String, _ host: String, strict: Bool = false) -> Bool {
        HostnameMatching.dnsPatternMatches(pattern, host: host, refusingPrivateSuffixes: strict)
    }

    @Test func comparesExactNamesCaseInsensitively() {
        #expect(matches("www.example.com", "www.example.com"))
        #expect(matches("WWW.Example.COM", "www.example.com"))
        #expect(matches("www.example.com.", "www.example.com"))
        #expect(!matches("www.example.com", "example.com"))
        #expect(!matches("example.com", "www.example.com"))
        #expect(!matches("www.example.co", "www.example.com"))
        #expect(!matches("", "www.example.com"))
    }

    @Test func wildcardCoversExactlyOneLeftMostLabel() {
        #expect(matches("*.example.com", "www.example.com"))
        #expect(matches("*.example.com", "api.example.com"))
        #expect(matches("*.EXAMPLE.com", "api.example.com"))
        // Not the parent, not across labels.
        #expect(!matches("*.example.com", "example.com"))
        #expect(!matches("*.example.com", "a.b.example.com"))
        #expect(!matches("*.example.com", ".example.com"))
    }

    @Test func wildcardOnlyAsTheWholeLeftMostLabel() {
        #expect(!matches("*", "localhost"))
        #expect(!matches("*", "www.example.com"))
        #expect(!matches("f*.example.com", "foo.example.com"))
        #expect(!matches("*o.example.com", "foo.example.com"))
        #expect(!matches("www.*.example.com", "www.a.example.com"))
        #expect(!matches("*.*.example.com", "a.b.example.com"))
        #expect(!matches("www.example.*", "www.example.com"))
        #expect(!matches("*.", "com"))
    }

    @Test func wildcardNeverOverAnICANNPublicSuffix() {
        #expect(!matches("*.com", "example.com"))
        #expect(!matches("*.co.uk", "example.co.uk"))
        #expect(!matches("*.example.kawasaki.jp", "www.example.kawasaki.jp"))  // the ICANN rule *.kawasaki.jp
        #expect(matches("*.city.kawasaki.jp", "www.city.kawasaki.jp"))  // and its exception !city.kawasaki.jp
        #expect(matches("*.example.co.uk", "www.example.co.uk"))
        #expect(matches("*.someone.github.io", "www.someone.github.io"))
        #expect(!matches("*.com", "example.com", strict: true))
        #expect(!matches("*.co.uk", "example.co.uk", strict: true))
    }

    /// The certificates GitHub Pages, S3, Heroku, App Engine and CloudFront serve: their suffixes are in the
    /// list's PRIVATE section, which Chromium does not check wildcards against.
    @Test(arguments: [("*.github.io", "foo.github.io"), ("*.s3.amazonaws.com", "bucket.s3.amazonaws.com"),
                      ("*.herokuapp.com", "app.herokuapp.com"), ("*.appspot.com", "app.appspot.com"),
                      ("*.cloudfront.net", "d111111abcdef8.cloudfront.net")])
    func wildcardOverAPrivateSuffixMatches(pattern: String, host: String) {
        #expect(matches(pattern, host))
        // The strict profile follows x509-limbo's pedantic reading and refuses them.
        #expect(!matches(pattern, host, strict: true))
    }

    @Test func comparesInternationalNamesAsALabels() {
        #expect(matches("xn--bcher-kva.example", "xn--bcher-kva.example"))
        // A U-label in a SAN is not a valid dNSName and matches nothing.
        #expect(!matches("bücher.example", "xn--bcher-kva.example"))
        // A wildcard does not stand for an A-label.
        #expect(!matches("*.example.com", "xn--bcher-kva.example.com"))
        #expect(matches("*.xn--bcher-kva.example", "www.xn--bcher-kva.example"))
    }
}
