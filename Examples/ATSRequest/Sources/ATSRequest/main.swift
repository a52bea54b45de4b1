import AppBundles
import AppTransportSecurity
import ATSTestServers
import Foundation
import TransportClient
import TransportTrust

// Starts ATSTestServers' "static-rsa" case on 127.0.0.1 (TLS_RSA_WITH_AES_128_GCM_SHA256 only: no forward secrecy)
// and requests it twice: under the example's Info.plist, whose exception for 127.0.0.1 allows that suite, and under
// ATS's defaults, which refuse it. Exits 0 when both end as shown.
let plistPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Info.plist").path
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ATSRequest-\(getpid())").path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
let servers = try await LocalServers.start(directory: directory, only: [.staticRSA])
guard let url = servers.url(for: .staticRSA) else { print("UNEXPECTED: the static-rsa case did not start"); exit(1) }
let anchors = TrustAnchors(custom: try CertificateLoader.certificates(atPath: servers.caFile))

// snippet.start ats-request
// An Info.plist (XML or binary), an .app folder or an .ipa; one source per bundle found.
let app = try ConfigurationLoader().load(path: plistPath)[0]
let client = HTTPSClient(configuration: HTTPSClientConfiguration(ats: .configuration(app.configuration), anchors: anchors))

// What ATS requires of this URL, each requirement with the key that decided it.
let requirements = try client.requirements(for: url)
print("forward secrecy required:", requirements.requiresForwardSecrecy.value, "-", requirements.requiresForwardSecrecy.because)

let response = try await client.execute(HTTPRequest(url: url))
print(response.statusCode, response.connection.handshake?.cipherSuite ?? "-")
// snippet.end
await client.shutdown()

// snippet.start resolve
// The same decisions without a client: what ATS requires of a URL under a platform profile, and an audit.
let resolver = RequirementsResolver(configuration: app.configuration, profile: .ios17)
let required = try resolver.requirements(for: "https://127.0.0.1/")
print("minimum TLS:", required.minimumTLSVersion.value, "-", required.minimumTLSVersion.because)

let audit = Auditor().audit([app])
for finding in audit.findings {
    print(finding.severity, finding.rule, finding.message, "- fix:", finding.fix)
}
// snippet.end

// snippet.start ats-default
let defaults = HTTPSClient(configuration: HTTPSClientConfiguration(ats: .default(), anchors: anchors))
var refusal: TransportError?
do {
    _ = try await defaults.execute(HTTPRequest(url: url))
} catch {
    // error.kind == .atsRefused: the server offers no suite with forward secrecy, which ATS requires by default.
    print(error.kind, error.message)
    refusal = error
}
// snippet.end
await defaults.shutdown()
await servers.shutdown()
try? FileManager.default.removeItem(atPath: directory)
guard response.statusCode == 200, !requirements.requiresForwardSecrecy.value else {
    print("UNEXPECTED: status \(response.statusCode) under the Info.plist's exception"); exit(1)
}
guard refusal?.kind == .atsRefused else {
    print("UNEXPECTED: default ATS did not refuse: \(refusal.map { "\($0)" } ?? "it loaded")"); exit(1)
}
print("ok: the Info.plist's exception let the load through; ATS's defaults refused it")
