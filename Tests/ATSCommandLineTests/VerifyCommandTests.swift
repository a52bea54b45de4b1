import TestSupport
import ATSCommandLine
import Foundation
import Testing
import X509

@testable import TransportTrust

/// `ats verify`, driven in-process: exit statuses, JSON shape, and the text a person reads.
@Suite struct VerifyCommandTests {
    let dir = try! TemporaryDirectory()
    let pki = PKI.chain()
    /// The validation time as `--at` takes it.
    static let at = ISO8601DateFormatter().string(from: PKI.now)

    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    func run(_ arguments: [String], color: Bool = false) async -> Run {
        let output = Output.capture(color: color)
        let status = await ATSCommand.run(arguments: arguments, output: output)
        return Run(status: status, out: output.standardOutput, err: output.standardError)
    }

    /// Writes leaf + intermediate as chain.pem and the root as root.pem.
    func files() throws -> (chain: String, root: String) {
        (try dir.write("chain.pem", pki.leaf.pem + pki.intermediate.pem), try dir.write("root.pem", pki.root.pem))
    }

    func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any])
    }

    // MARK: Exit statuses

    @Test func trustedChainExitsZeroAndSaysWhy() async throws {
        let (chain, root) = try files()
        let r = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.err.isEmpty)
        #expect(r.out.contains("✓ trusted for www.example.com, anchored at a custom anchor"))
        // The tree: leaf, then each issuer one level deeper.
        #expect(r.out.contains("CN=leaf,O=Transport Trust Tests"))
        #expect(r.out.contains("└─ CN=Test Intermediate CA,O=Transport Trust Tests"))
        #expect(r.out.contains("   └─ CN=Test Root CA,O=Transport Trust Tests"))
        #expect(r.out.contains("[anchor (custom)]"))
        #expect(r.out.contains("SAN DNS:www.example.com"))
        #expect(r.out.contains("SPKI sha256/\(pki.leaf.input.spkiSHA256Base64!)"))
        #expect(!r.out.contains("\u{1B}["), "no colour was asked for")
    }

    @Test func theTreeShowsALongSubjectBoundedAndJSONKeepsItWhole() async throws {
        let long = String(repeating: "x", count: 400)
        let leaf = pki.intermediate.leaf(long)
        let chain = try dir.write("long.pem", leaf.pem + pki.intermediate.pem)
        let root = try dir.write("root.pem", pki.root.pem)
        let arguments = ["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at]
        let text = await run(arguments)
        #expect(text.status == 0, "\(text.out)\(text.err)")
        #expect(text.out.contains("CN=" + String(repeating: "x", count: 157) + "…"), "\(text.out)")
        #expect(!text.out.contains(String(repeating: "x", count: 158)))
        let json = await run(arguments + ["--json"])
        #expect(json.out.contains("CN=\(long),O=Transport Trust Tests"))
    }

    @Test func untrustedChainExitsOneAndListsTheReasons() async throws {
        let (chain, root) = try files()
        let r = await run(["verify", chain, "--anchors", root, "--host", "mail.example.com", "--at", Self.at])
        #expect(r.status == 1)
        #expect(r.out.contains("✗ not trusted for mail.example.com"))
        #expect(r.out.contains("• hostnameMismatch (certificate 0):"))
        #expect(r.out.contains("mail.example.com"))
        #expect(r.out.contains("CN=leaf,O=Transport Trust Tests ✗"), "the failing certificate is marked in the tree")
    }

    @Test func colourIsOnlyUsedWhenAsked() async throws {
        let (chain, root) = try files()
        let good = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at], color: true)
        #expect(good.out.contains("\u{1B}[1;32m✓ trusted\u{1B}[0m"))
        let bad = await run(["verify", chain, "--anchors", root, "--host", "mail.example.com", "--at", Self.at], color: true)
        #expect(bad.out.contains("\u{1B}[1;31m✗ not trusted\u{1B}[0m"))
    }

    @Test func missingIntermediateNamesIt() async throws {
        let leafOnly = try dir.write("leaf.pem", pki.leaf.pem)
        let root = try dir.write("root.pem", pki.root.pem)
        let r = await run(["verify", leafOnly, "--anchors", root, "--host", "www.example.com", "--at", Self.at])
        #expect(r.status == 1)
        #expect(r.out.contains("unknownIssuer (certificate 0)"))
        #expect(r.out.contains("Test Intermediate CA"))
        let intermediates = try dir.write("intermediates.pem", pki.intermediate.pem)
        let fixed = await run(["verify", leafOnly, "--intermediates", intermediates, "--anchors", root, "--host", "www.example.com", "--at", Self.at])
        #expect(fixed.status == 0, "\(fixed.out)")
    }

    @Test func expiryFollowsAt() async throws {
        let (chain, root) = try files()
        let later = ISO8601DateFormatter().string(from: PKI.notAfter.addingTimeInterval(86400))
        let r = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", later])
        #expect(r.status == 1)
        #expect(r.out.contains("expired (certificate 0)"))
        let fractional = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", "2026-01-01T00:00:00.5Z"])
        #expect(fractional.status != 2, "fractional seconds are RFC 3339: \(fractional.err)")
        // Without --at, now is used, and the generated chain is valid now.
        #expect(await run(["verify", chain, "--anchors", root, "--host", "www.example.com"]).status == 0)
    }

    @Test func basicPolicyChecksNoHost() async throws {
        let (chain, root) = try files()
        let r = await run(["verify", chain, "--anchors", root, "--policy", "basic", "--at", Self.at])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains("✓ trusted, anchored"))
    }

    @Test func maxDepthLimitsIntermediates() async throws {
        let (chain, root) = try files()
        let r = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--max-depth", "0"])
        #expect(r.status == 1)
        #expect(r.out.contains("chainTooLong"))
        #expect(await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--max-depth", "1"]).status == 0)
    }

    @Test func atsFlagAddsTheStrengthPolicy() async throws {
        let root = PKI.root(key: .rsa2048(0))
        let sha1CA = root.intermediate("SHA-1 CA", key: .rsa2048(1), signatureAlgorithm: .sha1WithRSAEncryption)
        let chain = try dir.write("sha1.pem", sha1CA.leaf().pem + sha1CA.pem)
        let anchors = try dir.write("rsa-root.pem", root.pem)
        let r = await run(["verify", chain, "--anchors", anchors, "--host", "www.example.com", "--at", Self.at, "--ats"])
        #expect(r.status == 1)
        #expect(r.out.contains("weakSignature (certificate 1)"))
        #expect(r.out.contains("SHA-1 CA"))
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func atsFlagNamesAWeakKey() async throws {
        let tool = try OpenSSLTool()
        let ca = try tool.export(pki.intermediate, as: "ca")
        try tool.newKey("leaf", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        let leaf = try tool.issue("leaf", cn: "weak.example.com", issuer: ca, extensions: OpenSSLTool.leafExtensions)
        let chain = try dir.write("weak.pem", String(decoding: try Data(contentsOf: URL(fileURLWithPath: tool.dir.file("leaf.pem"))), as: UTF8.self) + pki.intermediate.pem)
        let root = try dir.write("root.pem", pki.root.pem)
        let r = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--ats", "--json"])
        #expect(r.status == 1)
        let object = try json(r.out)
        let failures = try #require(object["failures"] as? [[String: Any]])
        #expect(failures.count == 1)
        #expect(failures.first?["code"] as? String == "weakKey")
        #expect(failures.first?["certificate"] as? Int == 0)
        #expect((failures.first?["message"] as? String)?.contains("weak.example.com") == true)
        let chainEntries = try #require(object["chain"] as? [[String: Any]])
        #expect(chainEntries.first?["keyType"] as? String == "RSA 1024")
        #expect(leaf.certificate == nil)
    }

    @Test func selfSignedLeafIsRefusedUntilItIsAnAnchor() async throws {
        let selfSigned = PKI.issue(subject: PKI.name("self.example.com"), key: .p256(), issuer: nil, extensions: [
            try! Certificate.Extension(SubjectAlternativeNames([.dnsName("self.example.com")]), critical: false),
            try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: false),
        ])
        let file = try dir.write("self.pem", selfSigned.pem)
        let other = try dir.write("other.pem", pki.root.pem)
        let refused = await run(["verify", file, "--anchors", other, "--host", "self.example.com", "--at", Self.at])
        #expect(refused.status == 1)
        #expect(refused.out.contains("selfSignedLeaf (certificate 0)"))
        #expect(refused.out.contains("--anchors"))
        let trusted = await run(["verify", file, "--anchors", file, "--host", "self.example.com", "--at", Self.at])
        #expect(trusted.status == 0, "\(trusted.out)")
    }

    @Test func readsDER() async throws {
        let leaf = try dir.write("leaf.der", bytes: pki.root.leaf().der)
        let root = try dir.write("root.der", bytes: pki.root.der)
        let r = await run(["verify", leaf, "--anchors", root, "--host", "www.example.com", "--at", Self.at])
        #expect(r.status == 0, "\(r.out)\(r.err)")
    }

    @Test func noAnchorsOnlyAddsTheSystemRoots() async throws {
        let (chain, root) = try files()
        let r = await run(["verify", chain, "--anchors", root, "--no-anchors-only", "--host", "www.example.com", "--at", Self.at, "--json"])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(try json(r.out)["anchor"] as? String == "custom")
    }

    @Test func withoutAnchorsTheSystemRootsAreUsed() async throws {
        let (chain, _) = try files()
        let r = await run(["verify", chain, "--host", "www.example.com", "--at", Self.at])
        if TrustAnchors.system.all.isEmpty {
            #expect(r.status == 2)
            #expect(r.err.contains("no system roots were found"))
        } else {
            // A generated private root is not a system root.
            #expect(r.status == 1)
            #expect(r.out.contains("unknownIssuer (certificate 1)"))
            #expect(r.out.contains("the system roots"))
        }
    }

    @Test func revocationWithAHandedInResponse() async throws {
        let aia = try Certificate.Extension(AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier("http://ocsp.invalid/"))]), critical: false)
        let leaf = pki.intermediate.leaf(extra: [aia])
        let chain = try dir.write("ocsp-chain.pem", leaf.pem + pki.intermediate.pem)
        let root = try dir.write("root.pem", pki.root.pem)
        let good = try dir.write("good.der", bytes: OCSPResponseBuilder.response(for: leaf, issuer: pki.intermediate, status: .good))
        let revoked = try dir.write("revoked.der", bytes: OCSPResponseBuilder.response(for: leaf, issuer: pki.intermediate, status: .revoked(at: PKI.now.addingTimeInterval(-60))))
        let base = ["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at]
        #expect(await run(base + ["--revocation", "hard", "--ocsp-response", good]).status == 0)
        let r = await run(base + ["--revocation", "soft", "--ocsp-response", revoked])
        #expect(r.status == 1)
        #expect(r.out.contains("revoked (certificate 0)"))
        let none = await run(base + ["--revocation", "hard"])
        #expect(none.status == 1)
        #expect(none.out.contains("revocationUnknown"))
        let missing = await run(base + ["--revocation", "hard", "--ocsp-response", dir.file("nope.der")])
        #expect(missing.status == 2)
        #expect(missing.err.contains("nope.der"))
    }

    @Test func aHandedInResponseIsNeverIgnored() async throws {
        let leaf = pki.intermediate.leaf()  // names no responder
        let chain = try dir.write("plain-chain.pem", leaf.pem + pki.intermediate.pem)
        let root = try dir.write("root.pem", pki.root.pem)
        let revoked = try dir.write("plain-revoked.der", bytes: OCSPResponseBuilder.response(for: leaf, issuer: pki.intermediate, status: .revoked(at: PKI.now.addingTimeInterval(-60))))
        let base = ["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--ocsp-response", revoked]
        // With no --revocation, a response handed in is checked soft-fail.
        let implied = await run(base)
        #expect(implied.status == 1)
        #expect(implied.out.contains("revoked (certificate 0)"))
        let off = await run(base + ["--revocation", "off"])
        #expect(off.status == 2)
        #expect(off.err.contains("--revocation soft or hard"))
    }

    @Test func revocationWithHandedInCRLs() async throws {
        let (chain, root) = try files()
        var leafCRL = CRLBuilder(issuer: pki.intermediate)
        leafCRL.entries = [.revoking(pki.leaf, reason: 1)]
        let revoked = try dir.write("revoked.crl", leafCRL.pem(by: pki.intermediate.key))
        let clean = try dir.write("clean.crl", bytes: CRLBuilder(issuer: pki.intermediate).signed(by: pki.intermediate.key))
        let rootCRL = try dir.write("root.crl", bytes: CRLBuilder(issuer: pki.root).signed(by: pki.root.key))
        let base = ["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at]
        // With no --revocation a CRL is checked soft-fail, and a PEM one reads as well as DER.
        let implied = await run(base + ["--crl", revoked])
        #expect(implied.status == 1)
        #expect(implied.out.contains("revoked (certificate 0)"), "\(implied.out)")
        #expect(implied.out.contains("keyCompromise"))
        #expect(await run(base + ["--revocation", "hard", "--crl", clean, "--crl", rootCRL]).status == 0)
        let noRoot = await run(base + ["--revocation", "hard", "--crl", clean])
        #expect(noRoot.status == 1)
        #expect(noRoot.out.contains("revocationUnknown"))
        let off = await run(base + ["--revocation", "off", "--crl", clean])
        #expect(off.status == 2)
        #expect(off.err.contains("--crl with --revocation off"))
    }

    @Test func aFileThatIsNotACRLIsAnInputErrorNamingIt() async throws {
        let (chain, root) = try files()
        let base = ["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--crl"]
        let whole = try CRLBuilder(issuer: pki.intermediate).signed(by: pki.intermediate.key)
        let cases: [(String, [UInt8], String)] = [
            ("garbage.crl", [0xDE, 0xAD, 0xBE, 0xEF], "neither DER"),
            ("cert.pem", Array(pki.leaf.pem.utf8), "no 'X509 CRL' PEM block"),
            ("cut.crl", Array(whole.dropLast(9)), "not a DER CertificateList"),
        ]
        for (name, bytes, reason) in cases {
            let r = await run(base + [try dir.write(name, bytes: bytes)])
            #expect(r.status == 2, "\(name)")
            #expect(r.err.contains(name) && r.err.contains(reason), "\(name): \(r.err)")
        }
        let missing = await run(base + [dir.file("nope.crl")])
        #expect(missing.status == 2)
        #expect(missing.err.contains("nope.crl"))
    }

    @Test func aFileThatIsNotAnOCSPResponseIsAnInputError() async throws {
        let chain = try dir.write("chain.pem", pki.leaf.pem + pki.intermediate.pem)
        let root = try dir.write("root.pem", pki.root.pem)
        let base = ["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--revocation", "soft", "--ocsp-response"]
        let cases: [(String, [UInt8], String)] = [
            ("garbage.bin", [0xDE, 0xAD, 0xBE, 0xEF], "not DER"),
            ("base64.txt", Array("MAMKAQM=\n".utf8), "it is text"),
            ("cert.der", pki.leaf.der, "not an OCSPResponse"),
        ]
        for (name, bytes, reason) in cases {
            let r = await run(base + [try dir.write(name, bytes: bytes)])
            #expect(r.status == 2, "\(name)")
            #expect(r.err.contains(name) && r.err.contains(reason), "\(name): \(r.err)")
        }
        // An empty file is said to be empty, not text; DER with bytes after it is not called "not DER" (review-api F11).
        let empty = await run(base + [try dir.write("empty.der", bytes: [])])
        #expect(empty.status == 2)
        #expect(empty.err.contains("'\(dir.file("empty.der"))' is not an OCSP response: the file is empty") && !empty.err.contains("text"), "\(empty.err)")
        let padded = await run(base + [try dir.write("padded.der", bytes: OCSPResponseBuilder.tryLater + [0, 0])])
        #expect(padded.status == 2)
        #expect(padded.err.contains("is not an OCSP response: it starts with a DER element of \(OCSPResponseBuilder.tryLater.count) bytes, then 2 more bytes follow")
                    && !padded.err.contains("not DER"), "\(padded.err)")
        // tryLater is an OCSPResponse, so it is read; it establishes nothing, which soft-fail accepts.
        let r = await run(base + [try dir.write("trylater.der", bytes: OCSPResponseBuilder.tryLater)])
        #expect(r.status == 0)
    }

    /// An OCSPResponse that is "successful" with no body, or a responder's refusal, says nothing about any
    /// certificate; handed in, it used to be dropped without a word, even under hard-fail.
    @Test func anOCSPResponseThatCanSayNothingIsAnInputError() async throws {
        let chain = try dir.write("chain.pem", pki.leaf.pem + pki.intermediate.pem)
        let root = try dir.write("root.pem", pki.root.pem)
        let base = ["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--revocation", "hard", "--ocsp-response"]
        let cases: [(String, [UInt8], String)] = [
            ("empty-success.der", [0x30, 0x03, 0x0A, 0x01, 0x00], "successful but it carries no responseBytes"),
            ("unauthorized.der", [0x30, 0x03, 0x0A, 0x01, 0x06], "'unauthorized'"),
            ("malformed-request.der", [0x30, 0x03, 0x0A, 0x01, 0x01], "'malformedRequest'"),
            ("status-9.der", [0x30, 0x03, 0x0A, 0x01, 0x09], "responseStatus 9"),
        ]
        for (name, bytes, reason) in cases {
            let r = await run(base + [try dir.write(name, bytes: bytes)])
            #expect(r.status == 2, "\(name): \(r.out)")
            #expect(r.err.contains(name) && r.err.contains(reason), "\(name): \(r.err)")
        }
    }

    // MARK: Pins

    @Test func pinsAreCheckedAfterValidation() async throws {
        let (chain, root) = try files()
        let base = ["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at]
        // The root is not sent by the server; it matches because pins are checked against the built chain.
        let hit = await run(base + ["--pin", "sha256/" + PinningFixtures.hash(pki.root)])
        #expect(hit.status == 0, "\(hit.out)\(hit.err)")
        let miss = await run(base + ["--pin", PinningFixtures.unrelated.description])
        #expect(miss.status == 1)
        #expect(miss.out.contains("pinMismatch"))
        #expect(await run(base + ["--pin", PinningFixtures.sha256Pin(pki.leaf).description, "--pin-scope", "ca"]).status == 1)
        #expect(await run(base + ["--pin", PinningFixtures.sha256Pin(pki.leaf).description, "--pin-scope", "leaf"]).status == 0)
        // A matching pin does not rescue a chain that fails validation.
        let wrongHost = ["verify", chain, "--anchors", root, "--host", "mail.example.com", "--at", Self.at]
        let rescued = await run(wrongHost + ["--pin", "sha256/" + PinningFixtures.hash(pki.root)])
        #expect(rescued.status == 1)
        #expect(rescued.out.contains("hostnameMismatch"))
    }

    @Test func pinFileEntryIsChosenByHost() async throws {
        let (chain, root) = try files()
        let pins = try dir.write("pins.txt", "*.example.com \(PinningFixtures.sha256Pin(pki.intermediate)) \(PinningFixtures.unrelated)\n")
        let base = ["verify", chain, "--anchors", root, "--at", Self.at, "--pin-file", pins]
        #expect(await run(base + ["--host", "www.example.com"]).status == 0)
        let unlisted = await run(["verify", chain, "--anchors", root, "--at", Self.at, "--pin-file", pins, "--policy", "basic"])
        #expect(unlisted.status == 0, "one entry in the file: it applies without --host")
        let bad = await run(base + ["--host", "www.example.com", "--pin", "sha256/short"])
        #expect(bad.status == 2)
        #expect(bad.err.contains("--pin"))
        #expect(await run(["verify", "--limbo", "x.json", "--output", "y.json", "--pin-file", pins]).status == 2)
    }

    /// TrustKit and Android check the connection's host before its pins. Without --host, a file's entry for one host
    /// names the host checked, so a certificate for another name is refused; a pattern asks for --host (review-pins F3).
    @Test func withoutHostAPinFileEntryNamesTheHostChecked() async throws {
        let (chain, root) = try files()
        let pins = "\(PinningFixtures.sha256Pin(pki.intermediate)) \(PinningFixtures.unrelated)"
        for command in ["verify", "pins"] {
            let other = try dir.write("other.txt", "mail.example.com \(pins)\n")
            let refused = await run([command, chain, "--anchors", root, "--at", Self.at, "--pin-file", other])
            #expect(refused.status == 1, "\(command): \(refused.out)\(refused.err)")
            #expect(refused.out.contains("hostnameMismatch"), "\(command): \(refused.out)")
            #expect(refused.err.contains("note: no --host: the names are checked for mail.example.com"), "\(refused.err)")
            let own = try dir.write("own.txt", "www.example.com \(pins)\n")
            let trusted = await run([command, chain, "--anchors", root, "--at", Self.at, "--pin-file", own])
            #expect(trusted.status == 0, "\(command): \(trusted.out)\(trusted.err)")
            let pattern = try dir.write("pattern.txt", "*.example.com \(pins)\n")
            let unnamed = await run([command, chain, "--anchors", root, "--at", Self.at, "--pin-file", pattern])
            #expect(unnamed.status == 0, "\(command): \(unnamed.out)\(unnamed.err)")
            #expect(unnamed.err.contains("warning: no --host: the pins of *.example.com are checked but no host name is"), "\(unnamed.err)")
        }
    }

    // MARK: Usage and input errors: status 2 and what to fix

    @Test func anUnknownFlagIsAUsageError() async throws {
        let (chain, root) = try files()
        let r = await run(["verify", chain, "--anchors", root, "--bogus"])
        #expect(r.status == 2)
        #expect(r.err.contains("--bogus"), "\(r.err)")
        #expect(r.out.isEmpty)
    }

    @Test func aMissingChainArgumentSaysWhatToGive() async {
        let r = await run(["verify"])
        #expect(r.status == 2)
        #expect(r.err.contains("give a chain file"), "\(r.err)")
    }

    @Test func aMissingFileNamesIt() async throws {
        let root = try dir.write("root.pem", pki.root.pem)
        let missing = dir.file("does-not-exist.pem")
        let r = await run(["verify", missing, "--anchors", root])
        #expect(r.status == 2)
        #expect(r.err.contains("does-not-exist.pem"))
        #expect(r.err.contains("Check the path"))
        let missingAnchor = await run(["verify", try files().chain, "--anchors", dir.file("no-root.pem")])
        #expect(missingAnchor.status == 2)
        #expect(missingAnchor.err.contains("no-root.pem"))
    }

    @Test func garbagePEMIsAnInputError() async throws {
        let garbage = try dir.write("garbage.pem", "-----BEGIN CERTIFICATE-----\n%%% not base64 %%%\n-----END CERTIFICATE-----\n")
        let root = try dir.write("root.pem", pki.root.pem)
        let r = await run(["verify", garbage, "--anchors", root, "--host", "www.example.com"])
        #expect(r.status == 2)
        #expect(r.err.contains("garbage.pem:2: PEM block 1 is not a valid certificate (it holds '%', which is not base64)"), "\(r.err)")
        #expect(r.err.contains("Re-export it"))
        #expect(r.out.isEmpty)

        let notACertificate = try dir.write("notes.txt", "hello")
        let text = await run(["verify", notACertificate, "--anchors", root])
        #expect(text.status == 2)
        #expect(text.err.contains("neither PEM text nor DER"))

        let empty = try dir.write("empty.pem", "")
        let e = await run(["verify", empty, "--anchors", root])
        #expect(e.status == 2)
        #expect(e.err.contains("holds no certificate"))
    }

    @Test func aDirectoryIsNamedAsOne() async throws {
        let root = try dir.write("root.pem", pki.root.pem)
        let r = await run(["verify", dir.url.path, "--anchors", root])
        #expect(r.status == 2)
        #expect(r.err.contains("cannot read '\(dir.url.path)': it is a directory"), "\(r.err)")
        #expect(!r.err.contains("NSCocoaErrorDomain"), "\(r.err)")
    }

    @Test func aChainSentIssuerFirstSaysToPutTheLeafFirst() async throws {
        let reversed = try dir.write("reversed.pem", pki.intermediate.pem + pki.leaf.pem)
        let root = try dir.write("root.pem", pki.root.pem)
        let r = await run(["verify", reversed, "--anchors", root, "--host", "www.example.com", "--at", Self.at])
        #expect(r.status == 1)
        #expect(r.out.contains("basicConstraints (certificate 0)") && r.out.contains("must come first"), "\(r.out)")
    }

    @Test func readsDERCertificatesBackToBack() async throws {
        let chain = try dir.write("chain.der", bytes: pki.leaf.der + pki.intermediate.der)
        let root = try dir.write("root.pem", pki.root.pem)
        let r = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at])
        #expect(r.status == 0, "\(r.out)\(r.err)")
    }

    @Test func badOptionValuesSayWhatToFix() async throws {
        let (chain, root) = try files()
        let at = await run(["verify", chain, "--anchors", root, "--at", "yesterday"])
        #expect(at.status == 2)
        #expect(at.err.contains("RFC 3339"))
        #expect(at.err.contains("2026-01-31T12:00:00Z"))
        let notADay = await run(["verify", chain, "--anchors", root, "--at", "2027-02-30T00:00:00Z"])
        #expect(notADay.status == 2)
        #expect(notADay.err.contains("2027-02 has no day 30"), "\(notADay.err)")

        let host = await run(["verify", chain, "--anchors", root, "--host", "exa mple.com"])
        #expect(host.status == 2)
        #expect(host.err.contains("--host"))

        // An IPv4 address in a legacy form is neither a DNS name nor taken for the address: the dotted quad is asked for.
        let legacy = await run(["verify", chain, "--anchors", root, "--host", "127.1"])
        #expect(legacy.status == 2)
        #expect(legacy.err.contains("--host: '127.1'") && legacy.err.contains("dotted quad 127.0.0.1"), "\(legacy.err)")

        let wildcard = await run(["verify", chain, "--anchors", root, "--host", "*.example.com", "--at", Self.at])
        #expect(wildcard.status == 2)
        #expect(wildcard.err.contains("'*.example.com' has a wildcard"), "\(wildcard.err)")

        let basicWithHost = await run(["verify", chain, "--anchors", root, "--policy", "basic", "--host", "www.example.com"])
        #expect(basicWithHost.status == 2)
        #expect(basicWithHost.err.contains("drop --host"))

        let policy = await run(["verify", chain, "--anchors", root, "--policy", "tls"])
        #expect(policy.status == 2)

        let depth = await run(["verify", chain, "--anchors", root, "--max-depth", "99"])
        #expect(depth.status == 2)
        #expect(depth.err.contains("--max-depth must be between 0 and 64"))
    }

    // MARK: --limbo

    func limboCase(_ id: String, kind: String = "SERVER", host: (String, String)? = ("DNS", "www.example.com"), crls: [String] = []) -> [String: Any] {
        var c: [String: Any] = [
            "id": id, "features": [], "validation_kind": kind, "trusted_certs": [pki.root.pem],
            "untrusted_intermediates": [pki.intermediate.pem], "peer_certificate": pki.leaf.pem,
            "validation_time": Self.at, "extended_key_usage": ["serverAuth"], "crls": crls,
        ]
        if let host { c["expected_peer_name"] = ["kind": host.0, "value": host.1] }
        return c
    }

    @Test func limboRunsEveryServerCaseAndWritesResults() async throws {
        let suite: [String: Any] = ["version": 1, "testcases": [
            limboCase("good::chain"),
            limboCase("bad::host", host: ("DNS", "mail.example.com")),
            limboCase("bad::crl", crls: ["-----BEGIN X509 CRL-----\n-----END X509 CRL-----\n"]),
            limboCase("skip::email", host: ("RFC822", "someone@example.com")),
            limboCase("client::case", kind: "CLIENT"),
        ]]
        let input = try dir.write("limbo.json", bytes: Array(try JSONSerialization.data(withJSONObject: suite)))
        let output = dir.file("results.json")
        let r = await run(["verify", "--limbo", input, "--output", output])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("limbo: 4 SERVER cases"))
        let results = try json(String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self))
        #expect(results["version"] as? Int == 1)
        #expect((results["harness"] as? String)?.hasPrefix("swift-transport-security-") == true)
        let rows = try #require(results["results"] as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0["id"] as? String ?? "", $0) })
        #expect(byID.keys.sorted() == ["bad::crl", "bad::host", "good::chain", "skip::email"])
        #expect(byID["good::chain"]?["actual_result"] as? String == "SUCCESS")
        #expect(byID["bad::host"]?["actual_result"] as? String == "FAILURE")
        #expect((byID["bad::host"]?["context"] as? String)?.contains("hostnameMismatch") == true)
        // CRLs are read now; one that is not a CRL fails the case, saying so.
        #expect(byID["bad::crl"]?["actual_result"] as? String == "FAILURE")
        #expect((byID["bad::crl"]?["context"] as? String)?.contains("a CRL is rejected") == true)
        #expect(byID["skip::email"]?["actual_result"] as? String == "SKIPPED")

        let only = await run(["verify", "--limbo", input, "--output", output, "--only", "good"])
        #expect(only.status == 0)
        let filtered = try json(String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self))
        #expect((filtered["results"] as? [[String: Any]])?.map { $0["id"] as? String } == ["good::chain"])
    }

    @Test func limboUsageErrors() async throws {
        let noOutput = await run(["verify", "--limbo", dir.file("limbo.json")])
        #expect(noOutput.status == 2)
        #expect(noOutput.err.contains("--output"))
        let missing = await run(["verify", "--limbo", dir.file("absent.json"), "--output", dir.file("r.json")])
        #expect(missing.status == 2)
        #expect(missing.err.contains("absent.json"))
    }

    // MARK: JSON

    @Test func jsonHasTheDocumentedShape() async throws {
        let (chain, root) = try files()
        let r = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--json"])
        #expect(r.status == 0)
        let object = try json(r.out)
        #expect(object["trusted"] as? Bool == true)
        #expect(object["anchor"] as? String == "custom")
        #expect((object["failures"] as? [Any])?.isEmpty == true)
        let entries = try #require(object["chain"] as? [[String: Any]])
        #expect(entries.count == 3)
        let leaf = entries[0]
        #expect(leaf["subject"] as? String == "CN=leaf,O=Transport Trust Tests")
        #expect(leaf["issuer"] as? String == "CN=Test Intermediate CA,O=Transport Trust Tests")
        #expect(leaf["serialNumber"] as? String == CertificateSummary(pki.leaf.input).serialNumber)
        #expect((leaf["serialNumber"] as? String)?.contains(":") == true)
        #expect(leaf["notValidBefore"] as? String == ISO8601DateFormatter().string(from: PKI.notBefore))
        #expect(leaf["notValidAfter"] as? String == ISO8601DateFormatter().string(from: PKI.notAfter))
        #expect(leaf["keyType"] as? String == "EC P-256")
        #expect(leaf["keySize"] as? Int == 256)
        #expect(leaf["signatureAlgorithm"] as? String == "ecdsaWithSHA256")
        #expect(leaf["subjectAlternativeNames"] as? [String] == ["DNS:www.example.com"])
        #expect(leaf["spkiSHA256"] as? String == pki.leaf.input.spkiSHA256Base64)
        #expect(entries[2]["subject"] as? String == "CN=Test Root CA,O=Transport Trust Tests")
        #expect(entries[2]["isCertificateAuthority"] as? Bool == true)
    }

    @Test func jsonFailuresCarryCodeCertificateAndMessage() async throws {
        let leafOnly = try dir.write("leaf.pem", pki.leaf.pem)
        let root = try dir.write("root.pem", pki.root.pem)
        let r = await run(["verify", leafOnly, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--json"])
        #expect(r.status == 1)
        let object = try json(r.out)
        #expect(object["trusted"] as? Bool == false)
        #expect(object["anchor"] == nil || object["anchor"] is NSNull)
        let failures = try #require(object["failures"] as? [[String: Any]])
        #expect(failures.count == 1)
        #expect(failures[0]["code"] as? String == "unknownIssuer")
        #expect(failures[0]["certificate"] as? Int == 0)
        #expect((failures[0]["message"] as? String)?.contains("Test Intermediate CA") == true)
        #expect((object["chain"] as? [Any])?.count == 1)
    }

    @Test func jsonIsTheOnlyOutput() async throws {
        let (chain, root) = try files()
        let r = await run(["verify", chain, "--anchors", root, "--host", "mail.example.com", "--at", Self.at, "--json"])
        #expect(r.status == 1)
        #expect(r.out.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{"))
        #expect(r.out.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("}"))
        #expect(!r.out.contains("✗"))
        let failures = try #require(try json(r.out)["failures"] as? [[String: Any]])
        #expect(failures.map { $0["code"] as? String } == ["hostnameMismatch"])
    }

    // MARK: --platform and --trust-store

    /// A 900-day leaf: iOS 26 refuses it (825 days), iOS 12 takes it; JSON names the platform and the store.
    @Test func platformChoosesApplesLifetimeRules() async throws {
        let leaf = pki.intermediate.leaf(notValidBefore: PKI.notBefore, notValidAfter: PKI.notBefore.addingTimeInterval(900 * 86_400))
        let chain = try dir.write("long.pem", leaf.pem + pki.intermediate.pem)
        let root = try dir.write("root.pem", pki.root.pem)
        let newest = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--json"])
        #expect(newest.status == 1)
        let object = try json(newest.out)
        let failures = try #require(object["failures"] as? [[String: Any]])
        #expect(failures.map { $0["code"] as? String } == ["validityPeriodTooLong"])
        #expect((failures.first?["message"] as? String)?.contains("reissue it with at most 825 days") == true)
        #expect(object["platform"] as? String == "iOS 26")
        #expect(object["trustStore"] as? String == "system")
        #expect(object["trustStoreVersion"] == nil)

        let ios12 = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--platform", "ios12"])
        #expect(ios12.status == 0, "\(ios12.out)\(ios12.err)")
        let basic = await run(["verify", chain, "--anchors", root, "--policy", "basic", "--at", Self.at, "--json"])
        #expect(basic.status == 0)
        #expect(try json(basic.out)["platform"] == nil, "the basic policy has no TLS server rules")
    }

    @Test func unknownPlatformOrTrustStoreIsAUsageError() async throws {
        let (chain, root) = try files()
        let platform = await run(["verify", chain, "--anchors", root, "--platform", "android14"])
        #expect(platform.status == 2)
        #expect(platform.err.contains("unknown --platform 'android14'"), "\(platform.err)")
        let store = await run(["verify", chain, "--trust-store", "mozilla"])
        #expect(store.status == 2)
        #expect(store.err.contains("mozilla"), "\(store.err)")
    }

    /// A real chain against Apple's store at a time inside its validity, with its host.
    @Test func appleTrustStoreTrustsARealChain() async throws {
        let chain = Repository.appleChains.appendingPathComponent("digicert_g2_reddit.com.pem").path
        let text = await run(["verify", chain, "--trust-store", "apple", "--host", "reddit.com", "--at", "2025-12-01T00:00:00Z"])
        #expect(text.status == 0, "\(text.out)\(text.err)")
        #expect(text.out.contains("✓ trusted for reddit.com, anchored at a root of Apple's trust store"))
        #expect(text.out.contains("CN=DigiCert Global Root G2"))
        let object = try json(await run(["verify", chain, "--trust-store", "apple", "--host", "reddit.com", "--at", "2025-12-01T00:00:00Z", "--json"]).out)
        #expect(object["trustStore"] as? String == "apple")
        #expect(object["trustStoreVersion"] as? Int == 2025072000)
        #expect(object["anchor"] as? String == "system")
        let expired = await run(["verify", chain, "--trust-store", "apple", "--host", "reddit.com", "--at", "2027-12-01T00:00:00Z"])
        #expect(expired.status == 1)
        #expect(expired.out.contains("expired"))
    }

    /// --anchors with --trust-store apple: only the anchors, unless --no-anchors-only adds Apple's roots.
    @Test func customAnchorsWithTheAppleStore() async throws {
        let (chain, root) = try files()
        let only = await run(["verify", chain, "--anchors", root, "--trust-store", "apple", "--host", "www.example.com", "--at", Self.at])
        #expect(only.status == 0, "\(only.out)\(only.err)")
        #expect(only.out.contains("anchored at a custom anchor"))
        let reddit = Repository.appleChains.appendingPathComponent("digicert_g2_reddit.com.pem").path
        let anchorsOnly = await run(["verify", reddit, "--anchors", root, "--trust-store", "apple", "--host", "reddit.com", "--at", "2025-12-01T00:00:00Z"])
        #expect(anchorsOnly.status == 1)
        let added = await run(["verify", reddit, "--anchors", root, "--no-anchors-only", "--trust-store", "apple", "--host", "reddit.com",
                               "--at", "2025-12-01T00:00:00Z"])
        #expect(added.status == 0, "\(added.out)\(added.err)")
    }

    @Test func helpDescribesPlatformAndTrustStore() async {
        let help = await run(["verify", "--help"])
        let text = (help.out + help.err).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("--trust-store"))
        #expect(text.contains("--platform"))
        #expect(text.contains("398 days"))
        #expect(text.contains("--no-anchors-only adds the store's roots"))
    }


    // MARK: Certificate policies

    /// A chain whose CA asserts policy 1 and maps it to 2, whose leaf asserts 2; and a CA asserting anyPolicy.
    func policyFiles() throws -> (mapped: String, any: String, root: String) {
        typealias P = PolicyExtension
        let ca = pki.root.intermediate("Mapping CA", extra: [P.policies([P.oid(1)]), P.mappings([(P.oid(1), P.oid(2))])])
        let anyCA = pki.root.intermediate("Any CA", extra: [P.policies([P.anyPolicy])])
        return (try dir.write("mapped.pem", ca.leaf(extra: [P.policies([P.oid(2)])]).pem + ca.pem),
                try dir.write("any.pem", anyCA.leaf(extra: [P.policies([P.oid(2)])]).pem + anyCA.pem),
                try dir.write("root.pem", pki.root.pem))
    }

    @Test func policyOptionsSetTheInitialInputs() async throws {
        let (mapped, any, root) = try policyFiles()
        let base = ["--anchors", root, "--policy", "basic", "--at", Self.at, "--json"]
        let p1 = PolicyExtension.oid(1).description
        let p2 = PolicyExtension.oid(2).description
        #expect(await run(["verify", mapped] + base).status == 0)
        #expect(await run(["verify", mapped] + base + ["--require-explicit-policy", "--policy-oid", p2, "--policy-oid", p1]).status == 0)
        let wrong = await run(["verify", mapped] + base + ["--require-explicit-policy", "--policy-oid", p2])
        #expect(wrong.status == 1)
        #expect(wrong.out.contains("\"certificatePolicy\""), "\(wrong.out)")
        #expect(wrong.out.contains("none of them is acceptable (\(p2))"), "\(wrong.out)")
        // Without an explicit policy required, the acceptable set alone refuses nothing (RFC 5280 §6.1.5).
        #expect(await run(["verify", mapped] + base + ["--policy-oid", p2]).status == 0)
        #expect(await run(["verify", mapped] + base + ["--require-explicit-policy", "--inhibit-policy-mapping"]).status == 1)
        #expect(await run(["verify", any] + base + ["--require-explicit-policy"]).status == 0)
        #expect(await run(["verify", any] + base + ["--require-explicit-policy", "--inhibit-any-policy"]).status == 1)
    }

    @Test(arguments: ["policy", "1", "3.1", "1.40", "1.2.03", "1..2", "1.2.x", "1.2.99999999999999999999999"])
    func aPolicyOIDThatIsNotOneExitsTwoAndSaysHowToWriteIt(oid: String) async throws {
        let (mapped, _, root) = try policyFiles()
        let r = await run(["verify", mapped, "--anchors", root, "--policy", "basic", "--policy-oid", oid])
        #expect(r.status == 2)
        #expect(r.err.contains("--policy-oid '\(oid)' is not an object identifier"), "\(r.err)")
        #expect(r.err.contains("write it in dotted form, like 2.16.840.1.101.3.2.1.48.1"), "\(r.err)")
    }

    // MARK: Key purposes, distrust, anchors in the leaf position

    @Test func ekuSetsTheKeyPurposesOfTheBasicPolicy() async throws {
        let (chain, root) = try files()
        let base = ["verify", chain, "--anchors", root, "--policy", "basic", "--at", Self.at]
        #expect(await run(base + ["--eku", "serverAuth"]).status == 0)
        #expect(await run(base + ["--eku", "1.3.6.1.5.5.7.3.1"]).status == 0)
        let signing = await run(base + ["--eku", "codeSigning", "--json"])
        #expect(signing.status == 1)
        #expect(signing.out.contains("\"extendedKeyUsage\""), "\(signing.out)")
        #expect(signing.out.contains("not valid for codeSigning"), "\(signing.out)")
        #expect(await run(base + ["--eku", "serverAuth", "--eku", "clientAuth"]).status == 1)
    }

    @Test(arguments: [(["--eku", "signing", "--policy", "basic"], "--eku 'signing' is not a key purpose; use one of serverAuth, clientAuth, codeSigning, emailProtection, timeStamping, ocspSigning, any, or a dotted OID"),
                      (["--eku", "1.3.x", "--policy", "basic"], "--eku '1.3.x' is not an object identifier"),
                      (["--eku", "clientAuth"], "--eku sets the key purposes of --policy basic")])
    func aBadKeyPurposeExitsTwoAndSaysWhy(_ arguments: [String], _ message: String) async throws {
        let (chain, root) = try files()
        let r = await run(["verify", chain, "--anchors", root] + arguments)
        #expect(r.status == 2)
        #expect(r.err.contains(message), "\(r.err)")
    }

    /// Options that shape something this run does not do were accepted and did nothing: `--pin-scope ca` scoped no
    /// pin, and `--ct-log-list` was never read under `--ct off`. (`--output` now takes any report: ReportOptionsTests.)
    @Test(arguments: [(["--only", "foo"], "--only picks cases of --limbo or --pkits"),
                      (["--pin-scope", "ca"], "--pin-scope says where --pin hashes must match, but no --pin is given"),
                      (["--ct", "off", "--ct-log-list", "list.json"], "--ct off checks no SCT, so --ct-log-list would not be read")])
    func anOptionThatWouldDoNothingIsAUsageError(_ arguments: [String], _ message: String) async throws {
        let (chain, root) = try files()
        let r = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at] + arguments)
        #expect(r.status == 2, "\(r.out)")
        #expect(r.err.contains(message), "\(r.err)")
    }

    /// "-1" used to be taken for an option, and the answer was "Missing value for '--max-depth'".
    @Test func aNegativeMaxDepthIsOutOfRangeNotMissing() async throws {
        let (chain, root) = try files()
        let r = await run(["verify", chain, "--anchors", root, "--max-depth", "-1"])
        #expect(r.status == 2)
        #expect(r.err.contains("--max-depth must be between 0 and 64") && !r.err.contains("Missing value"), "\(r.err)")
    }

    /// The range error repeats the value given, as --timeout's does; a mode's values are listed (review-api F12).
    @Test func outOfRangeAndUnknownValuesAreSaidWithTheValue() async throws {
        let (chain, root) = try files()
        let depth = await run(["verify", chain, "--anchors", root, "--max-depth", "99999999999999"])
        #expect(depth.status == 2)
        #expect(depth.err.contains("--max-depth must be between 0 and 64, not 99999999999999"), "\(depth.err)")
        let mode = await run(["verify", chain, "--anchors", root, "--revocation", "maybe"])
        #expect(mode.status == 2)
        #expect(mode.err.contains("'off', 'soft' or 'hard'"), "\(mode.err)")
        let help = await run(["verify", "--help"])
        let text = (help.out + help.err).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("(values: off, soft, hard)"), "\(text)")
    }

    @Test func distrustRefusesAPathThroughAListedKey() async throws {
        let (chain, root) = try files()
        let list = try dir.write("distrust.txt", "# retired CA key\nsha256/\(try #require(pki.intermediate.input.spkiSHA256Base64))\n")
        let r = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--distrust", list])
        #expect(r.status == 1)
        #expect(r.out.contains("distrusted (certificate 1)"), "\(r.out)")
        #expect(r.out.contains("is listed in \(list)"), "\(r.out)")
        let other = try dir.write("other.pem", PKI.root("Unrelated").pem)
        #expect(await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--at", Self.at, "--distrust", other]).status == 0)
    }

    @Test func anUnreadableDistrustListExitsTwoAndNamesTheLine() async throws {
        let (chain, root) = try files()
        let list = try dir.write("distrust.txt", "sha256/\(try #require(pki.intermediate.input.spkiSHA256Base64))\nwhatever\n")
        let r = await run(["verify", chain, "--anchors", root, "--host", "www.example.com", "--distrust", list])
        #expect(r.status == 2)
        #expect(r.err.contains("--distrust \(list) line 2: 'whatever' is neither a PEM block nor a key hash"), "\(r.err)")
        let missing = await run(["verify", chain, "--anchors", root, "--distrust", dir.path + "/absent.txt"])
        #expect(missing.status == 2)
        #expect(missing.err.contains("absent.txt"), "\(missing.err)")
    }

    @Test func aLeafThatIsAnAnchorIsSaidToBeOne() async throws {
        let leaf = try dir.write("leaf.pem", pki.leaf.pem)
        let text = await run(["verify", leaf, "--anchors", leaf, "--host", "www.example.com", "--at", Self.at])
        #expect(text.status == 0, "\(text.out)")
        #expect(text.out.contains("[leaf, anchor (custom)]"), "\(text.out)")
        #expect(text.out.contains("anchored at a custom anchor: the leaf is itself the anchor"), "\(text.out)")
        let object = try json(await run(["verify", leaf, "--anchors", leaf, "--host", "www.example.com", "--at", Self.at, "--json"]).out)
        #expect(object["leafIsAnchor"] as? Bool == true)
        #expect(object["anchor"] as? String == "custom")
    }
}
