import TestSupport
@testable import ATSCommandLine
import Foundation
import Testing

@testable import TransportTrust

/// `--pin`, `--pin-file` and `--pin-scope`, the options `ats verify`, `ats pins` and `ats fetch` share, driven
/// through `ats verify` in-process.
@Suite struct PinOptionsTests {
    let dir = try! TemporaryDirectory()
    let pki = PKI.chain(dns: ["www.example.com", "api.example.com"])
    static let at = ISO8601DateFormatter().string(from: PKI.now)
    var intermediate: String { PinningFixtures.hash(pki.intermediate) }
    var unrelated: String { PinningFixtures.unrelated.base64 ?? "" }
    var unrelated2: String { PinningFixtures.unrelated2.base64 ?? "" }

    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    func verify(host: String = "api.example.com", _ arguments: [String]) async throws -> Run {
        let chain = try dir.write("chain.pem", pki.leaf.pem + pki.intermediate.pem)
        let root = try dir.write("root.pem", pki.root.pem)
        let output = Output.capture()
        let status = await ATSCommand.run(arguments: ["verify", chain, "--anchors", root, "--host", host, "--at", Self.at] + arguments,
                                          output: output)
        return Run(status: status, out: output.standardOutput, err: output.standardError)
    }

    // MARK: Validation under the file's own rules

    /// TrustKit refuses these configurations when the app starts, so `--pin-file` refuses them too, with the reason,
    /// whichever host is checked.
    @Test func aTrustKitFileIsRefusedWhenTrustKitWouldRefuseIt() async throws {
        let cases: [(String, PinConfigurationError.Code)] = [
            ("{\"TSKPinnedDomains\":{\"api.example.com\":{\"TSKEnforcePinning\":true,\"TSKPublicKeyHashes\":[\"\(intermediate)\"]}}}", .missingBackupPin),
            ("{\"TSKPinnedDomains\":{\"api.example.com\":{\"TSKPublicKeyHashes\":[]}}}", .emptyPinSet),
            ("{\"TSKPinnedDomains\":{\"example.com\":{\"TSKIncludeSubdomains\":true,\"TSKPublicKeyHashes\":[\"\(intermediate)\",\"\(unrelated)\"]},"
                + "\"com\":{\"TSKIncludeSubdomains\":true,\"TSKPublicKeyHashes\":[\"\(intermediate)\",\"\(unrelated)\"]}}}", .subdomainsOnPublicSuffix),
        ]
        for (json, code) in cases {
            let file = try dir.write("tk.json", json)
            let r = try await verify(["--pin-file", file])
            #expect(r.status == 2, "\(code): \(r.out)\(r.err)")
            #expect(r.out.isEmpty, "nothing is verified with a refused file")
            switch code {
            case .missingBackupPin: #expect(r.err.contains("no backup pin"))
            case .emptyPinSet: #expect(r.err.contains("has no pins"))
            default: #expect(r.err.contains("**.com") && r.err.contains("includeSubdomains"))
            }
            #expect(r.err.contains("tk.json"))
        }
    }

    /// OkHttp, Android and ATS ask for no backup pin and have no public-suffix rule, so their files are not refused
    /// for TrustKit's rules. ATS does require an identity per pinned domain.
    @Test func otherFormatsAreValidatedByTheirOwnRules() async throws {
        let okhttp = try dir.write("pins.txt", "api.example.com sha256/\(intermediate)\n**.com sha256/\(unrelated)\n")
        #expect(try await verify(["--pin-file", okhttp]).status == 0)
        let android = try dir.write("nsc.xml", """
            <network-security-config><domain-config><domain includeSubdomains="true">com</domain>
            <pin-set><pin digest="SHA-256">\(intermediate)</pin></pin-set></domain-config></network-security-config>
            """)
        #expect(try await verify(["--pin-file", android]).status == 0)
        func ats(_ identities: String) -> String {
            "<plist><dict><key>NSPinnedDomains</key><dict><key>api.example.com</key><dict>\(identities)</dict></dict></dict></plist>"
        }
        let one = try dir.write("one.plist", ats("<key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key><string>\(intermediate)</string></dict></array>"))
        #expect(try await verify(["--pin-file", one]).status == 0)
        let none = try await verify(["--pin-file", try dir.write("none.plist", ats(""))])
        #expect(none.status == 2)
        #expect(none.err.contains("has no pins"))
    }

