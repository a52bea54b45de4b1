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

/// The list ships as its own file (a resource), read on the first lookup; without it, every name is a suffix.
@Suite struct PublicSuffixListFileTests {
    private func lists(_ text: String) -> PublicSuffixList.Lists { PublicSuffixList.load(.success(Array(text.utf8))) }

    @Test func theShippedFileIsRead() {
        #expect(PublicSuffixList.problem == nil)
        #expect(PublicSuffixList.lists.hasRegistrableDomain("example.co.uk"))
    }

    @Test func sectionsCommentsAndTrailingTextAreReadAsTheListSays() {
        let read = lists("""
            // a header comment
            ignored.outside
            // ===BEGIN ICANN DOMAINS===
            // com : registry
            com
            co.uk extra text
            *.ck
            !www.ck
            // ===END ICANN DOMAINS===
            // ===BEGIN PRIVATE DOMAINS===
            github.io\r
            // ===END PRIVATE DOMAINS===
            """)
        #expect(read.problem == nil)
        #expect(read.isICANNPublicSuffix("co.uk"))
        #expect(read.isICANNPublicSuffix("any.ck"))
        #expect(!read.isICANNPublicSuffix("www.ck"))
        #expect(!read.isICANNPublicSuffix("github.io"))
        #expect(read.isPublicSuffix("github.io"))
        #expect(!read.isPublicSuffix("ignored.outside"))
        #expect(read.hasRegistrableDomain("example.com"))
    }

    @Test func aMissingFileMakesEveryNameASuffix() {
        let missing = PublicSuffixList.load(.failure(PackageResources.Missing(description: "x.resources/PublicSuffixList/public_suffix_list.dat was not found")))
        #expect(missing.problem?.contains("cannot be read") == true)
        #expect(missing.isICANNPublicSuffix("example.com"))
        #expect(missing.isPublicSuffix("www.example.co.uk"))
        #expect(!missing.hasRegistrableDomain("www.example.com"))
    }

    @Test func aFileWithoutThePrivateSectionIsRefused() {
        let read = lists("// ===BEGIN ICANN DOMAINS===\ncom\n// ===END ICANN DOMAINS===\n")
        #expect(read.problem?.contains("no ICANN or no PRIVATE section") == true)
        #expect(read.isICANNPublicSuffix("example.com"))
    }
}
