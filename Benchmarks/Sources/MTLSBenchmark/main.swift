import ATSTestServers
import BenchmarkSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import TransportServer
import TransportTrust

// Mutual-TLS server figures (bench/mtls.sh runs them beside nginx):
//
//   MTLSBenchmark serve --client-anchors F --server-cert F --server-key F --port N [--cold]
//       `ats serve --mtls`'s server, with an engine that caches validated paths, or none (--cold). Prints "ready".
//   MTLSBenchmark handshakes --port N --ca F --client-cert F --client-key F [--seconds S] [--concurrency C]
//       Full handshakes per second against 127.0.0.1:N, each followed by one request and the first bytes of its answer
//       (under TLS 1.3 the server's verdict on the client comes after the client's handshake is over).
//   MTLSBenchmark verify --client-anchors F --client-cert F [--seconds S]
//       The verification a handshake runs, without TLS: ClientCertificateVerifier on the client's chain, with a cold
//       engine (no cache) and a cached one.
//   MTLSBenchmark refusals --client-anchors F --server-cert F --server-key F --ca F --client-cert F --client-key F [--count N]
//       N refused handshakes (a client from another CA) against an in-process server; RSS as they go.

let usage = "usage: MTLSBenchmark serve … | handshakes … | refusals [--count N]"

struct Files {
    var anchors = "", serverCert = "", serverKey = "", clientCert = "", clientKey = "", ca = ""
}

func loadServer(_ files: Files, cold: Bool, logger: Logger) throws -> MutualTLSServer {
    let policy = ClientVerificationPolicy(anchors: try CertificateLoader.certificates(atPath: files.anchors))
    return try MutualTLSServer(certificateChain: try NIOSSLCertificate.fromPEMFile(files.serverCert),
                               privateKey: try NIOSSLPrivateKey(file: files.serverKey, format: .pem), policy: policy,
                               engine: cold ? TrustEngine(cacheCapacity: 0) : TrustEngine(), logger: logger)
}

/// Connects, handshakes, sends one request and waits for the first bytes of the answer (or the close).
final class FirstBytes: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let promise: EventLoopPromise<Bool>
    init(promise: EventLoopPromise<Bool>) { self.promise = promise }
    func channelActive(context: ChannelHandlerContext) {
        let request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: request)), promise: nil)
        context.fireChannelActive()
    }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        promise.succeed(true)
        context.close(promise: nil)
    }
    func channelInactive(context: ChannelHandlerContext) { promise.succeed(false) }
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.succeed(false)
        context.close(promise: nil)
    }
}

func exchange(port: Int, context: NIOSSLContext, group: any EventLoopGroup) async -> Bool {
    let loop = group.next()
    let promise = loop.makePromise(of: Bool.self)
    do {
        _ = try await ClientBootstrap(group: loop).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: nil))
                try channel.pipeline.syncOperations.addHandler(FirstBytes(promise: promise))
            }
        }.connect(host: "127.0.0.1", port: port).get()
    } catch {
        promise.succeed(false)
    }
    return (try? await promise.futureResult.get()) ?? false
}

func clientContext(ca: String, cert: String, key: String, verifyServer: Bool = true) throws -> NIOSSLContext {
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(ca))
    tls.certificateVerification = verifyServer ? .noHostnameVerification : .none
    tls.certificateChain = try NIOSSLCertificate.fromPEMFile(cert).map { .certificate($0) }
    tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
    return try NIOSSLContext(configuration: tls)
}

/// Refusal log lines, counted rather than printed.
let refusalLines = NIOLockedValueBox(0)
let countingLogger = Logger(label: "bench") { _ in CountingLogHandler() }

/// Counts the server's log lines (one per refusal) instead of writing them.
struct CountingLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
             function: String, line: UInt) {
        refusalLines.withLockedValue { $0 += 1 }
    }
}

