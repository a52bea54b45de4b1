import ATSTestServers
import BenchmarkSupport
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
@_spi(Benchmarks) import TransportClient
import TransportTrust

/// HTTP/2 figures against nghttpd (Debian's nghttp2-server) on 127.0.0.1: requests per second on one connection
/// with 1, 10 and 100 concurrent streams, beside h2load (nghttp2-client) on the same server with one connection and
/// as many streams, and AsyncHTTPClient in this process at the same concurrency; and memory per open HTTP/2 stream.
///
/// nghttpd is a separate process, so the CPU and memory measured here are the clients' alone. Each `FIGURES` line is
/// one scenario for bench/peers.sh.
struct HTTP2Benchmark {
    struct Options {
        var seconds = 3.0
        /// One concurrency instead of all three.
        var streams: Int?
        /// Ours alone, without the peers or the memory figure: a run for `perf record`.
        var oursOnly = false
    }

    static let host = "bench.example.test"
    static let concurrencies = [1, 10, 100]
    /// Streams held open at once for the memory figure (nghttpd's default SETTINGS_MAX_CONCURRENT_STREAMS).
    static let openStreams = 100
    /// The body of each of those streams: four times the 256 KiB an unread stream may buffer before the client stops
    /// reading it, so that the figure shows that bound rather than the body's size.
    static let largeBody = 1 << 20
    let options: Options

