import TestSupport
import ATSCommandLine
import AppTransportSecurity
import Foundation
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

/// `ats pins`, driven in-process. Nothing touches the network.
@Suite struct PinsCommandTests {
    let dir = try! TemporaryDirectory()
    let pki = PKI.chain()
    static let at = ISO8601DateFormatter().string(from: PKI.now)

    func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
        let output = Output.capture()
        let status = await ATSCommand.run(arguments: ["pins"] + arguments, output: output)
        return (status, output.standardOutput, output.standardError)
    }

    func files() throws -> (chain: String, root: String) {
        (try dir.write("chain.pem", pki.leaf.pem + pki.intermediate.pem), try dir.write("root.der", bytes: pki.root.der))
    }

    @Test func listsEveryCertificatesPinSubjectAndRole() async throws {
        let (chain, root) = try files()
        let r = await run([chain, root])
        #expect(r.status == 0)
        let lines = r.out.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("sha256/" + PinningFixtures.hash(pki.leaf)))
        #expect(lines[0].contains("[leaf]"))
        #expect(lines[1].contains("[CA]") && lines[1].contains("Test Intermediate CA"))
        #expect(lines[2].hasPrefix("sha256/" + PinningFixtures.hash(pki.root)))
    }

    /// Options that only checking reads are refused when nothing is checked, not ignored while the pins print; the
    /// refusal says how to print a root's pin.
    @Test func checkModeOptionsWithoutPinsAreUsageErrors() async throws {
        let (chain, root) = try files()
        let anchors = await run([chain, "--anchors", root])
        #expect(anchors.status == 2)
        #expect(anchors.err.contains("--anchors is for checking a chain against --pin or --pin-file"), "\(anchors.err)")
        #expect(anchors.err.contains("'ats pins chain.pem root.pem'"), "\(anchors.err)")
        let both = await run([chain, "--skip-validation", "--at", Self.at])
        #expect(both.status == 2)
        #expect(both.err.contains("--skip-validation, --at are for checking"), "\(both.err)")
    }

    /// Snippet options are refused where no snippet is printed (review-api F8): in the list, and in check mode, where
    /// --include-subdomains could be read as widening the check. --host stays legitimate when checking a chain.
    @Test func snippetOptionsWithoutASnippetAreUsageErrors() async throws {
        let (chain, root) = try files()
        let pin = "sha256/" + PinningFixtures.hash(pki.intermediate)
        let listed = await run([chain, "--include-subdomains", "--include-leaf"])
        #expect(listed.status == 2)
        #expect(listed.err.contains("--include-leaf, --include-subdomains are for the snippets of --format ats, trustkit, trustkit-json, okhttp or android, and no snippet is printed without one"), "\(listed.err)")
        let checked = await run([chain, "--anchors", root, "--pin", pin, "--include-leaf"])
        #expect(checked.status == 2)
        #expect(checked.err.contains("--include-leaf is for the snippets of --format ats"), "\(checked.err)")
        #expect(checked.err.contains("checking a chain against --pin or --pin-file prints none"), "\(checked.err)")
        for list in [[chain, "--host", "api.example.com"], [chain, "--json", "--host", "api.example.com"], [chain, "--format", "json", "--host", "api.example.com"]] {
            let r = await run(list)
            #expect(r.status == 2)
            #expect(r.err.contains("--host is for the snippets of --format ats"), "\(r.err)")
            #expect(r.err.contains("the list of pins names no host"), "\(r.err)")
        }
        #expect(await run([chain, "--anchors", root, "--pin", pin, "--host", "www.example.com", "--at", Self.at]).status == 0)
        #expect(await run([chain, "--format", "ats", "--host", "api.example.com", "--include-subdomains", "--include-leaf"]).status == 0)
    }

    /// Check mode with --trust-store apple: a real chain with a pin of its intermediate is trusted against Apple's store,
    /// and the JSON names the store.
    @Test func checkModeTakesTheAppleTrustStore() async throws {
        let chain = Repository.appleChains.appendingPathComponent("digicert_g2_reddit.com.pem").path
        let certificates = try CertificateLoader.certificates(atPath: chain)
        let pin = try #require(certificates.dropFirst().first?.spkiSHA256Base64)
        let r = await run([chain, "--pin", "sha256/" + pin, "--host", "reddit.com", "--at", "2025-12-01T00:00:00Z", "--trust-store", "apple", "--json"])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        #expect(object["trustStore"] as? String == "apple")
        #expect(object["platform"] as? String == "iOS 26")
        // The system store of another machine is not asked: the test chain's own CA is in no public store.
        let (testChain, _) = try files()
        let refused = await run([testChain, "--pin", "sha256/" + PinningFixtures.hash(pki.intermediate), "--host", "www.example.com", "--at", Self.at,
                                 "--trust-store", "apple"])
        #expect(refused.status == 1)
    }

    @Test func jsonListsThePins() async throws {
        let (chain, _) = try files()
        let r = await run([chain, "--format", "json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["spkiSHA256"] as? String } == [PinningFixtures.hash(pki.leaf), PinningFixtures.hash(pki.intermediate)])
        #expect(rows.map { $0["isCertificateAuthority"] as? Bool } == [false, true])
    }

    /// `--json` without pins to check used to print the text list; it prints what --format json prints, and a
    /// snippet format beside it is a usage error.
    @Test func jsonFlagWithoutPinsListsThePinsAsJSON() async throws {
        let (chain, _) = try files()
        let r = await run([chain, "--json"])
        #expect(r.status == 0)
        #expect(r.out == (await run([chain, "--format", "json"])).out)
        #expect(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) is [[String: Any]], "\(r.out)")
        let snippet = await run([chain, "--json", "--format", "android"])
        #expect(snippet.status == 2)
        #expect(snippet.err.contains("--json prints the pins as JSON, and --format android prints a snippet"), "\(snippet.err)")
    }

    /// A TrustKit snippet for a host TrustKit refuses (no registrable domain) used to be printed without a word.
    @Test func aTrustKitSnippetForAHostTrustKitRefusesSaysSo() async throws {
        let (chain, _) = try files()
        for format in ["trustkit", "trustkit-json"] {
            let r = await run([chain, "--format", format, "--host", "localhost"])
            #expect(r.status == 0)
            #expect(r.err.contains("TrustKit refuses localhost at start-up"), "\(r.err)")
            let fine = await run([chain, "--format", format, "--host", "api.example.com"])
            #expect(!fine.err.contains("TrustKit refuses api.example.com"), "\(fine.err)")
        }
        #expect(!(await run([chain, "--format", "android", "--host", "localhost"])).err.contains("TrustKit refuses"))
    }

    /// An http:// URL used to be looked up as a file: "there is no such file".
    @Test func anHTTPURLIsRefusedAsNotHTTPS() async throws {
        let r = await run(["http://example.com"])
        #expect(r.status == 2)
        #expect(r.err.contains("only from an https:// server") && !r.err.contains("no such file"), "\(r.err)")
    }

    @Test(arguments: ["ats", "trustkit", "trustkit-json", "okhttp", "android"])
    func snippetsPinTheCAAndRemindOfABackup(format: String) async throws {
        let (chain, root) = try files()
        let r = await run([chain, root, "--format", format, "--host", "api.example.com"])
        #expect(r.status == 0)
        #expect(r.err.contains("backup pin"))
        let config = try PinConfigurationFormat.read(Array(r.out.utf8), source: "snippet").configuration
        #expect(config.hosts.map(\.pattern.name) == ["api.example.com"])
        let pins = Set(config.hosts[0].pinSet.allPins)
        #expect(pins == [PinningFixtures.sha256Pin(pki.intermediate), PinningFixtures.sha256Pin(pki.root)])
        let withLeaf = await run([chain, "--format", format, "--include-leaf"])
        let leafConfig = try PinConfigurationFormat.read(Array(withLeaf.out.utf8), source: "snippet").configuration
        #expect(leafConfig.hosts[0].pinSet.allPins.contains(PinningFixtures.sha256Pin(pki.leaf)))
        #expect(withLeaf.err.contains("example.com"))
    }

    /// basicConstraints is read from the DER, so a CA swift-certificates cannot parse (an RSA-1024 intermediate) is a
    /// CA, and a v1 self-signed root, which has no extensions, is a CA too: the ATS snippet pins both as CAs. A v3
    /// self-signed certificate without basicConstraints stays a leaf, and so does an RSA-1024 leaf.
    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func caRolesComeFromTheDERAndV1RootsAreCAs() async throws {
        let tool = try OpenSSLTool()
        _ = try tool.export(pki.root, as: "root")
        try tool.newKey("weakca", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        let weakCA = try tool.issue("weakca", cn: "Weak Intermediate CA", issuer: "root", extensions: OpenSSLTool.caExtensions)
        try tool.newKey("weakleaf", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        let weakLeaf = try tool.issue("weakleaf", cn: "www.example.com", issuer: "root", extensions: OpenSSLTool.leafExtensions)
        #expect(weakCA.certificate == nil && weakLeaf.certificate == nil, "swift-certificates cannot parse RSA-1024 certificates")
        func selfSigned(_ cn: String, version: Certificate.Version) throws -> InputCertificate {
            let key = TestKey.p256()
            let cert = try Certificate(version: version, serialNumber: PKI.serial(), publicKey: key.publicKey, notValidBefore: PKI.notBefore,
                                       notValidAfter: PKI.notAfter, issuer: PKI.name(cn), subject: PKI.name(cn),
                                       signatureAlgorithm: key.defaultSignatureAlgorithm, extensions: Certificate.Extensions(),
                                       issuerPrivateKey: key.certificateKey)
            var der = DER.Serializer()
            try der.serialize(cert)
            return try InputCertificate(der: der.serializedBytes)
        }
        let v1Root = try selfSigned("V1 Root", version: .v1)
        let v3NoExtensions = try selfSigned("device.example.com", version: .v3)
        #expect(v1Root.raw?.version == 1 && v3NoExtensions.raw?.version == 3)
        let file = try dir.write("mixed.pem", [weakLeaf, weakCA, v1Root, v3NoExtensions].map {
            PEMDocument(type: "CERTIFICATE", derBytes: $0.der).pemString + "\n"
        }.joined())
        let r = await run([file, "--format", "json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]], "\(r.err)")
        #expect(rows.map { $0["isCertificateAuthority"] as? Bool } == [false, true, true, false])
        let ats = await run([file, "--format", "ats", "--host", "api.example.com"])
        let set = try #require(try PinConfigurationFormat.read(Array(ats.out.utf8), source: "snippet").configuration.hosts.first?.pinSet)
        #expect(Set(set.caPins) == [try Pin.spkiSHA256(of: weakCA), try Pin.spkiSHA256(of: v1Root)])
    }

    /// Only OkHttp has a one-label wildcard: every other format widens `*.example.com` to the name and all its
    /// subdomains, and says so.
    @Test(arguments: [("ats", true), ("trustkit", true), ("trustkit-json", true), ("android", true), ("okhttp", false)])
    func aOneLabelWildcardThatIsWidenedIsAWarning(format: String, widened: Bool) async throws {
        let (chain, root) = try files()
        let r = await run([chain, root, "--format", format, "--host", "*.example.com"])
        #expect(r.status == 0)
        #expect(r.err.contains("no one-label wildcard") == widened, "\(format): \(r.err)")
        let pattern = try PinConfigurationFormat.read(Array(r.out.utf8), source: "snippet").configuration.hosts.first?.pattern
        #expect(pattern?.kind == (widened ? .subdomains : .oneLabel))
    }

    /// A snippet is checked by its target system's rules before it is printed: TrustKit refuses includeSubdomains on
    /// a public suffix, ATS has no such rule. A single pin is left for the user to complete, with a warning for
    /// TrustKit, which refuses an enforced set without a backup pin.
    @Test func snippetsAreCheckedByTheirTargetSystemsRules() async throws {
        let (chain, root) = try files()
        for format in ["trustkit", "trustkit-json"] {
            let refused = await run([chain, root, "--format", format, "--host", "co.uk", "--include-subdomains"])
            #expect(refused.status == 2)
            #expect(refused.out.isEmpty)
            #expect(refused.err.contains("public suffix 'co.uk'"), "\(refused.err)")
            let single = await run([dir.file("chain.pem"), "--format", format, "--host", "api.example.com"])
            #expect(single.status == 0)
            #expect(single.err.contains("TrustKit refuses an enforced pin set with fewer than two pins"))
        }
        #expect(await run([chain, root, "--format", "ats", "--host", "co.uk", "--include-subdomains"]).status == 0)
        #expect(await run([chain, root, "--format", "android", "--host", "co.uk", "--include-subdomains"]).status == 0)
        let two = await run([chain, root, "--format", "trustkit", "--host", "api.example.com"])
        #expect(!two.err.contains("TrustKit refuses"))
    }

    @Test func checksAChainAgainstPins() async throws {
        let (chain, root) = try files()
        let base = [chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at]
        #expect(await run(base + ["--pin", "sha256/" + PinningFixtures.hash(pki.root)]).status == 0)
        let miss = await run(base + ["--pin", PinningFixtures.unrelated.description])
        #expect(miss.status == 1)
        #expect(miss.out.contains("pinMismatch"))
        #expect(miss.out.contains("sha256/" + PinningFixtures.hash(pki.intermediate)))
        // Scope: the leaf's pin does not satisfy a CA scope.
        #expect(await run(base + ["--pin", PinningFixtures.sha256Pin(pki.leaf).description, "--pin-scope", "ca"]).status == 1)
        #expect(await run(base + ["--pin", PinningFixtures.sha256Pin(pki.leaf).description, "--pin-scope", "leaf"]).status == 0)
        // JSON verdicts carry the code.
        let json = await run(base + ["--pin", PinningFixtures.unrelated.description, "--json"])
        #expect(json.out.contains("\"pinMismatch\""))
    }

    /// `--skip-validation` checks pins on a chain nobody validated (here, its root is no anchor): a pinned CA is
    /// accepted, but the verdict never calls the chain trusted or anchored.
    @Test func skippingValidationNeverSaysAnchored() async throws {
        let (chain, root) = try files()
        let pin = "sha256/" + PinningFixtures.hash(pki.intermediate)
        let base = [chain, "--host", "www.example.com", "--at", Self.at, "--pin", pin, "--skip-validation"]
        let r = await run(base)
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("✓ accepted for www.example.com, but the chain was not validated: no anchor vouches for it"), "\(r.out)")
        #expect(!r.out.contains("anchored at"))
        #expect(r.out.contains("validation skipped: [unknownIssuer]"))
        let json = await run(base + ["--json"])
        #expect(json.out.contains("\"trusted\" : true") || json.out.contains("\"trusted\":true"), "\(json.out)")
        #expect(!json.out.contains("\"anchor\""), "\(json.out)")
        // A chain that does validate is still anchored under --skip-validation.
        let anchored = await run(base + ["--anchors", root])
        #expect(anchored.out.contains("✓ trusted for www.example.com, anchored at a custom anchor"), "\(anchored.out)")
    }

    @Test func checksAChainAgainstAPinFile() async throws {
        let (chain, root) = try files()
        let okhttp = try dir.write("pins.txt", "**.example.com \(PinningFixtures.sha256Pin(pki.intermediate)) \(PinningFixtures.unrelated)\n")
        let base = [chain, "--anchors", root, "--at", Self.at, "--pin-file", okhttp]
        #expect(await run(base + ["--host", "www.example.com"]).status == 0)
        // A host the file does not cover is not pinned, as in every system: the chain is validated only, with a warning.
        let none = await run(base + ["--host", "example.org", "--skip-validation"])
        #expect(none.status == 0, "\(none.out)\(none.err)")
        #expect(none.err.contains("warning:") && none.err.contains("pins nothing for example.org") && none.err.contains("**.example.com"))
    }

    @Test func inputErrorsExitTwo() async throws {
        let (chain, _) = try files()
        #expect(await run([]).status == 2)
        #expect(await run([dir.file("missing.pem")]).status == 2)
        let bad = await run([chain, "--pin", "sha256/short", "--skip-validation"])
        #expect(bad.status == 2)
        #expect(bad.err.contains("--pin"))
        #expect(await run([chain, "--pin", PinningFixtures.unrelated.description, "--format", "ats"]).status == 2)
    }
}