do {
    var args = BenchmarkArguments(CommandLine.arguments.dropFirst())
    guard let mode = args.next() else { throw BenchmarkError(description: "name a benchmark") }
    var files = Files()
    var port = 0, seconds = 5.0, concurrency = 4, count = 10_000
    var cold = false
    while let a = args.next() {
        switch a {
        case "--client-anchors": files.anchors = try args.value(for: a, expected: "a file") { $0 }
        case "--server-cert": files.serverCert = try args.value(for: a, expected: "a file") { $0 }
        case "--server-key": files.serverKey = try args.value(for: a, expected: "a file") { $0 }
        case "--client-cert": files.clientCert = try args.value(for: a, expected: "a file") { $0 }
        case "--client-key": files.clientKey = try args.value(for: a, expected: "a file") { $0 }
        case "--ca": files.ca = try args.value(for: a, expected: "a file") { $0 }
        case "--port": port = try args.value(for: a, expected: "a port") { Int($0) }
        case "--seconds": seconds = try args.seconds()
        case "--concurrency": concurrency = try args.value(for: a, expected: "1 to 256") { Int($0).flatMap { (1...256).contains($0) ? $0 : nil } }
        case "--count": count = try args.value(for: a, expected: "a positive count") { Int($0).flatMap { $0 > 0 ? $0 : nil } }
        case "--cold": cold = true
        default: throw BenchmarkError(description: "unknown argument '\(a)'")
        }
    }
    switch mode {
    case "serve":
        let server = try await VerdictServer.start(try loadServer(files, cold: cold, logger: countingLogger), port: port)
        FileHandle.standardOutput.write(Data("ready \(server.port)\n".utf8))
        // Until killed.
        while true { try await Task.sleep(for: .seconds(3600)) }
    case "handshakes":
        let context = try clientContext(ca: files.ca, cert: files.clientCert, key: files.clientKey)
        let group = MultiThreadedEventLoopGroup.singleton
        let failures = NIOLockedValueBox(0)
        let (target, parallel) = (port, concurrency)
        let perSecond = try await rate(seconds, batch: concurrency) {
            await withTaskGroup(of: Bool.self) { tasks in
                for _ in 0..<parallel { tasks.addTask { await exchange(port: target, context: context, group: group) } }
                for await ok in tasks where !ok { failures.withLockedValue { $0 += 1 } }
            }
        }
        print(String(format: "%.0f handshakes/s (concurrency %d, %d failed)", perSecond, concurrency, failures.withLockedValue { $0 }))
    case "verify":
        let anchors = try CertificateLoader.certificates(atPath: files.anchors)
        let chain = try CertificateLoader.certificates(atPath: files.clientCert).map(\.der)
        for (name, engine) in [("cold", TrustEngine(cacheCapacity: 0)), ("cached", TrustEngine())] {
            let verifier = ClientCertificateVerifier(policy: ClientVerificationPolicy(anchors: anchors), engine: engine)
            guard await verifier.verify(chain).isVerified else { throw BenchmarkError(description: "the client chain does not verify") }
            let perSecond = try await rate(seconds) { _ = await verifier.verify(chain) }
            print(String(format: "verifier, %@: %.0f verifications/s", name, perSecond))
        }
    case "refusals":
        // Client PKI: the server trusts one CA, the client comes from another. Written by bench/mtls.sh.
        let server = try await VerdictServer.start(try loadServer(files, cold: false, logger: countingLogger))
        let context = try clientContext(ca: files.ca, cert: files.clientCert, key: files.clientKey)
        let group = MultiThreadedEventLoopGroup.singleton
        var accepted = 0
        var marks: [(Int, Int)] = []
        let batch = 8
        var done = 0
        while done < count {
            await withTaskGroup(of: Bool.self) { tasks in
                for _ in 0..<min(batch, count - done) { tasks.addTask { await exchange(port: server.port, context: context, group: group) } }
                for await ok in tasks where ok { accepted += 1 }
            }
            done += min(batch, count - done)
            if done % 1000 < batch || done == count { marks.append((done, residentKiB())) }
        }
        await server.shutdown()
        for (n, kib) in marks { print("after \(n) refused handshakes: RSS \(kib / 1024) MiB (\(kib) KiB)") }
        print("answered (should be 0): \(accepted); refusal log lines: \(refusalLines.withLockedValue { $0 })")
    default:
        throw BenchmarkError(description: "unknown benchmark '\(mode)'")
    }
} catch {
    FileHandle.standardError.write(Data("MTLSBenchmark: \(error)\n\(usage)\n".utf8))
    exit(2)
}
