import Foundation
import NIOConcurrencyHelpers
import TransportTrust
import X509

/// Runs the SERVER testcases of an x509-limbo file in this process and writes limbo's result shape.
struct LimboRunner {
    var path: String
    var outputPath: String
    var filter: String?
    /// A case still running after this long is recorded as HANG.
    var timeout: Duration = .seconds(20)

    struct Testcase: Decodable {
        struct PeerNameSpec: Decodable {
            var kind: String
            var value: String
        }
        var id: String
        var features: [String]?
        var validation_kind: String
        var trusted_certs: [String]
        var untrusted_intermediates: [String]
        var peer_certificate: String
        var validation_time: String?
        var extended_key_usage: [String]?
        var expected_peer_name: PeerNameSpec?
        var max_chain_depth: Int?
        var crls: [String]?
    }

    struct Suite: Decodable { var testcases: [Testcase] }

    struct Result: Encodable, Sendable {
        var id: String
        var actual_result: String
        var context: String
    }

    struct Results: Encodable {
        var version = 1
        var harness: String
        var results: [Result]
    }

    func run(output: Output) async -> Int32 {
        let suite: Suite
        let data: Data
        do { data = try InputFile.read(path) } catch {
            output.error("ats verify --limbo: cannot read '\(path)': \(error.reason)\n")
            return 2
        }
        do { suite = try JSONDecoder().decode(Suite.self, from: data) } catch {
            output.error("ats verify --limbo: '\(path)' is not an x509-limbo suite: \(JSONProblem.describe(error, topLevel: "the top level is not a suite object with 'testcases'"))\n")
            return 2
        }
        let cases = suite.testcases.filter { tc in tc.validation_kind == "SERVER" && (filter.map { tc.id.contains($0) } ?? true) }
        let start = ContinuousClock.now
        let engine = TrustEngine(cacheCapacity: 0)
        let anchorSets = AnchorSets()
        var results: [Result] = []
        results.reserveCapacity(cases.count)
        // One case in flight per core: more only queues work, fewer leaves a core idle.
        let inFlight = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let watchdog = Watchdog<Result>(timeout: timeout)
        let watching = Task { await watchdog.watch(every: timeout / 4) }
        await withTaskGroup(of: (Int, Result).self) { group in
            var next = 0
            var collected: [(Int, Result)] = []
            func add() {
                guard next < cases.count else { return }
                let index = next
                let testcase = cases[index]
                next += 1
                let hang = Result(id: testcase.id, actual_result: "HANG", context: "no verdict within \(timeout)")
                group.addTask { (index, await watchdog.run({ await Self.run(testcase, engine: engine, anchorSets: anchorSets) }, hang: hang)) }
            }
            for _ in 0..<inFlight { add() }
            while let done = await group.next() {
                collected.append(done)
                add()
            }
            results = collected.sorted { $0.0 < $1.0 }.map(\.1)
        }
        watching.cancel()
        let elapsed = ContinuousClock.now - start
        let doc = Results(harness: "swift-transport-security-\(TransportSecurityVersion.current)", results: results)
        guard ConformanceResults.write(doc, to: outputPath, mode: "limbo", output: output) else { return 2 }
        let summary = ConformanceResults.summary(results.map(\.actual_result))
        output.write("limbo: \(results.count) SERVER cases in \(elapsed.formatted(.units(allowed: [.seconds, .milliseconds]))): \(summary); results in \(outputPath)\n")
        return 0
    }

    /// The anchor sets of the file, each parsed once. 9,572 of its cases share one root, and an application
    /// loads its anchors once, not per connection; the chains themselves are parsed per case.
    final class AnchorSets: Sendable {
        private let loaded = NIOLockedValueBox<[[String]: TrustAnchors]>([:])

        func anchors(for pems: [String]) throws -> TrustAnchors {
            if let known = loaded.withLockedValue({ $0[pems] }) { return known }
            var certificates: [InputCertificate] = []
            for pem in pems { certificates += try CertificateLoader.certificates(from: Array(pem.utf8), source: "trusted_certs") }
            let anchors = TrustAnchors(custom: certificates, anchorsOnly: true)
            loaded.withLockedValue { $0[pems] = anchors }
            return anchors
        }
    }