    /// An expired set is a warning that names the date; the chain is then validated only.
    @Test func anExpiredSetIsAWarningNamingTheDate() async throws {
        let file = try dir.write("tk.json", """
            {"TSKPinnedDomains":{"api.example.com":{"TSKExpirationDate":"2020-03-01","TSKPublicKeyHashes":["\(unrelated)","\(unrelated2)"]}}}
            """)
        let r = try await verify(["--pin-file", file])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.err.contains("warning:") && r.err.contains("expired on 2020-03-01"))
    }

    // MARK: Hosts the file does not pin

    /// TrustKit's excluded subdomain is not pinned: its chain is validated only, with a note; its parent stays pinned.
    @Test func aTrustKitExcludedSubdomainIsValidatedOnly() async throws {
        let file = try dir.write("tk.json", """
            {"TSKPinnedDomains":{"example.com":{"TSKIncludeSubdomains":true,"TSKPublicKeyHashes":["\(unrelated)","\(unrelated2)"]},
             "api.example.com":{"kSKExcludeSubdomainFromParentPolicy":true}}}
            """)
        let api = try await verify(["--pin-file", file])
        #expect(api.status == 0, "\(api.out)\(api.err)")
        #expect(api.err.contains("exempts api.example.com from pinning"))
        let www = try await verify(host: "www.example.com", ["--pin-file", file])
        #expect(www.status == 1)
        #expect(www.out.contains("pinMismatch"))
    }

    /// An Android domain-config with an empty pin-set is not pinned, as on Android, where it failed as a mismatch.
    @Test func anAndroidDomainConfigWithAnEmptyPinSetIsValidatedOnly() async throws {
        let file = try dir.write("nsc.xml", """
            <network-security-config><domain-config><domain includeSubdomains="true">example.com</domain>
            <pin-set><pin digest="SHA-256">\(unrelated)</pin></pin-set>
            <domain-config><domain>api.example.com</domain><pin-set></pin-set></domain-config></domain-config></network-security-config>
            """)
        let r = try await verify(["--pin-file", file])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.err.contains("exempts api.example.com from pinning"))
        #expect(try await verify(host: "www.example.com", ["--pin-file", file]).status == 1)
    }

    /// OkHttp lines: the pins of every matching pattern apply, so the broader pattern's pin passes for api.example.com.
    @Test func anOkHttpFileAppliesEveryMatchingPattern() async throws {
        let file = try dir.write("pins.txt", "**.example.com sha256/\(intermediate) sha256/\(unrelated2)\napi.example.com sha256/\(unrelated) sha256/\(unrelated2)\n")
        let r = try await verify(["--pin-file", file])
        #expect(r.status == 0, "\(r.out)\(r.err)")
    }

    /// ATS, TrustKit, OkHttp and Android leave a host their configuration does not list unpinned, and so does the
    /// CLI: the chain is validated only, with a warning that names the host (it exited 2). The patterns it lists are
    /// bounded however many the file holds.
    @Test func aHostTheFileDoesNotCoverIsValidatedOnlyWithAWarning() async throws {
        let lines = (0..<5000).map { "host\($0).example.org sha256/\(unrelated) sha256/\(unrelated2)" }.joined(separator: "\n")
        let file = try dir.write("pins.txt", lines + "\n")
        let r = try await verify(["--pin-file", file])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.err.contains("warning:") && r.err.contains("pins nothing for api.example.com"))
        #expect(r.err.contains("host0.example.org") && r.err.contains("and 4992 more"))
        #expect(r.err.utf8.count < 1000)
        // A chain that fails validation still fails.
        #expect(try await verify(host: "mail.example.com", ["--pin-file", file]).status == 1)
        // With --pin, those pins are still checked.
        let pinned = try await verify(["--pin-file", file, "--pin", "sha256/\(unrelated)"])
        #expect(pinned.status == 1)
        #expect(pinned.err.contains("only the pins given directly are checked"))
        // Without --host, a file of many hosts needs one chosen, and the list is bounded there too.
        let chain = try dir.write("chain.pem", pki.leaf.pem + pki.intermediate.pem)
        let output = Output.capture()
        #expect(await ATSCommand.run(arguments: ["verify", chain, "--policy", "basic", "--pin-file", file], output: output) == 2)
        #expect(output.standardError.contains("give --host") && output.standardError.utf8.count < 1000)
    }

    /// The pin file's report URIs reach the evaluator, which `ats fetch` gives its reporter (they were dropped).
    @Test func thePinFilesReportURIsReachTheEvaluator() throws {
        let file = try dir.write("tk.json", """
            {"TSKPinnedDomains":{"api.example.com":{"TSKReportUris":["https://report.example.com/pins"],"TSKPublicKeyHashes":["\(unrelated)","\(unrelated2)"]}}}
            """)
        let options = try PinOptions.parse(["--pin-file", file])
        let evaluator = try options.evaluator(for: "api.example.com", validation: DefaultTrustEvaluator(), output: Output.capture())
        #expect(evaluator?.pinnedHost.pinSet.reportURIs == ["https://report.example.com/pins"])
    }

    // MARK: --pin

    /// A legacy sha1/ --pin is accepted with a warning, as a sha1/ pin in a --pin-file is.
    @Test func aLegacySHA1PinIsAcceptedWithAWarning() async throws {
        let sha1 = PinningFixtures.sha1Pin(pki.intermediate)
        let r = try await verify(["--pin", sha1.description])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.err.contains("warning: --pin \(sha1) is a legacy SHA-1 pin"))
    }

    /// --pin hashes are always enforced: beside a report-only or expired pin file they are a set of their own, not
    /// demoted with the file's pins. Beside an enforced file without an expiry they join its set, so any pin passes.
    @Test func explicitPinsStayEnforced() async throws {
        let reportOnly = try dir.write("report.json", """
            {"TSKPinnedDomains":{"api.example.com":{"TSKEnforcePinning":false,"TSKPublicKeyHashes":["\(unrelated)","\(unrelated2)"]}}}
            """)
        let expired = try dir.write("expired.json", """
            {"TSKPinnedDomains":{"api.example.com":{"TSKExpirationDate":"2020-03-01","TSKPublicKeyHashes":["\(unrelated)","\(unrelated2)"]}}}
            """)
        for file in [reportOnly, expired] {
            let wrong = try await verify(["--pin-file", file, "--pin", "sha256/\(unrelated)"])
            #expect(wrong.status == 1, "\(file): \(wrong.out)")
            #expect(wrong.out.contains("pinMismatch"))
            let right = try await verify(["--pin-file", file, "--pin", "sha256/\(intermediate)"])
            #expect(right.status == 0, "\(file): \(right.out)\(right.err)")
        }
        // The report-only file's own mismatch is still noted, not enforced.
        let noted = try await verify(["--pin-file", reportOnly, "--pin", "sha256/\(intermediate)", "--json"])
        #expect(noted.out.contains("report only"))
        let enforced = try dir.write("enforced.json", """
            {"TSKPinnedDomains":{"api.example.com":{"TSKPublicKeyHashes":["\(intermediate)","\(unrelated2)"]}}}
            """)
        #expect(try await verify(["--pin-file", enforced, "--pin", "sha256/\(unrelated)"]).status == 0, "one enforced set: any pin passes")
    }
}
