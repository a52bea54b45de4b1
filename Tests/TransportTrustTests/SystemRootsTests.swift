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

    /// Each skipped block is named once, by the bundle's file and line, with the reason alone.
    @Test func aSkippedBlockIsNamedByTheBundlesLine() throws {
        let garbage = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
        let bundle = try dir.write("bad-second.pem", roots[0].pem + garbage)
        let line = roots[0].pem.split(separator: "\n", omittingEmptySubsequences: false).count
        let skipped = SystemRoots.load(files: [bundle], directories: []).skipped
        #expect(skipped.count == 1)
        #expect(skipped.first?.hasPrefix("\(bundle):\(line): skipped, it is not a valid certificate (") == true, "\(skipped)")
        #expect(skipped.first?.contains("PEM block 1") == false, "\(skipped)")
    }

    @Test func aBlockWithoutAnENDLineIsReported() throws {
        let cut = "-----BEGIN CERTIFICATE-----\nMIIB\n"
        let bundle = try dir.write("noend.pem", cut + roots[0].pem + cut)
        let loaded = SystemRoots.load(files: [bundle], directories: [])
        #expect(loaded.certificates.map(\.der) == [roots[0].der])
        let last = cut.count(where: { $0 == "\n" }) + roots[0].pem.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(loaded.skipped == ["\(bundle):1: skipped, the block has no END line before the BEGIN line on line 3",
                                   "\(bundle):\(last): skipped, the block has no END line"])
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

    @Test func saysWhyAFileCannotBeRead() {
        let missing = dir.file("missing.pem")
        let loaded = SystemRoots.load(files: [missing, dir.url.path], directories: [])
        #expect(loaded.skipped == ["\(missing): cannot read: there is no such file",
                                   "\(dir.url.path): cannot read: it is a directory; give a file in it"])
    }

    /// SSL_CERT_FILE naming a file that is not there: the reason the store is empty is that file, not "set SSL_CERT_FILE".
    @Test func theReasonForAnEmptyStoreNamesTheFileAndTheVariable() {
        let missing = dir.file("nonexistent.pem")
        let loaded = SystemRoots.load(environment: ["SSL_CERT_FILE": missing])
        #expect(loaded.certificates.isEmpty)
        #expect(loaded.settings == ["SSL_CERT_FILE=\(missing)"])
        #expect(loaded.emptyReason == "\(missing): cannot read: there is no such file (SSL_CERT_FILE=\(missing))")
    }

    @Test func aBundleWithoutCertificatesSaysSo() throws {
        let keys = try dir.write("keys.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        let loaded = SystemRoots.load(files: [keys], directories: [])
        #expect(loaded.skipped == ["\(keys): holds no certificate"])
        #expect(loaded.emptyReason == "\(keys): holds no certificate")
    }

    @Test func thereIsNoReasonWhenThereAreRoots() throws {
        let bundle = try dir.write("good.pem", roots[0].pem)
        #expect(SystemRoots.load(files: [bundle], directories: []).emptyReason == nil)
        #expect(SystemRoots.load(environment: ["SSL_CERT_FILE": bundle]).settings == ["SSL_CERT_FILE=\(bundle)"])
    }

    /// A root swift-certificates cannot use (RSA-1024) stays, so a verdict can name it, and is reported with its line.
    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func aRootThatCannotBeUsedIsReportedWithItsLine() throws {
        let tool = try OpenSSLTool()
        try tool.newKey("weak", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        try tool.run(["req", "-x509", "-new", "-key", "weak.key", "-subj", "/CN=Weak Root", "-days", "30", "-out", "weak.pem"])
        let weak = String(decoding: try Data(contentsOf: URL(fileURLWithPath: tool.dir.file("weak.pem"))), as: UTF8.self)
        let text = roots[0].pem + weak
        let bundle = try dir.write("with-weak.pem", text)
        let loaded = SystemRoots.load(files: [bundle], directories: [])
        #expect(loaded.certificates.count == 2)
        let line = roots[0].pem.split(separator: "\n", omittingEmptySubsequences: false).count  // the line weak.pem begins on
        #expect(loaded.skipped.count == 1)
        #expect(loaded.skipped.first?.hasPrefix("\(bundle):\(line): skipped 'CN=Weak Root', which cannot be used: ") == true, "\(loaded.skipped)")
        #expect(loaded.emptyReason == nil)
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

    /// Store membership (is a custom anchor also a public root?) reads the same files as the store, without parsing a
    /// certificate, and holds every root the store holds.
    @Test func membersAreTheCertificatesTheStoreReads() throws {
        let garbage = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
        let cut = "-----BEGIN CERTIFICATE-----\nMIIB\n"
        let bundle = try dir.write("members.pem", "# roots\n" + roots[0].pem + garbage + cut
            + roots[1].pem.replacingOccurrences(of: "\n", with: "\r\n") + "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        let certs = dir.url.appendingPathComponent("member-dir")
        try FileManager.default.createDirectory(at: certs, withIntermediateDirectories: true)
        try Data(roots[2].der).write(to: certs.appendingPathComponent("root.crt"))
        // A block with RFC 1421 headers, which load drops before decoding.
        let headed = PKI.root("Bundle Root With Headers")
        try Data(headed.pem.replacingOccurrences(of: "-----BEGIN CERTIFICATE-----\n", with: "-----BEGIN CERTIFICATE-----\nProc-Type: 4,CLEAR\n\n").utf8)
            .write(to: certs.appendingPathComponent("1a2b3c4d.0"))
        try Data("not a certificate".utf8).write(to: certs.appendingPathComponent("README"))
        let files = [bundle, dir.file("missing.pem")]
        let loaded = SystemRoots.load(files: files, directories: [certs.path, dir.file("missing-dir")])
        #expect(loaded.certificates.map(\.der) == [roots[0].der, roots[1].der, headed.der, roots[2].der])
        let members = SystemRoots.members(files: files, directories: [certs.path, dir.file("missing-dir")])
        // Every root the store holds is a member; a block that is no certificate at all may be one too, but can never
        // be an anchor.
        let held = Set(loaded.certificates.map { DERKey($0.der) })
        #expect(held.isSubset(of: members))
        let extra = members.subtracting(held).map(\.der)
        #expect(extra == [Array("not a certificate".utf8)])
        #expect(extra.allSatisfy { (try? InputCertificate(der: $0)) == nil })
        #expect(SystemRoots.members(files: [], directories: []).isEmpty)
    }

    /// A bundle that load reads with indented lines or CR line ends is read so for membership too: otherwise the same
    /// root is public from the store and private as an anchor (review-anchor F3).
    @Test(arguments: ["indented", "cr"])
    func membersReadOddlyWrittenBundlesAsLoadDoes(form: String) throws {
        let pem = form == "cr" ? roots[0].pem.replacingOccurrences(of: "\n", with: "\r")
            : roots[0].pem.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
        let bundle = try dir.write("odd-\(form).pem", pem)
        let loaded = SystemRoots.load(files: [bundle], directories: [])
        #expect(loaded.certificates.map(\.der) == [roots[0].der], "\(loaded.skipped)")
        #expect(Set(loaded.certificates.map { DERKey($0.der) }).isSubset(of: SystemRoots.members(files: [bundle], directories: [])))
    }
}
