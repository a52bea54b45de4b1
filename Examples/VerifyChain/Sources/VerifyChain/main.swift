import Foundation
import TransportTrust

// Usage: VerifyChain [CHAIN.pem ROOT.pem]; by default the chain and root that ship in Examples/.
// Exits 0 when every step gives the outcome it shows, 1 otherwise.
let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
let arguments = CommandLine.arguments.dropFirst()
let chainPath = arguments.first ?? "\(examples)/chain.pem"
let rootPath = arguments.dropFirst().first ?? "\(examples)/root.pem"

func expect(_ condition: Bool, _ what: String) {
    print(condition ? "ok: \(what)" : "UNEXPECTED: \(what)")
    if !condition { exit(1) }
}

// snippet.start verify
let chain = try CertificateLoader.certificates(atPath: chainPath)
let root = try CertificateLoader.certificates(atPath: rootPath)

// Only the given root is trusted (anchorsOnly defaults to true), under the SSL policy for the host. The time is
// fixed inside the example leaf's 825 days so that this keeps working; leave validationTime out to check now.
let host = try PeerName("www.example.test")
let trust = ServerTrust(chain: chain, anchors: TrustAnchors(custom: root), policy: .ssl(host: host),
                        validationTime: try Date("2027-06-01T00:00:00Z", strategy: .iso8601))
let verdict = await trust.evaluate()

if verdict.isTrusted {
    print("trusted, \(verdict.chain.count) certificates from leaf to anchor")
} else {
    for failure in verdict.failures {
        print(failure.code, failure.message)
    }
}
// snippet.end
expect(verdict.isTrusted, "the example chain is trusted for www.example.test")

// snippet.start wrong-host
var elsewhere = trust
elsewhere.policy = .ssl(host: try PeerName("api.example.com"))
let refused = await elsewhere.evaluate()
// refused.failures.first?.code == .hostnameMismatch, at certificate 0 (the leaf)
// snippet.end
expect(refused.failures.map(\.code) == [.hostnameMismatch], "another host is refused with hostnameMismatch")

// snippet.start pin
// The SPKI SHA-256 pin of the root's key, as `ats pins Examples/root.pem` prints it.
// The server does not send its root; the pin still matches, because pins are checked on the chain validation built.
let rootPin = try Pin(parsing: "sha256/h17Mi0oufhjDR7Jkibv/IA1i4L52CGIWIU2lPDM8TZ8=")
let manager = ServerTrustManager(rules: [
    .init(try HostPattern("**.example.test"), PinSetEvaluator(pins: [rootPin], scope: .ca)),
])
let pinned = await manager.evaluate(trust, forHost: host)
// pinned.isTrusted: the chain validates and its root carries the pinned key.
// snippet.end
expect(pinned.isTrusted, "the root pin matches the built chain")

// snippet.start pin-mismatch
let backupOnly = ServerTrustManager(rules: [
    .init(try HostPattern("www.example.test"),
          PinSetEvaluator(pins: [try Pin(parsing: "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")])),
])
let mismatch = await backupOnly.evaluate(trust, forHost: host)
// mismatch.failures.first?.code == .pinMismatch; the message lists the chain's actual sha256/ hashes.
// snippet.end
expect(mismatch.failures.map(\.code) == [.pinMismatch], "a pin the chain does not carry is refused with pinMismatch")
print(mismatch.failures[0].message)
