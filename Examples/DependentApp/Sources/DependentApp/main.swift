import Crypto
import Foundation
import NIOCore
import TransportTrust

// An app that uses swift-nio and swift-crypto itself, and TransportTrust for its trust decisions, all in one build.
// Exits 0 when every step gives the outcome it prints, 1 otherwise.
let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

func expect(_ condition: Bool, _ what: String) {
    print(condition ? "ok: \(what)" : "UNEXPECTED: \(what)")
    if !condition { exit(1) }
}

// The app's own use of its dependencies: a buffer from swift-nio, a digest from swift-crypto.
let rootPEM = try String(contentsOfFile: "\(examples)/root.pem", encoding: .utf8)
var buffer = ByteBufferAllocator().buffer(capacity: rootPEM.utf8.count)
buffer.writeString(rootPEM)
let digest = SHA256.hash(data: Array(buffer.readableBytesView))
expect(digest.description.hasPrefix("SHA256 digest: "), "swift-crypto hashes the app's own bytes")

// The same build's trust decision, offline, as in the VerifyChain example.
let chain = try CertificateLoader.certificates(atPath: "\(examples)/chain.pem")
let root = try CertificateLoader.certificates(atPath: "\(examples)/root.pem")
let trust = ServerTrust(chain: chain, anchors: TrustAnchors(custom: root), policy: .ssl(host: try PeerName("www.example.test")),
                        validationTime: try Date("2027-06-01T00:00:00Z", strategy: .iso8601))
let verdict = await trust.evaluate()
expect(verdict.isTrusted, "TransportTrust trusts the example chain for www.example.test")
let pinned = try Pin(parsing: "sha256/h17Mi0oufhjDR7Jkibv/IA1i4L52CGIWIU2lPDM8TZ8=")
let pins = await PinSetEvaluator(pins: [pinned], scope: .ca).evaluate(trust)
expect(pins.isTrusted, "the root's pin matches the built chain")
