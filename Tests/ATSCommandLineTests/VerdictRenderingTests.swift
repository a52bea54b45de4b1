import TestSupport
import Foundation
import Testing

@testable import ATSCommandLine
@testable import TransportTrust

/// How `ats verify` and `ats pins` show a verdict.
@Suite struct VerdictRenderingTests {
    /// In JSON, what standard error would have said about the anchors is a note: one object, nothing beside it.
    @Test func anchorProblemsAreNotesInJSON() throws {
        let dir = try TemporaryDirectory()
        let garbage = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
        let bundle = try dir.write("bundle.pem", PKI.root().pem + garbage)
        let anchors = TrustAnchors(custom: [], anchorsOnly: false, systemRoots: SystemRoots.load(files: [bundle], directories: []))
        let verdict = TrustVerdict(anchor: nil, chain: [], failures: [TrustFailure(.unknownIssuer, certificate: 0, "x")], notes: ["a note"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(VerdictRendering.json(verdict, anchors: anchors).utf8)) as? [String: Any])
        let notes = try #require(object["notes"] as? [String])
        #expect(notes.count == 2)
        #expect(notes.first == "a note")
        #expect(notes.last?.hasPrefix("system roots: \(bundle):") == true, "\(notes)")
        // Without anchors, the verdict's own notes only.
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(VerdictRendering.json(verdict).utf8)) as? [String: Any])
        #expect(plain["notes"] as? [String] == ["a note"])
    }
}
