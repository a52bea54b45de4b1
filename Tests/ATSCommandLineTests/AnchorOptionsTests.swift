import ArgumentParser
import TestSupport
import Foundation
import Testing

@testable import ATSCommandLine
@testable import TransportTrust

/// `--anchors` and the system roots, as every command that evaluates a chain loads them: what was skipped is said,
/// and an empty store says why.
@Suite struct AnchorOptionsTests {
    let dir = try! TemporaryDirectory()
    let roots = (0..<2).map { PKI.root("Bundle Root \($0)") }
    static let garbage = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"

    func options(_ arguments: [String] = []) throws -> AnchorOptions { try AnchorOptions.parse(arguments) }

    /// A bundle (SSL_CERT_FILE) with one bad block: the rest anchors chains, and the block is named on standard error.
    @Test func aSkippedSystemRootIsAWarningNamingFileAndLine() throws {
        let bundle = try dir.write("bundle.pem", roots[0].pem + Self.garbage + roots[1].pem)
        let system = SystemRoots.load(environment: ["SSL_CERT_FILE": bundle])
        let output = Output.capture()
        let anchors = try options().trustAnchors(requireSystemRoots: true, warnings: output, systemRoots: system)
        #expect(anchors.all.map(\.der) == roots.map(\.der))
        let line = roots[0].pem.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(output.standardError.hasPrefix("warning: system roots: \(bundle):\(line): skipped, "), "\(output.standardError)")
        #expect(output.standardError.split(separator: "\n").count == 1)
        #expect(output.standardOutput.isEmpty)
    }

    /// SSL_CERT_FILE naming a file that is not a certificate: its path once, not "garbage: garbage: …" (review-api F12).
    @Test func aBundleThatIsNotACertificateIsNamedOnce() throws {
        let bundle = try dir.write("garbage.bin", bytes: [0x31] + Array(repeating: 0xA5, count: 63))
        let system = SystemRoots.load(environment: ["SSL_CERT_FILE": bundle])
        let output = Output.capture()
        _ = try? options().trustAnchors(warnings: output, systemRoots: system)
        #expect(output.standardError.hasPrefix("warning: system roots: \(bundle): skipped, it is not a valid certificate ("), "\(output.standardError)")
        #expect(output.standardError.components(separatedBy: bundle).count == 2, "\(output.standardError)")
    }

    @Test func withoutAWarningsOutputTheProblemsAreLeftToTheCaller() throws {
        let bundle = try dir.write("bundle.pem", roots[0].pem + Self.garbage)
        let system = SystemRoots.load(files: [bundle], directories: [])
        let anchors = try options().trustAnchors(warnings: nil, systemRoots: system)
        #expect(anchors.problems.count == 1)
        #expect(anchors.problems.first?.hasPrefix("system roots: \(bundle):") == true, "\(anchors.problems)")
    }

    @Test func anchorsOnlyHasNoSystemRootProblems() throws {
        let bundle = try dir.write("bundle.pem", roots[0].pem + Self.garbage)
        let root = try dir.write("root.pem", roots[1].pem)
        let output = Output.capture()
        let anchors = try options(["--anchors", root]).trustAnchors(warnings: output, systemRoots: SystemRoots.load(files: [bundle], directories: []))
        #expect(anchors.problems.isEmpty)
        #expect(output.standardError.isEmpty)
    }

    /// SSL_CERT_FILE=/nonexistent: the message names the file and the variable, and does not tell to set what is set.
    @Test func anEmptyStoreGivesTheRealReason() throws {
        let missing = dir.file("nonexistent.pem")
        let system = SystemRoots.load(environment: ["SSL_CERT_FILE": missing])
        do {
            _ = try options().trustAnchors(requireSystemRoots: true, warnings: Output.capture(), systemRoots: system)
            Issue.record("an empty store was used")
        } catch {
            let message = "\(error)"
            #expect(message.contains("no system roots were found: \(missing): cannot read: there is no such file (SSL_CERT_FILE=\(missing))"), "\(message)")
            #expect(message.contains("point SSL_CERT_FILE at readable PEM certificates, or give --anchors"), "\(message)")
            #expect(!message.contains("set SSL_CERT_FILE or SSL_CERT_DIR"), "\(message)")
        }
        // Commands that can run without system roots (fetch, diagnose) still warn.
        let output = Output.capture()
        _ = try options().trustAnchors(warnings: output, systemRoots: system)
        #expect(output.standardError.contains("warning: system roots: \(missing): cannot read: there is no such file"), "\(output.standardError)")
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func aCustomAnchorThatCannotBeUsedIsAWarning() throws {
        let tool = try OpenSSLTool()
        try tool.newKey("weak", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        try tool.run(["req", "-x509", "-new", "-key", "weak.key", "-subj", "/CN=Weak Root", "-days", "30", "-out", "weak.pem"])
        let output = Output.capture()
        _ = try options(["--anchors", tool.dir.file("weak.pem")]).trustAnchors(warnings: output)
        #expect(output.standardError.hasPrefix("warning: the anchor 'CN=Weak Root' cannot be used: "), "\(output.standardError)")
    }
}
