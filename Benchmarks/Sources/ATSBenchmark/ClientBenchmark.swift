import ATSTestServers
import BenchmarkSupport
import Foundation
import NIOSSL
import TransportClient
import TransportTrust

/// HTTPS client figures against a local server: keep-alive requests per second with pinning, beside
/// `curl --pinnedpubkey` and AsyncHTTPClient on the same server; full handshakes per second; memory per idle pooled
/// connection.
///
/// The server runs in a child process (`ATSBenchmark server`), so the CPU and memory measured here are the
/// client's alone, and curl talks to the very same server. Each `FIGURES` line is one scenario for bench/peers.sh.
struct ClientBenchmark {
    struct Options {
        var seconds = 3.0
        var idle = 200
        /// Ours alone, keep-alive only: a run for `perf record`.
        var oursOnly = false
    }

    static let host = "bench.example.test"
    let options: Options

    /// Serves one keep-alive HTTPS endpoint behind a fresh local CA until standard input closes; prints
    /// `PORT PIN` first and writes the root to `DIR/root.pem`.
    static func serve(directory: String) async throws {
        let pki = try LocalPKI()
        let leaf = try pki.leaf(cn: host, ips: [[127, 0, 0, 1]], dns: [host])
        try pki.root.pem.write(toFile: directory + "/root.pem", atomically: true, encoding: .utf8)
        let tls = try LocalServers.serverConfiguration(chain: [leaf, pki.intermediate])
        let server = try await LocalServer.start(tls: tls, response: .text("ok\n"))
        guard let pin = try InputCertificate(der: leaf.der).spkiSHA256Base64 else { throw BenchmarkError(description: "no SPKI hash for the leaf") }
        FileHandle.standardOutput.write(Data("\(server.port) \(pin)\n".utf8))
        // The parent holds our stdin; its end, however it comes, ends us.
        while let _ = readLine() {}
        await server.shutdown()
    }

