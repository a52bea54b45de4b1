import Foundation
import TestSupport
import Testing

/// A request's URL is parsed once, at the boundary, by `ConnectionTarget` (issue #37). Every other place in
/// `Sources/` that hands text to Foundation's URL parsers parses some other URL, and is listed here with which.
/// Together with the count in `FetchCommandPathTests`, that shows `ats fetch` parses its URL once.
@Suite struct URLParsingTests {
    /// File → what it parses.
    static let allowed = [
        "Sources/AppTransportSecurity/Requirements/ConnectionTarget.swift": "the request URL: the one parse",
        "Sources/TransportClient/RequestLoop.swift": "a redirect's Location, resolved against the request URL",
        "Sources/TransportClient/HTTPOCSPResponseSource.swift": "an OCSP responder URI from a certificate",
        "Sources/TransportClient/HTTPCRLSource.swift": "a CRL distribution point from a certificate",
        "Sources/TransportClient/Proxy/Proxy.swift": "a proxy URL",
        "Sources/TransportTrust/Policies/NameConstraintMatching.swift": "a URI name in a certificate",
    ]

    @Test func onlyTheListedFilesParseURLs() throws {
        var found: Set<String> = []
        for file in Repository.swiftFiles(under: "Sources") {
            let text = try String(contentsOf: file, encoding: .utf8)
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            guard code.contains(where: { $0.contains("URLComponents(") || $0.contains("URL(string") }) else { continue }
            found.insert(String(file.path.dropFirst(Repository.root.path.count + 1)))
        }
        #expect(found.subtracting(Self.allowed.keys).sorted() == [],
                "a new URL parser: take the request's ConnectionTarget instead, or list what this one parses")
        #expect(Set(Self.allowed.keys).subtracting(found).sorted() == [], "listed but no longer parsing: drop it from the list")
    }
}
