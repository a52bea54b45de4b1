import AppTransportSecurity
import Foundation
import TransportDecision
import TransportTrust

// Decides a connection to www.example.test twice, on Examples/chain.pem (root Examples/root.pem): once as negotiated
// with TLS 1.3, once with TLS 1.1, which ATS refuses by default. Exits 0 when both decisions are as shown.
let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
let presented = try CertificateLoader.certificates(atPath: "\(examples)/chain.pem").map(\.der)
let root = try CertificateLoader.certificates(atPath: "\(examples)/root.pem")

// snippet.start plan
// What ATS requires of the URL (no Info.plist: ATS's defaults), and how trust is evaluated.
let requirements = try RequirementsResolver(configuration: ATSConfiguration()).requirements(for: "https://www.example.test/")
let settings = TrustSettings(anchors: TrustAnchors(custom: root),
                             validationTime: try Date("2027-06-01T00:00:00Z", strategy: .iso8601))
let plan = ConnectionPlan(peer: try PeerName("www.example.test"), port: 443, requirements: requirements, settings: settings)

// Before the handshake: the versions and suites to offer.
let offer = try plan.tlsParameters()
print(offer.minimumVersion, "to", offer.maximumVersion, "with", offer.suites.count, "TLS 1.2 suites")
// snippet.end

// snippet.start decide
// After the handshake: the server's certificates and what was negotiated, as the client reads them.
let negotiated = HandshakeSummary(tlsVersion: .tls13, cipherSuite: "TLS_AES_128_GCM_SHA256", cipherSuiteCode: 0x1301)
let assessment = await plan.assess(presented: presented, handshake: negotiated)
let decision = plan.decide(assessment, answer: .evaluationStands)
print(decision.isAllowed ? "allowed" : "refused: \(decision.refusal?.message ?? "")")

// The same chain over TLS 1.1: ATS requires TLS 1.2, so the connection is refused before any request byte.
let old = HandshakeSummary(tlsVersion: .tls11, cipherSuite: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", cipherSuiteCode: 0xC009)
let refused = plan.decide(await plan.assess(presented: presented, handshake: old), answer: .evaluationStands)
// refused.refusal?.kind == .atsRefused
// snippet.end

guard decision.isAllowed else { print("UNEXPECTED: TLS 1.3 refused: \(decision.refusal?.message ?? "")"); exit(1) }
guard refused.refusal?.kind == .atsRefused else {
    print("UNEXPECTED: TLS 1.1 not refused by ATS: \(refused.refusal.map { "\($0.kind) \($0.message)" } ?? "allowed")"); exit(1)
}
print("refused:", refused.refusal?.message ?? "")
print("ok: TLS 1.3 allowed, TLS 1.1 refused by ATS, without a socket")
