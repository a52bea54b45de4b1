import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

@Suite struct SystemRootsTests {
    let dir = try! TemporaryDirectory()
    let roots = (0..<3).map { PKI.root("Bundle Root \($0)") }

    @Test func skipsAnUnparsableBlockAndKeepsTheRest() throws {
        let garbage = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
        let text = "# a bundle\n" + roots[0].pem + "\n" + garbage + roots[1].pem + "\n" + roots[2].pem + "\n"
        let bundle = try dir.write("bundle.pem", text)
        let loaded = SystemRoots.load(files: [bundle], directories: [])
        #expect(loaded.certificates.map(\.der) == roots.map(\.der))
        #expect(loaded.skipped.count == 1)
        let garbageLine = text.components(separatedBy: "\n").firstIndex(of: "bm90IGEgY2VydGlmaWNhdGU=")!  // 1-based line of BEGIN
        #expect(loaded.skipped.first?.hasPrefix("\(bundle):\(garbageLine): skipped") == true, "\(loaded.skipped)")
        #expect(loaded.sources == [bundle])
    }

    @Test func readsABundleWithCRLFLineEndings() throws {
        let text = (roots[0].pem + roots[1].pem).replacingOccurrences(of: "\n", with: "\r\n")
        let bundle = try dir.write("windows.pem", text)
        let loaded = SystemRoots.load(files: [bundle], directories: [])
        #expect(loaded.certificates.map(\.der) == [roots[0].der, roots[1].der])
        #expect(loaded.skipped.isEmpty)
    }

    @Test func honoursSSLCertFile() throws {
        let bundle = try dir.write("only.pem", roots[0].pem + roots[1].pem)
        let loaded = SystemRoots.load(environment: ["SSL_CERT_FILE": bundle])
        #expect(loaded.certificates.map(\.der) == [roots[0].der, roots[1].der])
        #expect(loaded.sources == [bundle])
        #expect(loaded.skipped.isEmpty)
    }

    @Test func honoursSSLCertDirWithSeveralDirectories() throws {
        let first = dir.url.appendingPathComponent("one")
        let second = dir.url.appendingPathComponent("two")
        try FileManager.default.createDirectory(at: first, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        try Data(roots[0].pem.utf8).write(to: first.appendingPathComponent("1a2b3c4d.0"))
        try Data(roots[1].der).write(to: first.appendingPathComponent("root.crt"))
        try Data(roots[2].pem.utf8).write(to: second.appendingPathComponent("root.pem"))
        try Data("not a certificate".utf8).write(to: second.appendingPathComponent("README"))
        // A copy of a root under another name counts once.
        try Data(roots[2].pem.utf8).write(to: second.appendingPathComponent("copy.pem"))

        let loaded = SystemRoots.load(environment: ["SSL_CERT_DIR": first.path + ":" + second.path])
        #expect(Set(loaded.certificates.map(\.der)) == Set(roots.map(\.der)))
        #expect(loaded.certificates.count == 3)
        #expect(loaded.skipped.isEmpty, "\(loaded.skipped)")
        #expect(loaded.sources == [first.path, second.path])
    }

    @Test func combinesFileAndDirectory() throws {
        let bundle = try dir.write("file.pem", roots[0].pem)
        let certs = dir.url.appendingPathComponent("certs")
        try FileManager.default.createDirectory(at: certs, withIntermediateDirectories: true)
        try Data(roots[1].pem.utf8).write(to: certs.appendingPathComponent("r.pem"))
        let loaded = SystemRoots.load(environment: ["SSL_CERT_FILE": bundle, "SSL_CERT_DIR": certs.path])
        #expect(loaded.certificates.map(\.der) == [roots[0].der, roots[1].der])
    }

    @Test func reportsWhatItCannotRead() {
        let loaded = SystemRoots.load(files: [dir.file("missing.pem")], directories: [dir.file("missing-dir")])
        #expect(loaded.certificates.isEmpty)
        #expect(loaded.skipped.count == 2)
        #expect(loaded.skipped.contains { $0.contains("missing.pem") && $0.contains("cannot read") })
        #expect(loaded.skipped.contains { $0.contains("missing-dir") && $0.contains("not a readable directory") })
    }

    @Test func readsADERBundleFile() throws {
        let file = try dir.write("root.der", bytes: roots[0].der)
        let loaded = SystemRoots.load(files: [file], directories: [])
        #expect(loaded.certificates.map(\.der) == [roots[0].der])
    }

    @Test func withoutTheVariablesReadsADistributionLocation() {
        let loaded = SystemRoots.load(environment: [:])
        if let bundle = SystemRoots.bundlePaths.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
            #expect(loaded.sources == [bundle])
            #expect(!loaded.certificates.isEmpty)
        } else {
            #expect(loaded.sources == SystemRoots.directoryPaths)
        }
    }

    @Test func emptyVariablesAreIgnored() {
        let loaded = SystemRoots.load(environment: ["SSL_CERT_FILE": "", "SSL_CERT_DIR": ""])
        #expect(loaded.sources == SystemRoots.load(environment: [:]).sources)
    }

    @Test func loadedRootsAnchorChains() async throws {
        let bundle = try dir.write("anchors.pem", roots[0].pem + roots[1].pem)
        let system = SystemRoots.load(files: [bundle], directories: [])
        let anchors = TrustAnchors(custom: [], anchorsOnly: false, systemRoots: system)
        let intermediate = roots[1].intermediate("CA")
        let leaf = intermediate.leaf()
        let verdict = await PKI.evaluate(ServerTrust(chain: [leaf.input, intermediate.input], anchors: anchors, policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(verdict.isTrusted)
        #expect(verdict.anchor == .system)
    }
}