    /// One limbo case, from its JSON fields to our inputs in the schema's field order, then its verdict.
    static func run(_ tc: Testcase, engine: TrustEngine, anchorSets: AnchorSets) async -> Result {
        func result(_ actual: String, _ context: String) -> Result { Result(id: tc.id, actual_result: actual, context: context) }
        do {
            let leaf = try CertificateLoader.certificates(from: Array(tc.peer_certificate.utf8), source: "peer_certificate")
            var intermediates: [InputCertificate] = []
            for pem in tc.untrusted_intermediates {
                intermediates += try CertificateLoader.certificates(from: Array(pem.utf8), source: "untrusted_intermediates")
            }
            let anchors = try anchorSets.anchors(for: tc.trusted_certs)
            let policy = try policy(for: tc)
            let time = try tc.validation_time.map { t throws(Settled) in
                guard let parsed = RFC3339.parse(t) else { throw Settled("SKIPPED", "unreadable validation_time \(t)") }
                return parsed
            }
            let trust = ServerTrust(chain: leaf.prefix(1).map { $0 }, additionalIntermediates: intermediates,
                                    anchors: anchors, policy: policy, validationTime: time)
            let verdict = await engine.evaluate(trust)
            if verdict.isTrusted { return result("SUCCESS", "trusted") }
            let reasons = verdict.failures.prefix(3).map { "\($0.code.rawValue): \($0.message)" }.joined(separator: "; ")
            return result("FAILURE", String(reasons.prefix(600)))
        } catch let settled as Settled {
            return result(settled.actual, settled.context)
        } catch {
            return result("FAILURE", "input rejected: \(error)")
        }
    }

    /// A case's result decided from its inputs alone: one this harness skips, or input it refuses to read.
    private struct Settled: Error {
        var actual: String
        var context: String

        init(_ actual: String, _ context: String) {
            self.actual = actual
            self.context = context
        }
    }

    /// The policy a case asks for: the SSL policy for its peer name under the Web PKI profile, with its depth limit,
    /// key purposes and CRLs.
    private static func policy(for tc: Testcase) throws(Settled) -> TrustPolicy {
        var policy = TrustPolicy.ssl(host: try peerName(tc.expected_peer_name))
        // limbo measures conformance to the Web PKI profile, as pyca and webpki are scored.
        policy.profile = .webPKI
        // Apple's TLS server rules stay on (iOS 26), as for any SSL evaluation: RSA ≥ 2048 bits, which parsing
        // already needs, and the lifetime limits, which no limbo leaf exceeds (2026-11-25). Certificate Transparency
        // is off: limbo states no SCT expectations, and its online cases anchor at roots of this machine's store,
        // which count as public (as trustd decides), so CT would judge their SCTs at times limbo chose for X.509.
        policy.certificateTransparency.mode = .off
        if let depth = tc.max_chain_depth { policy.maximumIntermediates = depth }
        if let ekus = tc.extended_key_usage, !ekus.isEmpty {
            policy.requiredExtendedKeyUsages = try ekus.map { name throws(Settled) in
                guard let usage = Self.usages[name] else { throw Settled("SKIPPED", "EKU \(name) is not supported") }
                return usage
            }
        }
        if let pems = tc.crls, !pems.isEmpty {
            let crls = try pems.map { pem throws(Settled) in
                do { return try CertificateRevocationList(bytes: Array(pem.utf8)) } catch {
                    throw Settled("FAILURE", "a CRL is rejected: \(error)")
                }
            }
            // The CRLs given are the issuers' own: every certificate below the anchor needs a status from them.
            policy.revocation = RevocationOptions(mode: .hard, crls: crls, methods: .crl)
        }
        return policy
    }

    /// The key purposes a case may require, by limbo's names.
    private static let usages: [String: ExtendedKeyUsage.Usage] = [
        "serverAuth": .serverAuth, "clientAuth": .clientAuth, "codeSigning": .codeSigning, "emailProtection": .emailProtection,
    ]

    private static func peerName(_ spec: Testcase.PeerNameSpec?) throws(Settled) -> PeerName? {
        guard let spec else { return nil }
        guard spec.kind == "DNS" || spec.kind == "IP" else { throw Settled("SKIPPED", "peer name kind \(spec.kind) is not a server name") }
        do { return try PeerName(spec.value) } catch {
            throw Settled("FAILURE", "the expected peer name is not a valid host: \(error)")
        }
    }
}
