import TestSupport
import Testing

@testable import TransportTrust

@Suite struct PublicSuffixListTests {
    @Test(arguments: ["com", "uk", "co.uk", "s3.amazonaws.com", "github.io", "anything.ck"])
    func knowsPublicSuffixes(name: String) {
        #expect(PublicSuffixList.isPublicSuffix(name))
    }

    @Test(arguments: ["example.com", "example.co.uk", "www.ck", "bucket.s3.amazonaws.com", "user.github.io"])
    func knowsRegistrableNames(name: String) {
        #expect(!PublicSuffixList.isPublicSuffix(name))
    }

    @Test(arguments: ["com", "uk", "co.uk", "anything.ck", "example.kawasaki.jp"])
    func knowsICANNSuffixes(name: String) {
        #expect(PublicSuffixList.isICANNPublicSuffix(name))
    }

    @Test(arguments: ["github.io", "s3.amazonaws.com", "herokuapp.com", "appspot.com", "cloudfront.net", "example.com", "www.ck", "kawasaki.jp", "city.kawasaki.jp"])
    func privateSuffixesAreNotICANNSuffixes(name: String) {
        #expect(!PublicSuffixList.isICANNPublicSuffix(name))
    }

    @Test func comparesInternationalSuffixesInALabelForm() {
        // "中国" (China) is on the list in Unicode; names are compared as A-labels.
        #expect(PublicSuffixList.isPublicSuffix("xn--fiqs8s"))
        #expect(!PublicSuffixList.isPublicSuffix("example.xn--fiqs8s"))
    }
}