    func run() async throws {
        guard let nghttpdPath = Self.find(["/usr/sbin/nghttpd", "/usr/bin/nghttpd", "/usr/local/bin/nghttpd"]) else {
            throw BenchmarkError(description: "nghttpd is not installed (apt-get install nghttp2-server)")
        }
        guard let h2loadPath = Self.find(["/usr/bin/h2load", "/usr/local/bin/h2load"]) else {
            throw BenchmarkError(description: "h2load is not installed (apt-get install nghttp2-client)")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ats-h2-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("htdocs"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        let pki = try LocalPKI()
        let leaf = try pki.leaf(cn: Self.host, ips: [[127, 0, 0, 1]], dns: [Self.host])
        try Data("ok".utf8).write(to: dir.appendingPathComponent("htdocs/ok"))
        try Data((0..<Self.largeBody).map { UInt8(truncatingIfNeeded: $0) }).write(to: dir.appendingPathComponent("htdocs/large"))
        try (leaf.pem + pki.intermediate.pem).write(to: dir.appendingPathComponent("chain.pem"), atomically: true, encoding: .utf8)
        try leaf.key.pem.write(to: dir.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
        guard let pin = try InputCertificate(der: leaf.der).spkiSHA256Base64 else { throw BenchmarkError(description: "no SPKI hash for the leaf") }
        let root = try CertificateLoader.certificates(from: Array(pki.root.pem.utf8), source: "root.pem")

        let server = try await NghttpdProcess.start(path: nghttpdPath, directory: dir)
        defer { server.stop() }
        say("server: nghttpd \(Self.version(of: nghttpdPath)) on 127.0.0.1:\(server.port) (child process, one worker), TLS, ALPN h2, "
              + "P-256 leaf → intermediate → root; SETTINGS_MAX_CONCURRENT_STREAMS 100")
        say("ours: HTTPSClient, httpVersions .http2Only, custom anchors, pin sha256/\(pin); every response checked to be HTTP/2 "
              + "and every request to ride the one connection")
        say("h2load \(Self.version(of: h2loadPath)): -c 1 -m C, one connection with C concurrent streams; it verifies no certificate, "
              + "while ours evaluates the chain and the pin (once, for the one connection)")

        let url = "https://\(Self.host):\(server.port)/"
        for concurrency in options.streams.map({ [$0] }) ?? Self.concurrencies {
            let connections = Counter()
            let client = try client(root: root, pin: pin, connections: connections)
            let ours: Run
            do {
                try await client.getHTTP2(url + "ok")
                // Warm up at this concurrency, then measure.
                _ = try await requests(concurrency: concurrency, seconds: min(0.5, options.seconds / 4)) { try await client.getHTTP2(url + "ok") }
                ours = try await requests(concurrency: concurrency, seconds: options.seconds) { try await client.getHTTP2(url + "ok") }
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
            guard connections.value == 1 else {
                throw BenchmarkError(description: "\(concurrency) concurrent streams: expected one connection, the client opened \(connections.value)")
            }
            if options.oursOnly {
                say(String(format: "%3d concurrent streams, ours only: %.0f req/s, %.1f µs of CPU per request, %d requests", concurrency, ours.rate,
                             1e6 / ours.perCPUSecond, ours.requests))
                continue
            }
            let ahc = try await ahcRun(rootPEM: pki.root.pem, url: url + "ok", concurrency: concurrency)
            // As many requests as ours made, but no fewer than 50,000: h2load runs 10 to 40 times our rate, and a run of a
            // fraction of a second is mostly its connection and handshake.
            let count = max(50_000, Int(ours.rate * options.seconds))
            let theirs = try h2load(h2loadPath, url: "https://127.0.0.1:\(server.port)/ok", requests: count, streams: concurrency)
            say(String(format: "%3d concurrent streams, one connection: ours %.0f req/s (%d requests, all HTTP/2, 1 connection), "
                         + "h2load %.0f req/s (%.2f×)", concurrency, ours.rate, ours.requests, theirs.rate, ours.rate / theirs.rate))
            say(String(format: "%3d concurrent streams, per CPU second of the client: ours %.0f req, h2load %.0f req (%.2f×)",
                         concurrency, ours.perCPUSecond, theirs.perCPUSecond, ours.perCPUSecond / theirs.perCPUSecond))
            say(String(format: "%3d concurrent streams, AsyncHTTPClient (root only, 1 connection): %.0f req/s, %.0f req per CPU second; ours %.2f× its rate, %.2f× per CPU second",
                         concurrency, ahc.rate, ahc.perCPUSecond, ours.rate / ahc.rate, ours.perCPUSecond / ahc.perCPUSecond))
            say("    h2load -n \(count) -c 1 -m \(concurrency) https://127.0.0.1:\(server.port)/ok")
            say(String(format: "FIGURES h2-%d ours=%.0f h2load=%.0f ahc=%.0f ours_cpu_us=%.1f h2load_cpu_us=%.1f ahc_cpu_us=%.1f",
                         concurrency, ours.rate, theirs.rate, ahc.rate, 1e6 / ours.perCPUSecond, 1e6 / theirs.perCPUSecond, 1e6 / ahc.perCPUSecond))
        }

        guard !options.oursOnly else { return }
        try await openStreamMemory(url: url + "large", small: url + "ok", root: root, pin: pin)
    }

    /// What one client did in a measured run.
    struct Run {
        var requests: Int
        var rate: Double
        var perCPUSecond: Double
    }

    /// AsyncHTTPClient at `concurrency` streams, trusting the same root, warmed up as ours is; it must use one connection.
    func ahcRun(rootPEM: String, url: String, concurrency: Int) async throws -> Run {
        let connections = Counter()
        let ahc = try AHCPeer.client(rootPEM: rootPEM, host: Self.host, http2: true, connections: connections)
        let run: Run
        do {
            try await ahc.get(url, http2: true)
            _ = try await requests(concurrency: concurrency, seconds: min(0.5, options.seconds / 4)) { try await ahc.get(url, http2: true) }
            run = try await requests(concurrency: concurrency, seconds: options.seconds) { try await ahc.get(url, http2: true) }
        } catch {
            try? await ahc.shutdown()
            throw error
        }
        try await ahc.shutdown()
        guard connections.value == 1 else {
            throw BenchmarkError(description: "\(concurrency) concurrent streams: expected one connection, AsyncHTTPClient opened \(connections.value)")
        }
        return run
    }

    /// `concurrency` tasks, each sending GETs (`get`) back to back until `seconds` have passed.
    func requests(concurrency: Int, seconds: Double, get: @escaping @Sendable () async throws -> Void) async throws -> Run {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .nanoseconds(Int64(seconds * 1e9))
        let cpuBefore = cpuSeconds()
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var n = 0
                    repeat {
                        try await get()
                        n += 1
                    } while clock.now < deadline
                    return n
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = Double((clock.now - start) / .nanoseconds(1)) / 1e9
        let cpu = cpuSeconds() - cpuBefore
        return Run(requests: total, rate: Double(total) / elapsed, perCPUSecond: Double(total) / cpu)
    }

    /// One h2load run: `requests` GETs over one connection with `streams` concurrent streams.
    func h2load(_ path: String, url: String, requests: Int, streams: Int) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = ["-n", String(requests), "-c", "1", "-m", String(streams), url]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        p.standardInput = FileHandle.nullDevice
        let cpuBefore = cpuSeconds(children: true)
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let cpu = cpuSeconds(children: true) - cpuBefore
        guard p.terminationStatus == 0 else { throw BenchmarkError(description: "h2load exited \(p.terminationStatus):\n\(text)") }
        // finished in 52.85ms, 18922.55 req/s, 537.70KB/s
        // requests: 1000 total, 1000 started, 1000 done, 1000 succeeded, 0 failed, 0 errored, 0 timeout
        let lines = text.split(separator: "\n")
        guard let finished = lines.first(where: { $0.hasPrefix("finished in ") }),
              let rateField = finished.split(separator: ",").dropFirst().first?.split(separator: " ").first,
              let rate = Double(rateField)
        else { throw BenchmarkError(description: "no 'finished in …, N req/s' line in h2load's output:\n\(text)") }
        guard lines.contains(where: { $0.hasPrefix("requests: ") && $0.contains(" \(requests) succeeded,") }),
              lines.contains(where: { $0.hasPrefix("status codes: \(requests) 2xx") })
        else { throw BenchmarkError(description: "h2load did not get \(requests) successful responses:\n\(text)") }
        return Run(requests: requests, rate: rate, perCPUSecond: Double(requests) / cpu)
    }

    /// RSS per open HTTP/2 stream: `openStreams` streamed GETs of a large file on one connection, their heads
    /// received and their bodies not read.
    func openStreamMemory(url: String, small: String, root: [InputCertificate], pin: String) async throws {
        let connections = Counter()
        let client = try client(root: root, pin: pin, connections: connections)
        do {
            // The connection is open before the baseline, and has carried a large body, so that its own buffers (TLS
            // records, frames) have their working size: the delta is the streams' alone.
            for _ in 0..<20 { try await client.getHTTP2(small) }
            for try await _ in try await client.stream(HTTPRequest(url: url)).body {}
            let before = residentKiB(), heapBefore = heapInUseKiB()
            let responses = try await withThrowingTaskGroup(of: StreamingHTTPResponse.self) { group in
                for _ in 0..<Self.openStreams {
                    group.addTask {
                        let response = try await client.stream(HTTPRequest(url: url))
                        guard response.status == .ok, response.connection.httpVersion == "HTTP/2" else {
                            throw BenchmarkError(description: "\(url): \(response.status) over \(response.connection.httpVersion)")
                        }
                        return response
                    }
                }
                return try await group.reduce(into: [StreamingHTTPResponse]()) { $0.append($1) }
            }
            let headsKiB = residentKiB()
            // The heap, and the body bytes already in, at the same moment: what a stream costs beyond its body.
            let heapHeads = heapInUseKiB(), bufferedHeads = responses.reduce(0) { $0 + $1.bufferedBodyBytes }
            // Bodies keep arriving after the heads: measure once RSS has stopped growing.
            var after = headsKiB
            for _ in 0..<50 {
                try await Task.sleep(for: .milliseconds(100))
                let now = residentKiB()
                if now == after { break }
                after = now
            }
            let heapAfter = heapInUseKiB()
            let buffered = responses.reduce(0) { $0 + $1.bufferedBodyBytes }
            guard connections.value == 1 else {
                throw BenchmarkError(description: "\(Self.openStreams) open streams: expected one connection, the client opened \(connections.value)")
            }
            say(String(format: "open HTTP/2 streams: %d on 1 connection, heads received, bodies (%d KiB each) not read: "
                         + "RSS %d → %d KiB once the heads were in (%.1f KiB per stream), %d KiB once it settled (%.1f KiB per open stream)",
                         Self.openStreams, Self.largeBody >> 10, before, headsKiB, Double(headsKiB - before) / Double(Self.openStreams),
                         after, Double(after - before) / Double(Self.openStreams)))
            // RSS counts pages; the heap in use counts what is allocated in them, so the two together show how much of
            // the growth is held bytes and how much the allocator's.
            say(String(format: "    heap in use %d → %d KiB (%.1f KiB per open stream), of which unread body bytes %.1f KiB per stream: "
                         + "%.1f KiB per open stream beyond its unread body",
                         heapBefore, heapAfter, Double(heapAfter - heapBefore) / Double(Self.openStreams),
                         Double(buffered) / 1024 / Double(Self.openStreams),
                         (Double(heapAfter - heapBefore) - Double(buffered) / 1024) / Double(Self.openStreams)))
            say(String(format: "    once the heads were in: heap in use %d KiB, unread body bytes %.1f KiB per stream: %.1f KiB per open stream beyond its unread body",
                         heapHeads, Double(bufferedHeads) / 1024 / Double(Self.openStreams),
                         (Double(heapHeads - heapBefore) - Double(bufferedHeads) / 1024) / Double(Self.openStreams)))
            say("    the figure includes the stream's state and receiver, and the body bytes received but not read: past 256 KiB "
                  + "unread the client stops giving the stream's flow-control window back, so the server holds the rest of the "
                  + "body once that window (64 KiB) is spent")
            // Drain every body to its end: the streams end normally and the connection stays usable.
            let drained = try await withThrowingTaskGroup(of: Int.self) { group in
                for response in responses {
                    group.addTask {
                        var n = 0
                        for try await chunk in response.body { n += chunk.count }
                        return n
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            guard drained.allSatisfy({ $0 == Self.largeBody }) else {
                throw BenchmarkError(description: "streamed bodies of \(Set(drained).sorted()) bytes, expected \(Self.largeBody)")
            }
            try await client.getHTTP2(url)
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }

    func client(root: [InputCertificate], pin: String, connections: Counter) throws -> HTTPSClient {
        let manager = try ServerTrustManager(evaluators: [Self.host: PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + pin)])])
        var configuration = HTTPSClientConfiguration(
            trustManager: manager, anchors: TrustAnchors(custom: root), addressOverrides: [Self.host: "127.0.0.1"],
            maximumIdleConnectionsPerHost: 1, handshakeObserver: { _ in connections.increment() })
        configuration.httpVersions = .http2Only
        return HTTPSClient(configuration: configuration)
    }

    static func find(_ candidates: [String]) -> String? { candidates.first { FileManager.default.isExecutableFile(atPath: $0) } }

    /// The version a nghttp2 program prints for `--version` (`nghttpd nghttp2/1.52.0`), or "" when it prints none.
    static func version(of path: String) -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = ["--version"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return "" }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }
}

/// Connections the client opened: one TLS handshake per connection reaches its handshake observer.
final class Counter: Sendable {
    private let count = NIOLockedValueBox(0)
    func increment() { count.withLockedValue { $0 += 1 } }
    var value: Int { count.withLockedValue { $0 } }
}

/// nghttpd in the foreground on 127.0.0.1, serving `DIR/htdocs` with `DIR/key.pem` and `DIR/chain.pem`.
///
/// Ready once its port accepts a connection. Its readiness line ("listen 127.0.0.1:PORT") comes only with `-v`,
/// which also prints every frame: that costs nghttpd more than half its request rate (h2load: 30,700 req/s
/// without, 12,200 with), so it runs quiet and its port is probed instead.
final class NghttpdProcess {
    let port: Int
    private let process: Process

    private init(port: Int, process: Process) {
        self.port = port
        self.process = process
    }

    static func start(path: String, directory: URL) async throws -> NghttpdProcess {
        var attempt = 0
        while true {
            attempt += 1
            let port = try await freePort()
            let log = directory.appendingPathComponent("nghttpd.log")
            guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
                throw BenchmarkError(description: "cannot create \(log.path)")
            }
            let logHandle = try FileHandle(forWritingTo: log)
            defer { try? logHandle.close() }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: path)
            p.arguments = ["-a", "127.0.0.1", "-d", directory.appendingPathComponent("htdocs").path, String(port),
                           directory.appendingPathComponent("key.pem").path, directory.appendingPathComponent("chain.pem").path]
            p.standardInput = FileHandle.nullDevice
            p.standardOutput = logHandle
            p.standardError = logHandle
            try p.run()
            let server = NghttpdProcess(port: port, process: p)
            if try await server.waitUntilListening() { return server }
            server.stop()
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            // Another process took the port between our probe and nghttpd's bind: try another.
            if attempt < 5 && text.contains("Could not listen") { continue }
            throw BenchmarkError(description: "nghttpd did not start on 127.0.0.1:\(port): \(text)")
        }
    }

    /// Whether the port accepts a TCP connection within 10 s, false as soon as nghttpd has exited.
    private func waitUntilListening() async throws -> Bool {
        for _ in 0..<500 {
            guard process.isRunning else { return false }
            if let channel = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get() {
                try? await channel.close()
                return true
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// nghttpd does not end on SIGTERM (waiting for it after `terminate()` hangs), so it is killed.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// A port nothing listens on now: bound, read and released.
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port
        try await channel.close()
        guard let port else { throw BenchmarkError(description: "no free port on 127.0.0.1") }
        return port
    }
}

extension HTTPSClient {
    /// A GET whose response must be a 200 over HTTP/2.
    func getHTTP2(_ url: String) async throws {
        let response = try await execute(HTTPRequest(url: url))
        guard response.status == .ok else { throw BenchmarkError(description: "\(url) answered \(response.status)") }
        guard response.connection.httpVersion == "HTTP/2" else {
            throw BenchmarkError(description: "\(url) answered over \(response.connection.httpVersion), not HTTP/2")
        }
    }
}

/// Prints a line at once, also when standard output is a pipe: a slow run shows how far it got.
func say(_ line: String) {
    print(line)
    fflush(nil)
}
