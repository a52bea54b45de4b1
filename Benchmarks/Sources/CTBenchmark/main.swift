import BenchmarkSupport
import Crypto
import Foundation
import TransportTrust

// Certificate Transparency's cost: cold and cached evaluation of the four real chains with embedded SCTs, at their
// check times, with CT enforced and with CT off, beside the bare ECDSA P-256 verification the SCTs need.
// Run under `taskset -c 0` (bench/ct.sh does).
//
//   CTBenchmark --vectors DIR [--seconds S] [--json] [--profile FILE]
//   --profile loops cold CT-on evaluations of one chain only, for `perf record`.
//   DIR holds chains.json, the chains and roots.pem (Tests/TransportTrustTests/Fixtures/AppleChains).

struct Vector: Decodable {
    var file: String
    var example_check_time: String
}

struct Figure: Codable {
    var chain: String
    var scts: Int
    var coldCTOffPerSecond: Double
    var coldCTOnPerSecond: Double
    var cachedCTOnPerSecond: Double
    var cachedOverCold: Double
    /// What CT added to one cold evaluation, in microseconds, and that as a number of bare P-256 verifications.
    var ctMicroseconds: Double
    var ctInP256Verifications: Double
}

struct Report: Codable {
    var p256VerifyMicroseconds: Double
    var figures: [Figure]
}

func evaluate(_ engine: TrustEngine, _ trust: ServerTrust) async throws {
    let verdict = await engine.evaluate(trust)
    guard verdict.isTrusted, verdict.certificateTransparency.map({ $0.status == .compliant || trust.policy.certificateTransparency.mode == .off }) ?? true
    else { throw BenchmarkError(description: "chain not trusted: \(verdict.failures.map(\.message))") }
}

do {
    var args = BenchmarkArguments(CommandLine.arguments.dropFirst())
    var seconds = 2.0, dir: String?, json = false, profileFile: String?
    while let a = args.next() {
        switch a {
        case "--seconds": seconds = try args.seconds()
        case "--vectors": dir = try args.value(for: a, expected: "a directory") { $0 }
        case "--json": json = true
        case "--profile": profileFile = try args.value(for: a, expected: "a chain file name from chains.json") { $0 }
        default: throw BenchmarkError(description: "unknown argument '\(a)'")
        }
    }
    guard let dir else { throw BenchmarkError(description: "--vectors DIR is required") }
    let folder = URL(fileURLWithPath: dir)
    let vectors = try JSONDecoder().decode([Vector].self, from: Data(contentsOf: folder.appendingPathComponent("chains.json")))
    let roots = SystemRoots.load(files: [folder.appendingPathComponent("roots.pem").path], directories: [])
    let anchors = TrustAnchors(custom: [], anchorsOnly: false, systemRoots: roots)

    // The floor: one ECDSA P-256 verification over a message the size of a precertificate entry.
    let key = P256.Signing.PrivateKey()
    let message = [UInt8](repeating: 0x5a, count: 1500)
    let signature = try key.signature(for: message)
    let verifyRate = try await rate(seconds) { if !key.publicKey.isValidSignature(signature, for: message) { throw BenchmarkError(description: "bad") } }
    let verifyMicroseconds = 1e6 / verifyRate

    var figures: [Figure] = []
    for v in vectors where profileFile == nil || profileFile == v.file {
        let chain = try CertificateLoader.certificates(atPath: folder.appendingPathComponent(v.file).path)
        let time = try Date(v.example_check_time, strategy: .iso8601)
        func trust(_ mode: CertificateTransparencyOptions.Mode) -> ServerTrust {
            var policy = TrustPolicy.ssl(host: nil)
            policy.certificateTransparency = CertificateTransparencyOptions(mode: mode)
            return ServerTrust(certificates: chain.map(\.der), anchors: anchors, policy: policy, validationTime: time)
        }
        let on = trust(.enforce), off = trust(.off)
        if profileFile != nil {
            let cold = TrustEngine(cacheCapacity: 0)
            print("\(v.file): cold CT on \(Int(try await rate(seconds) { try await evaluate(cold, on) }))/s")
            exit(0)
        }
        let scts = await TrustEngine(cacheCapacity: 0).evaluate(on).certificateTransparency?.scts.count ?? 0
        let cold = TrustEngine(cacheCapacity: 0)
        let coldOff = try await rate(seconds) { try await evaluate(cold, off) }
        let coldOn = try await rate(seconds) { try await evaluate(cold, on) }
        let cached = TrustEngine()
        let cachedOn = try await rate(seconds) { try await evaluate(cached, on) }
        let ct = 1e6 / coldOn - 1e6 / coldOff
        figures.append(Figure(chain: v.file, scts: scts, coldCTOffPerSecond: coldOff.rounded(), coldCTOnPerSecond: coldOn.rounded(),
                              cachedCTOnPerSecond: cachedOn.rounded(), cachedOverCold: (cachedOn / coldOn * 10).rounded() / 10,
                              ctMicroseconds: (ct * 10).rounded() / 10, ctInP256Verifications: (ct / verifyMicroseconds * 100).rounded() / 100))
    }
    let report = Report(p256VerifyMicroseconds: (verifyMicroseconds * 10).rounded() / 10, figures: figures)
    if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    } else {
        print("one ECDSA P-256 verification: \(report.p256VerifyMicroseconds) µs")
        for f in figures {
            print("\(f.chain): \(f.scts) SCTs; cold CT off \(Int(f.coldCTOffPerSecond))/s, CT on \(Int(f.coldCTOnPerSecond))/s "
                + "(+\(f.ctMicroseconds) µs = \(f.ctInP256Verifications) P-256 verifications); cached CT on \(Int(f.cachedCTOnPerSecond))/s "
                + "(\(f.cachedOverCold)× cold)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("CTBenchmark: \(error)\nusage: CTBenchmark --vectors DIR [--seconds S] [--json]\n".utf8))
    exit(2)
}
