import ATSTestServers
import Foundation
import TransportClient
import TransportTrust

// Starts ATSTestServers' "good" case on 127.0.0.1 behind a CA generated for this run, then sends it a request
// pinned to that CA's key, and one pinned to a key the chain does not carry. Exits 0 when both end as shown.
// snippet.start local-servers
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("PinnedRequest-\(getpid())").path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
// Writes ca.pem (the CA to trust) and the client certificate files into `directory`.
let servers = try await LocalServers.start(directory: directory, only: [.good])
guard let url = servers.url(for: .good) else { print("UNEXPECTED: the good case did not start"); exit(1) }
// snippet.end

// The CA is generated on each run, so its pin is computed here; an app writes the hash it got from `ats pins`.
let caPin = try Pin.spkiSHA256(of: InputCertificate(der: servers.pki.root.der))

// snippet.start pinned-request
let anchors = TrustAnchors(custom: try CertificateLoader.certificates(atPath: servers.caFile))
let manager = ServerTrustManager(rules: [
    .init(try HostPattern("127.0.0.1"), PinSetEvaluator(pins: [caPin], scope: .ca)),
])
let client = HTTPSClient(configuration: HTTPSClientConfiguration(trustManager: manager, anchors: anchors))

let response = try await client.execute(HTTPRequest(url: url))
print(response.statusCode, response.connection.handshake?.tlsVersion.map { "\($0)" } ?? "-")
// snippet.end
await client.shutdown()

// snippet.start pinned-refusal
let wrongPin = try Pin(parsing: "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
let strict = HTTPSClient(configuration: HTTPSClientConfiguration(
    trustManager: ServerTrustManager(rules: [.init(try HostPattern("127.0.0.1"), PinSetEvaluator(pins: [wrongPin]))]),
    anchors: anchors))
var refusal: TransportError?
do {
    _ = try await strict.execute(HTTPRequest(url: url))
} catch {
    // Refused in the TLS handshake, before any request byte was sent; the verdict says why.
    print(error.kind, error.phase, error.verdict?.failures.map(\.code.rawValue) ?? [])
    refusal = error
}
// snippet.end
await strict.shutdown()
await servers.shutdown()
try? FileManager.default.removeItem(atPath: directory)
guard response.statusCode == 200 else { print("UNEXPECTED: status \(response.statusCode)"); exit(1) }
guard let refusal, refusal.verdict?.failures.map(\.code) == [.pinMismatch] else {
    print("UNEXPECTED: the wrong pin was not refused as a pin mismatch: \(refusal.map { "\($0)" } ?? "it loaded")")
    exit(1)
}
print("ok: the pinned request loaded; the wrong pin was refused in the handshake")
