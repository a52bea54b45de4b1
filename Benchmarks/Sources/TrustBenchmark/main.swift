import BenchmarkSupport
import Foundation
@_spi(Benchmarks) import TransportTrust
import X509

// Cold and cached evaluations per second, with the SSL policy and a host name, on the calling thread.
// Run under `taskset -c 0` for one core (bench/run.sh does). Peers get the same chains via --write.
//
//   TrustBenchmark [--seconds S] [--write DIR] [--json]
//   TrustBenchmark --profile cold|cached|warm|pinned-cached|floor|warm-floor [--chain p256|rsa2048] [--seconds S]   (one loop, for `perf record`)
//     [--chains DIR]   on the chains --write wrote rather than new ones: builds compared on the very same certificates
//     [--cpu]          also this process's CPU per evaluation over the timed loop, on a line before the rate (bench/peers.sh)
//
// `floor` is not an evaluation: it only parses the leaf and the intermediate with swift-certificates and verifies
// the two signatures, the least any evaluation built on swift-certificates does, to show what a cold one can reach.
// `warm-floor` is the same for a warm one: it parses the leaf and verifies its one signature with the intermediate's
// key, parsed once before the loop; no rule, no path, no time.
// `warm` evaluates new leaves under one intermediate the engine has seen, remembering no path: what a client that meets
// many hosts under a few CAs pays per host. It makes its own chain of the kind asked (it needs the intermediate's key to
// issue leaves), with the same algorithms and extensions as the chain --chains names.

struct Options {
    var seconds = 2.0
    var writeDir: String?
    var json = false
    var profile: String?
    var profileChain = BenchChain.KeyKind.p256
    var chainsDir: String?
    var cpu = false
}

struct Figure: Codable {
    var chain: String
    var coldPerSecond: Double
    var cachedPerSecond: Double
    var cachedOverCold: Double
    /// The same, through a pin-set evaluator pinning the root's SPKI hash (plus a backup pin).
    var pinnedColdPerSecond: Double
    var pinnedCachedPerSecond: Double
}

struct MemoryFigure: Codable {
    var cacheCapacity: Int
    var chainsEvaluated: Int
    var cacheEntries: Int
    var rssKiBStart: Int
    var rssKiBAtCapacity: Int
    var rssKiBEnd: Int
}

struct Report: Codable {
    var harness = "swift-transport-security"
    var figures: [Figure]
    var memory: MemoryFigure
}

func parse(_ arguments: ArraySlice<String>) throws -> Options {
    var options = Options()
    var args = BenchmarkArguments(arguments)
    while let a = args.next() {
        switch a {
        case "--seconds": options.seconds = try args.seconds()
        case "--write": options.writeDir = try args.value(for: a, expected: "a directory") { $0 }
        case "--json": options.json = true
        case "--cpu": options.cpu = true
        case "--chains": options.chainsDir = try args.value(for: a, expected: "a directory --write wrote") { $0 }
        case "--profile":
            options.profile = try args.value(for: a, expected: "cold, cached, warm, pinned-cached, floor or warm-floor") {
                ["cold", "cached", "warm", "pinned-cached", "floor", "warm-floor"].contains($0) ? $0 : nil
            }
        case "--chain":
            options.profileChain = try args.value(for: a, expected: "p256 or rsa2048") {
                ["p256": BenchChain.KeyKind.p256, "rsa2048": .rsa2048][$0]
            }
        default: throw BenchmarkError(description: "unknown argument '\(a)'")
        }
    }
    return options
}

func mustTrust(_ engine: TrustEngine, _ trust: ServerTrust) async throws {
    try await mustTrust(DefaultTrustEvaluator(engine: engine), trust)
}

func mustTrust(_ evaluator: some ServerTrustEvaluating, _ trust: ServerTrust) async throws {
    let verdict = await evaluator.evaluate(trust)
    guard verdict.isTrusted else {
        throw BenchmarkError(description: "benchmark chain not trusted: \(verdict.failures.map(\.message))")
    }
}

