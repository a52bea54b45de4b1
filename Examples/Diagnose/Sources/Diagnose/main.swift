import ATSDiagnostics
import ATSTestServers
import Foundation
import TransportTrust

// Diagnoses ATSTestServers' "tls1.1-only" case: ATS's defaults refuse it, and the diagnosis names the smallest
// Info.plist exception that would load it. Exits 0 when it does.
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("Diagnose-\(getpid())").path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
let servers = try await LocalServers.start(directory: directory, only: [.tls11Only])
guard let url = servers.url(for: .tls11Only) else { print("UNEXPECTED: the tls1.1-only case did not start"); exit(1) }
let anchors = TrustAnchors(custom: try CertificateLoader.certificates(atPath: servers.caFile))

// snippet.start diagnose
let diagnoser = Diagnoser(options: DiagnosisOptions(anchors: anchors, timeout: .seconds(5)))
let diagnosis = try await diagnoser.diagnose(url: url)
print(DiagnosisRendering.text(diagnosis, verbose: false))
// diagnosis.recommendation: the Info.plist exception that makes this URL load, if one does.
// snippet.end
await servers.shutdown()
try? FileManager.default.removeItem(atPath: directory)
let kind = diagnosis.recommendation.kind
// The server speaks TLS 1.1 only: an exception lowering the minimum version makes it load.
guard kind == .exception, diagnosis.recommendation.configuration == "tls1.1" else { print("UNEXPECTED: recommendation \(kind)"); exit(1) }
print("ok: the diagnosis recommends \(kind)")
