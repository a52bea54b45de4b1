import Foundation
import SwiftASN1
import TransportTrust

/// Runs the 249 tests of NIST's PKITS (a `tests.json` and its `certs/`, as `../shared/conformance/pkits/` holds them)
/// in this process: each under the basic policy with its own RFC 5280 initial inputs, at the suite's validation
/// time, with its root as the only anchor and revocation checked hard-fail against the test's CRLs. Tests this verifier cannot decide are recorded as skipped, with why.
struct PKITSRunner {
    var directory: String
    var outputPath: String
    var filter: String?
    /// A test still running after this long is recorded as a hang.
    var timeout: Duration = .seconds(20)

    struct Test: Decodable, Sendable {
        var id: String
        var section: String
        var certs: [String]
        var crls: [String]
        var valid: Bool
        var initial_policy_set: [String]
        var initial_explicit_policy: Bool
        var initial_policy_mapping_inhibit: Bool
        var initial_any_policy_inhibit: Bool
    }

    struct Suite: Decodable {
        var validation_time: String
        var tests: [Test]
    }

    struct Result: Encodable, Sendable {
        var id: String
        var section: String
        /// "valid" or "invalid", as PKITS expects.
        var expected: String
        /// "trusted", "refused", "skipped" or "hang".
        var actual: String
        var context: String
    }

    struct Results: Encodable {
        var version = 1
        var suite = "NIST PKITS 1.0.1"
        var harness: String
        var results: [Result]
    }

    /// Sections and tests skipped, with the reason: what this verifier does not implement.
    static func skipReason(_ test: Test) -> String? {
        if ["4.1.4", "4.1.5", "4.1.6"].contains(test.section) { return "DSA with SHA-1: swift-crypto has no DSA, and SHA-1 signatures are refused by design" }
        return nil
    }

    func run(output: Output) async -> Int32 {
        let suite: Suite
        let file = URL(fileURLWithPath: directory).appendingPathComponent("tests.json").path
        do {
            suite = try JSONDecoder().decode(Suite.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            output.error("ats verify --pkits: cannot read '\(file)' as a PKITS tests.json (\(error)); give the directory that holds tests.json and certs/\n")
            return 2
        }
        guard let time = RFC3339.parse(suite.validation_time) else {
            output.error("ats verify --pkits: '\(file)' has an unreadable validation_time '\(suite.validation_time)'\n")
            return 2
        }
        let tests = suite.tests.filter { t in filter.map { t.id.contains($0) } ?? true }
        let start = ContinuousClock.now
        let engine = TrustEngine(cacheCapacity: 0)
        let watchdog = Watchdog<Result>(timeout: timeout)
        let watching = Task { await watchdog.watch(every: timeout / 4) }
        var results: [Result] = []
        for test in tests {
            let hang = Result(id: test.id, section: test.section, expected: test.valid ? "valid" : "invalid", actual: "hang",
                              context: "no verdict within \(timeout)")
            let directory = directory
            results.append(await watchdog.run({ await Self.run(test, directory: directory, time: time, engine: engine) }, hang: hang))
        }
        watching.cancel()
        let elapsed = ContinuousClock.now - start
        let doc = Results(harness: "swift-transport-security-\(TransportSecurityVersion.current)", results: results)
        guard ConformanceResults.write(doc, to: outputPath, mode: "pkits", output: output, pretty: true) else { return 2 }
        let summary = ConformanceResults.summary(results.map(\.actual))
        output.write("pkits: \(results.count) tests in \(elapsed.formatted(.units(allowed: [.seconds, .milliseconds]))): \(summary); results in \(outputPath) (score with scripts/score-pkits.py)\n")
        return 0
    }

    static func run(_ test: Test, directory: String, time: Date, engine: TrustEngine) async -> Result {
        func result(_ actual: String, _ context: String) -> Result {
            Result(id: test.id, section: test.section, expected: test.valid ? "valid" : "invalid", actual: actual, context: context)
        }
        if let reason = skipReason(test) { return result("skipped", reason) }
        guard test.certs.count >= 2 else { return result("skipped", "the test names no path below its anchor") }
        var certificates: [InputCertificate] = []
        for name in test.certs {
            let path = URL(fileURLWithPath: directory).appendingPathComponent("certs").appendingPathComponent(name).path
            do { certificates += try CertificateLoader.certificates(atPath: path) } catch {
                return result("refused", "cannot read \(name): \(error)")
            }
        }
        var crls: [CertificateRevocationList] = []
        for name in test.crls {
            let path = URL(fileURLWithPath: directory).appendingPathComponent("crls").appendingPathComponent(name).path
            do { crls.append(try CertificateRevocationList(bytes: Array(try InputFile.read(path)))) } catch {
                return result("refused", "cannot read \(name): \(error)")
            }
        }
        var acceptable = Set<ASN1ObjectIdentifier>()
        for text in test.initial_policy_set {
            guard let oid = try? ASN1ObjectIdentifier(dotRepresentation: text) else { return result("skipped", "unreadable policy OID \(text)") }
            acceptable.insert(oid)
        }
        var policy = TrustPolicy.basicX509
        // RFC 5280 sets no depth limit; the path builder's own budget still bounds the search.
        policy.maximumIntermediates = nil
        policy.certificatePolicies = CertificatePolicyOptions(
            acceptablePolicies: acceptable, requireExplicitPolicy: test.initial_explicit_policy,
            inhibitPolicyMapping: test.initial_policy_mapping_inhibit, inhibitAnyPolicy: test.initial_any_policy_inhibit)
        // The suite checks revocation with the CRLs it supplies: every certificate below the anchor needs a status.
        policy.revocation = RevocationOptions(mode: .hard, crls: crls, methods: .crl)
        // Leaf first, then the intermediates from the leaf up, as a server would send them.
        let trust = ServerTrust(chain: Array(certificates.dropFirst().reversed()), anchors: TrustAnchors(custom: [certificates[0]], anchorsOnly: true),
                                policy: policy, validationTime: time)
        let verdict = await engine.evaluate(trust)
        if verdict.isTrusted { return result("trusted", "trusted") }
        let reasons = verdict.failures.prefix(3).map { "\($0.code.rawValue): \($0.message)" }.joined(separator: "; ")
        return result("refused", String(reasons.prefix(600)))
    }
}
