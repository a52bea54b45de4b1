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

    @Test func comparesInternationalSuffixesInALabelForm() {
        // "中国" (China) is on the list in Unicode; names are compared as A-labels.
        #expect(PublicSuffixList.isPublicSuffix("xn--fiqs8s"))
        #expect(!PublicSuffixList.isPublicSuffix("example.xn--fiqs8s"))
    }
}