/// Loops one path on one chain, so a profiler sees nothing else.
func profile(_ which: String, chain kind: BenchChain.KeyKind, options: Options) async throws -> (perSecond: Double, cpuPerIteration: Double) {
    let chain = try options.chainsDir.map { try BenchChain.read(kind, from: URL(fileURLWithPath: $0)) } ?? BenchChain.make(kind)
    let seconds = options.seconds
    let root = try InputCertificate(der: BenchChain.der(chain.root))
    let trust = ServerTrust(certificates: [try BenchChain.der(chain.leaf), try BenchChain.der(chain.intermediate)],
                            anchors: TrustAnchors(custom: [root]), policy: .ssl(host: try PeerName(BenchChain.host)))
    if which == "floor" {
        let leafDER = try BenchChain.der(chain.leaf), intermediateDER = try BenchChain.der(chain.intermediate)
        return try await rateAndCPU(seconds) {
            let leaf = try Certificate(derEncoded: leafDER), intermediate = try Certificate(derEncoded: intermediateDER)
            guard intermediate.publicKey.isValidSignature(leaf.signature, for: leaf),
                  chain.root.publicKey.isValidSignature(intermediate.signature, for: intermediate)
            else { throw BenchmarkError(description: "benchmark chain's signatures do not verify") }
        }
    }
    if which == "warm-floor" {
        let leafDER = try BenchChain.der(chain.leaf)
        let issuerKey = try Certificate(derEncoded: BenchChain.der(chain.intermediate)).publicKey
        return try await rateAndCPU(seconds) {
            let leaf = try Certificate(derEncoded: leafDER)
            guard issuerKey.isValidSignature(leaf.signature, for: leaf)
            else { throw BenchmarkError(description: "benchmark chain's leaf signature does not verify") }
        }
    }
    if which == "warm" { return try await warm(kind, seconds: seconds) }
    let engine = TrustEngine(cacheCapacity: which == "cold" ? 0 : 4096)
    if which == "pinned-cached" {
        let pinned = PinSetEvaluator(PinnedHost(try HostPattern(BenchChain.host), PinSet([try Pin.spkiSHA256(of: root)], scope: .any)),
                                     validation: DefaultTrustEvaluator(engine: engine))
        return try await rateAndCPU(seconds) { try await mustTrust(pinned, trust) }
    }
    return try await rateAndCPU(seconds) { try await mustTrust(engine, trust) }
}

func speed(_ kind: BenchChain.KeyKind, options: Options) async throws -> Figure {
    let chain = try BenchChain.make(kind)
    if let dir = options.writeDir { try chain.write(to: URL(fileURLWithPath: dir)) }
    let anchors = TrustAnchors(custom: [try InputCertificate(der: BenchChain.der(chain.root))])
    let trust = ServerTrust(certificates: [try BenchChain.der(chain.leaf), try BenchChain.der(chain.intermediate)],
                            anchors: anchors, policy: .ssl(host: try PeerName(BenchChain.host)))
    // Cold: with no cache, every evaluation parses, builds the path and verifies both signatures.
    let cold = TrustEngine(cacheCapacity: 0)
    let coldRate = try await rate(options.seconds) { try await mustTrust(cold, trust) }
    let cached = TrustEngine()
    let cachedRate = try await rate(options.seconds) { try await mustTrust(cached, trust) }
    // Pinned: cold hashes every SPKI again (no hash cache); cached reuses the validated path and the hashes.
    let pins = PinSet([try Pin.spkiSHA256(of: InputCertificate(der: BenchChain.der(chain.root))),
                       try Pin(parsing: "sha256/" + String(repeating: "A", count: 43) + "=")], scope: .any)
    var pinnedCold = PinSetEvaluator(PinnedHost(try HostPattern(BenchChain.host), pins), validation: DefaultTrustEvaluator(engine: cold))
    pinnedCold.useOwnHashCache(capacity: 0)
    let pinnedColdRate = try await rate(options.seconds) { try await mustTrust(pinnedCold, trust) }
    var pinnedCached = PinSetEvaluator(PinnedHost(try HostPattern(BenchChain.host), pins), validation: DefaultTrustEvaluator(engine: cached))
    pinnedCached.useOwnHashCache(capacity: 1024)
    let pinnedCachedRate = try await rate(options.seconds) { try await mustTrust(pinnedCached, trust) }
    return Figure(chain: chain.name, coldPerSecond: coldRate.rounded(), cachedPerSecond: cachedRate.rounded(),
                  cachedOverCold: (cachedRate / coldRate * 10).rounded() / 10,
                  pinnedColdPerSecond: pinnedColdRate.rounded(), pinnedCachedPerSecond: pinnedCachedRate.rounded())
}

