import ATSCommandLine
import Foundation
import TestSupport
import Testing
import X509

/// `ats verify --pkits` on a small suite of its own in the PKITS layout: tests.json and certs/ (DER).
@Suite(.cpuBound) struct PKITSRunnerTests {
    let dir = try! TemporaryDirectory()

    func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
        let output = Output.capture(color: false)
        let status = await ATSCommand.run(arguments: arguments, output: output)
        return (status, output.standardOutput, output.standardError)
    }

    func test(_ id: String, certs: [String], valid: Bool, explicit: Bool = false, policies: [String] = ["2.5.29.32.0"],
              crls: [String] = []) -> [String: Any] {
        ["id": id, "section": String(id.split(separator: " ")[0]), "certs": certs, "crls": crls, "valid": valid,
         "initial_policy_set": policies, "initial_explicit_policy": explicit, "initial_policy_mapping_inhibit": false,
         "initial_any_policy_inhibit": false, "user_constrained_policy_set": []]
    }

    @Test func runsEveryTestWithItsInputsAndCRLs() async throws {
        typealias P = PolicyExtension
        let root = PKI.root("PKITS Root")
        let ca = root.intermediate("Policy CA", extra: [P.policies([P.oid(1)])])
        let leaf = ca.leaf(extra: [P.policies([P.oid(1)])])
        try FileManager.default.createDirectory(atPath: dir.file("certs"), withIntermediateDirectories: true)
        for (name, cert) in [("Root.crt", root), ("CA.crt", ca), ("EE.crt", leaf)] { _ = try dir.write("certs/\(name)", bytes: cert.der) }
        try FileManager.default.createDirectory(atPath: dir.file("crls"), withIntermediateDirectories: true)
        var revoking = CRLBuilder(issuer: ca)
        revoking.entries = [.revoking(leaf, reason: 1)]
        _ = try dir.write("crls/Root.crl", bytes: CRLBuilder(issuer: root).signed(by: root.key))
        _ = try dir.write("crls/CA.crl", bytes: CRLBuilder(issuer: ca).signed(by: ca.key))
        _ = try dir.write("crls/Revoking.crl", bytes: revoking.signed(by: ca.key))
        let at = ISO8601DateFormatter().string(from: PKI.now)
        let chain = ["Root.crt", "CA.crt", "EE.crt"]
        let suite: [String: Any] = ["suite": "test", "validation_time": at, "notes": "", "tests": [
            test("4.8.1 Valid", certs: chain, valid: true, explicit: true, policies: [P.oid(1).description], crls: ["Root.crl", "CA.crl"]),
            test("4.8.2 Invalid", certs: chain, valid: false, explicit: true, policies: [P.oid(2).description], crls: ["Root.crl", "CA.crl"]),
            test("4.4.1 CRL", certs: chain, valid: false, crls: ["Root.crl"]),
            test("4.4.3 CRL", certs: chain, valid: false, crls: ["Root.crl", "Revoking.crl"]),
            test("4.1.4 DSA", certs: chain, valid: true),
        ]]
        _ = try dir.write("tests.json", bytes: Array(try JSONSerialization.data(withJSONObject: suite)))
        let output = dir.file("results.json")
        let r = await run(["verify", "--pkits", dir.path, "--output", output])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("pkits: 5 tests"), "\(r.out)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any])
        let rows = try #require(doc["results"] as? [[String: Any]])
        let actual = Dictionary(uniqueKeysWithValues: rows.map { ($0["id"] as? String ?? "", $0["actual"] as? String ?? "") })
        #expect(actual == ["4.8.1 Valid": "trusted", "4.8.2 Invalid": "refused", "4.4.1 CRL": "refused", "4.4.3 CRL": "refused", "4.1.4 DSA": "skipped"])
        let refused = try #require(rows.first { $0["id"] as? String == "4.8.2 Invalid" })
        #expect((refused["context"] as? String)?.contains("certificatePolicy") == true)
        // Hard-fail: a certificate without a CRL is refused, and one that a CRL lists is revoked.
        let missing = try #require(rows.first { $0["id"] as? String == "4.4.1 CRL" })
        #expect((missing["context"] as? String)?.contains("revocationUnknown: no CRL covers") == true, "\(missing)")
        let revoked = try #require(rows.first { $0["id"] as? String == "4.4.3 CRL" })
        #expect((revoked["context"] as? String)?.contains("revoked: ") == true, "\(revoked)")
    }

    @Test func inputErrorsExitTwoWithTheFix() async throws {
        let noOutput = await run(["verify", "--pkits", dir.path])
        #expect(noOutput.status == 2)
        #expect(noOutput.err.contains("--pkits needs --output"))
        let withInputs = await run(["verify", "--pkits", dir.path, "--output", dir.file("r.json"), "--require-explicit-policy"])
        #expect(withInputs.status == 2)
        #expect(withInputs.err.contains("its own initial policy inputs"))
        let missing = await run(["verify", "--pkits", dir.file("nowhere"), "--output", dir.file("r.json")])
        #expect(missing.status == 2)
        #expect(missing.err.contains("give the directory that holds tests.json and certs/"), "\(missing.err)")
    }
}
