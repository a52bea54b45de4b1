import ATSCommandLine
import TestSupport
import TestServersSupport
import Testing
import TransportTrust

/// `ats fetch URL --pin-file F` takes each step of its path once (issue #37): the URL is parsed at the command's
/// boundary and nowhere below (`URLParsingTests` shows no other parser reads it), and the pin file is validated as
/// it is read, not again by the trust manager.
@Suite struct FetchCommandPathTests {
    let host = "www.example.test"

    @Test func aPinnedFetchParsesItsURLOnceAndValidatesItsPinFileOnce() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("pinned") }
        try await withShutdown({ await server.shutdown() }) {
            let dir = try TemporaryDirectory()
            let pins = try dir.write("pins.txt", "\(host) sha256/\(ServerPKI.pin(pki.intermediate))\n")
            let arguments = ["fetch", "https://\(host):\(server.port)/", "--anchors", try dir.write("root.pem", pki.root.pem),
                             "--resolve", "\(host):127.0.0.1", "--pin-file", pins]
            let counts = CallCounts()
            let output = Output.capture()
            let status = await CallCounts.$current.withValue(counts) {
                await ATSCommand.run(arguments: withGenerousTimeLimits(arguments), output: output)
            }
            #expect(status == 0, "\(output.standardError)")
            #expect(output.standardOutput == "pinned")
            #expect(counts[.urlParse] == 1, "the URL was parsed \(counts[.urlParse]) times")
            #expect(counts[.pinValidation] == 1, "the pin file was validated \(counts[.pinValidation]) times")
            #expect(counts[.hostRule] == 1, "the trust manager chose the host's rule \(counts[.hostRule]) times")
        }
    }
}