/// New leaves under a warm intermediate, in turn: one parse and one signature check each, with every rule, and no
/// path remembered (a path cache of 0).
func warm(_ kind: BenchChain.KeyKind, seconds: Double) async throws -> (perSecond: Double, cpuPerIteration: Double) {
    let rootKey = try BenchChain.privateKey(kind), intKey = try BenchChain.privateKey(kind), leafKey = try BenchChain.privateKey(kind)
    let base = try BenchChain.make(kind, leafName: BenchChain.host, rootKey: rootKey, intermediateKey: intKey)
    let anchors = TrustAnchors(custom: [try InputCertificate(der: BenchChain.der(base.root))])
    let intermediate = try BenchChain.der(base.intermediate)
    let policy = TrustPolicy.ssl(host: try PeerName(BenchChain.host))
    var trusts: [ServerTrust] = []
    for _ in 0..<256 {
        let leaf = try BenchChain.issue(subject: BenchChain.host, issuer: "Bench Issuing CA", key: leafKey, signer: intKey, ca: false, kind: kind)
        trusts.append(ServerTrust(certificates: [try BenchChain.der(leaf), intermediate], anchors: anchors, policy: policy))
    }
    let engine = TrustEngine(pathCapacity: 0, intermediateCapacity: 1024)
    var next = 0
    return try await rateAndCPU(seconds) {
        try await mustTrust(engine, trusts[next])
        next = (next + 1) % trusts.count
    }
}

/// Four times the cache's capacity in distinct chains: the LRU must keep entries, and so memory, bounded.
func memory(capacity: Int) async throws -> MemoryFigure {
    let engine = TrustEngine(cacheCapacity: capacity)
    let rootKey = try BenchChain.privateKey(.p256), intKey = try BenchChain.privateKey(.p256)
    let first = try BenchChain.make(.p256, leafName: "host0.\(BenchChain.host)", rootKey: rootKey, intermediateKey: intKey)
    let anchors = TrustAnchors(custom: [try InputCertificate(der: BenchChain.der(first.root))])
    let intermediate = try BenchChain.der(first.intermediate)
    let start = residentKiB()
    var atCapacity = 0
    for i in 0..<(capacity * 4) {
        let name = "host\(i).\(BenchChain.host)"
        let leaf = try BenchChain.issue(subject: name, issuer: "Bench Issuing CA", key: try BenchChain.privateKey(.p256),
                                        signer: intKey, ca: false, kind: .p256)
        try await mustTrust(engine, ServerTrust(certificates: [try BenchChain.der(leaf), intermediate],
                                                anchors: anchors, policy: .ssl(host: try PeerName(name))))
        if i == capacity - 1 { atCapacity = residentKiB() }
    }
    return MemoryFigure(cacheCapacity: capacity, chainsEvaluated: capacity * 4, cacheEntries: engine.cachedPathCount,
                        rssKiBStart: start, rssKiBAtCapacity: atCapacity, rssKiBEnd: residentKiB())
}

do {
    let options = try parse(CommandLine.arguments.dropFirst())
    if let which = options.profile {
        let measured = try await profile(which, chain: options.profileChain, options: options)
        if options.cpu { print(String(format: "cpu: %.2f µs per evaluation", measured.cpuPerIteration * 1e6)) }
        print("\(which): \(Int(measured.perSecond))/s")
        exit(0)
    }
    var figures: [Figure] = []
    for kind in [BenchChain.KeyKind.p256, .rsa2048] { figures.append(try await speed(kind, options: options)) }
    let mem = try await memory(capacity: 1024)
    if options.json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(Report(figures: figures, memory: mem)), as: UTF8.self))
    } else {
        for f in figures {
            print("\(f.chain): cold \(Int(f.coldPerSecond))/s, cached \(Int(f.cachedPerSecond))/s (\(f.cachedOverCold)× cold); "
                + "pinned: cold \(Int(f.pinnedColdPerSecond))/s, cached \(Int(f.pinnedCachedPerSecond))/s")
        }
        print("LRU: \(mem.chainsEvaluated) distinct chains into capacity \(mem.cacheCapacity): \(mem.cacheEntries) cached; RSS \(mem.rssKiBStart) → \(mem.rssKiBAtCapacity) (at capacity) → \(mem.rssKiBEnd) KiB")
    }
} catch {
    FileHandle.standardError.write(Data("TrustBenchmark: \(error)\nusage: TrustBenchmark [--seconds S] [--write DIR] [--json] | --profile cold|cached|warm|pinned-cached|floor|warm-floor [--chain p256|rsa2048] [--seconds S] [--chains DIR]\n".utf8))
    exit(2)
}