    func run() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ats-client-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["server", dir]
        let toChild = Pipe(), fromChild = Pipe()
        child.standardInput = toChild
        child.standardOutput = fromChild
        try child.run()
        defer { try? toChild.fileHandleForWriting.close(); child.waitUntilExit() }
        let first = String(decoding: fromChild.fileHandleForReading.availableLine(), as: UTF8.self).split(separator: " ")
        guard first.count == 2, let port = Int(first[0]) else { throw BenchmarkError(description: "the server did not start: '\(first.joined(separator: " "))'") }
        let pin = String(first[1])
        let root = try CertificateLoader.certificates(from: Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/root.pem"))), source: "root.pem")
        let url = "https://\(Self.host):\(port)/"
        print("server: 127.0.0.1:\(port) (child process), P-256 leaf → intermediate → root, pin sha256/\(pin)")

        // Keep-alive, pinned: one connection, requests one after another.
        // Also per CPU second of each client alone (the server's share is in neither), which load on the machine
        // from other processes skews far less than the wall-clock rate.
        let pinned = try client(root: root, pin: pin, idle: 1)
        var requests = 0
        let cpuBefore = cpuSeconds()
        let keepAlive = try await rate(options.seconds, batch: 20) { try await pinned.get(url); requests += 1 }
        let ourCPU = (cpuSeconds() - cpuBefore) / Double(requests)
        await pinned.shutdown()
        if options.oursOnly {
            return print(String(format: "keep-alive, ours only: %.0f req/s, %.1f µs of CPU per request, %d requests", keepAlive, ourCPU * 1e6, requests))
        }
        let curlCount = max(200, Int(keepAlive * options.seconds))
        let curlCPUBefore = cpuSeconds(children: true)
        let curlKeepAlive = try curl(url: url, port: port, root: dir + "/root.pem", pin: pin, count: curlCount, close: false)
        let curlCPU = (cpuSeconds(children: true) - curlCPUBefore) / Double(curlCount)
        // AsyncHTTPClient in this process too, trusting the same root: its CPU is measured the same way as ours.
        let rootPEM = try String(contentsOfFile: dir + "/root.pem", encoding: .utf8)
        let ahcKeepAlive = try await ahcRun(rootPEM: rootPEM, url: url, close: false)
        print(String(format: "keep-alive, pinned: ours %.0f req/s, curl --pinnedpubkey %.0f req/s (%.2f×); AsyncHTTPClient (root only) %.0f req/s (%.2f×)",
                     keepAlive, curlKeepAlive, keepAlive / curlKeepAlive, ahcKeepAlive.rate, keepAlive / ahcKeepAlive.rate))
        print(String(format: "keep-alive, pinned, per CPU second of the client: ours %.0f req, curl %.0f req (%.2f×), AsyncHTTPClient %.0f req (%.2f×)",
                     1 / ourCPU, 1 / curlCPU, curlCPU / ourCPU, 1 / ahcKeepAlive.cpu, ahcKeepAlive.cpu / ourCPU))
        print(String(format: "FIGURES h1-keepalive ours=%.0f curl=%.0f ahc=%.0f ours_cpu_us=%.1f curl_cpu_us=%.1f ahc_cpu_us=%.1f",
                     keepAlive, curlKeepAlive, ahcKeepAlive.rate, ourCPU * 1e6, curlCPU * 1e6, ahcKeepAlive.cpu * 1e6))

        // Full handshakes: no idle connection is kept, so every request connects, handshakes and evaluates.
        let fresh = try client(root: root, pin: pin, idle: 0)
        var connects = 0
        let freshCPUBefore = cpuSeconds()
        let handshakes = try await rate(options.seconds, batch: 20) { try await fresh.get(url); connects += 1 }
        let freshCPU = (cpuSeconds() - freshCPUBefore) / Double(connects)
        await fresh.shutdown()
        let n = max(100, Int(handshakes * options.seconds))
        let curlFullCPUBefore = cpuSeconds(children: true)
        let curlFull = try curl(url: url, port: port, root: dir + "/root.pem", pin: pin, count: n, close: true, sessionCache: false)
        let curlFullCPU = (cpuSeconds(children: true) - curlFullCPUBefore) / Double(n)
        let curlResumed = try curl(url: url, port: port, root: dir + "/root.pem", pin: pin, count: n, close: true, sessionCache: true)
        // `Connection: close` on every request, as curl's runs send: AsyncHTTPClient then connects anew each time.
        let ahcFresh = try await ahcRun(rootPEM: rootPEM, url: url, close: true)
        print(String(format: "new connection per request: ours %.0f full handshakes/s; curl %.0f full, %.0f resumed; AsyncHTTPClient %.0f full",
                     handshakes, curlFull, curlResumed, ahcFresh.rate))
        print("resumed handshakes, ours and AsyncHTTPClient's: none; swift-nio-ssl never resumes a client session, so every connection is a full handshake")
        // curl's figure is its full handshakes (--no-sessionid), the same work as ours and AsyncHTTPClient's.
        print(String(format: "FIGURES new-connection ours=%.0f curl=%.0f ahc=%.0f ours_cpu_us=%.1f curl_cpu_us=%.1f ahc_cpu_us=%.1f",
                     handshakes, curlFull, ahcFresh.rate, freshCPU * 1e6, curlFullCPU * 1e6, ahcFresh.cpu * 1e6))

        // Memory per idle pooled connection.
        let pool = try client(root: root, pin: pin, idle: options.idle)
        try await pool.get(url)
        let before = residentKiB()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<options.idle { group.addTask { try await pool.get(url) } }
            try await group.waitForAll()
        }
        let idle = await pool.idleConnectionCount
        let after = residentKiB()
        await pool.shutdown()
        guard idle > 1 else { throw BenchmarkError(description: "expected idle pooled connections, found \(idle)") }
        print(String(format: "idle pooled connections: %d, RSS %d → %d KiB, %.1f KiB each", idle, before, after, Double(after - before) / Double(idle)))
    }

    /// AsyncHTTPClient's requests per second, one after another, and this process's CPU seconds per request in that run.
    func ahcRun(rootPEM: String, url: String, close: Bool) async throws -> (rate: Double, cpu: Double) {
        let ahc = try AHCPeer.client(rootPEM: rootPEM, host: Self.host, http2: false)
        var requests = 0
        let cpuBefore = cpuSeconds()
        let perSecond: Double
        do {
            perSecond = try await rate(options.seconds, batch: 20) { try await ahc.get(url, close: close); requests += 1 }
        } catch {
            try? await ahc.shutdown()
            throw error
        }
        let cpu = (cpuSeconds() - cpuBefore) / Double(requests)
        try await ahc.shutdown()
        return (perSecond, cpu)
    }

    func client(root: [InputCertificate], pin: String, idle: Int) throws -> HTTPSClient {
        let manager = try ServerTrustManager(evaluators: [Self.host: PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + pin)])])
        var configuration = HTTPSClientConfiguration(
            trustManager: manager, anchors: TrustAnchors(custom: root), addressOverrides: [Self.host: "127.0.0.1"],
            maximumIdleConnectionsPerHost: idle)
        // The pool keeps 64 in all by default; the memory figure needs every connection it opened kept, or the RSS of
        // the closed ones is divided among the kept ones.
        configuration.maximumIdleConnections = max(configuration.maximumIdleConnections, idle)
        return HTTPSClient(configuration: configuration)
    }

    /// Requests per second of one curl run fetching `count` URLs (curl's `[1-N]` glob) from the server.
    func curl(url: String, port: Int, root: String, pin: String, count: Int, close: Bool, sessionCache: Bool = true) throws -> Double {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["curl", "-s", "-f", "-o", "/dev/null", "--cacert", root, "--pinnedpubkey", "sha256//" + pin,
                       "--resolve", "\(Self.host):\(port):127.0.0.1"]
            + (close ? ["-H", "Connection: close"] : []) + (sessionCache ? [] : ["--no-sessionid"]) + ["\(url)?[1-\(count)]"]
        let start = DispatchTime.now().uptimeNanoseconds
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BenchmarkError(description: "curl exited \(p.terminationStatus)") }
        return Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}

extension HTTPSClient {
    func get(_ url: String) async throws {
        let response = try await execute(HTTPRequest(url: url))
        guard response.status == .ok else { throw BenchmarkError(description: "\(url) answered \(response.status)") }
    }
}

extension FileHandle {
    /// Bytes up to the first newline (without it), read one at a time so nothing after it is consumed.
    func availableLine() -> [UInt8] {
        var line: [UInt8] = []
        while let byte = try? read(upToCount: 1), let b = byte.first, b != 0x0A { line.append(b) }
        return line
    }
}
