import ATSTestServers
import BenchmarkSupport
import Foundation
import TransportClient
import TransportTrust

// The client against hostile local servers, in bounded counts (issue #24, docs/RELIABILITY.md): connections to servers
// that stall, reset, answer garbage, or send a 150-certificate chain, round-robin, `concurrency` at a time. Every one must
// fail; resident memory and open file descriptors are printed every tenth of the run and must not grow.
//
//     swift build --product SoakTest && .build/debug/SoakTest [CONNECTIONS] [CONCURRENCY]     (default 10000 32)

let arguments = CommandLine.arguments.dropFirst()
let total = arguments.first.flatMap(Int.init) ?? 10_000
let concurrency = arguments.dropFirst().first.flatMap(Int.init) ?? 32

func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }

let pki = try LocalPKI()
let stall = try await LocalServer.hostile(.stall)
let reset = try await LocalServer.hostile(.reset)
let garbage = try await LocalServer.hostile(.garbage)
let huge = try await LocalServer.start(tls: try LocalServers.serverConfiguration(chain: try pki.longChain(depth: 150)), response: .text("huge\n"))
let ports = [stall.port, reset.port, garbage.port, huge.port]
// A stall ends at the handshake limit; short, so that the run is bounded by the count, not by waiting.
let client = HTTPSClient(configuration: HTTPSClientConfiguration(
    anchors: TrustAnchors(custom: [try InputCertificate(der: pki.root.der)]),
    timeouts: Timeouts(connect: .seconds(2), handshake: .milliseconds(200), request: .seconds(2))))

print("connections  succeeded  failed  RSS KiB  open fds  seconds")
let start = Date()
var done = 0, succeeded = 0
let step = max(1, total / 10)
while done < total {
    let batch = min(step, total - done), offset = done
    let results = await withTaskGroup(of: Bool.self) { group in
        var ok = 0, next = 0
        func add(_ group: inout TaskGroup<Bool>, _ i: Int) {
            let url = "https://127.0.0.1:\(ports[(offset + i) % ports.count])/"
            group.addTask { (try? await client.execute(HTTPRequest(url: url))) != nil }
        }
        while next < min(concurrency, batch) { add(&group, next); next += 1 }
        while let result = await group.next() {
            if result { ok += 1 }
            if next < batch { add(&group, next); next += 1 }
        }
        return ok
    }
    done += batch
    succeeded += results
    print(String(format: "%11d  %9d  %6d  %7d  %8d  %7.1f", done, succeeded, done - succeeded, residentKiB(), openDescriptors(), Date().timeIntervalSince(start)))
}
await client.shutdown()
for server in [stall, reset, garbage, huge] { await server.shutdown() }
// Fail-closed: no hostile server may ever produce a response.
exit(succeeded == 0 ? 0 : 1)
