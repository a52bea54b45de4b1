import Foundation
import Hummingbird
import NIOSSL
import TransportServer
import TransportTrust

// Usage: MTLSHummingbird --cert SERVER.pem --key SERVER-KEY.pem --client-anchors CA.pem [--client-name RULE]... [--port N]
func argument(_ name: String) -> String? {
    let args = CommandLine.arguments
    return args.firstIndex(of: name).flatMap { args.index(after: $0) < args.endIndex ? args[args.index(after: $0)] : nil }
}
func arguments(_ name: String) -> [String] {
    let args = CommandLine.arguments
    return args.indices.filter { args[$0] == name && $0 + 1 < args.endIndex }.map { args[$0 + 1] }
}

guard let certFile = argument("--cert"), let keyFile = argument("--key"), let anchorsFile = argument("--client-anchors") else {
    FileHandle.standardError.write(Data("usage: MTLSHummingbird --cert SERVER.pem --key SERVER-KEY.pem --client-anchors CA.pem [--client-name RULE]... [--port N]\n".utf8))
    exit(2)
}
let port = argument("--port").flatMap(Int.init) ?? 8443

let policy = ClientVerificationPolicy(anchors: try CertificateLoader.certificates(atPath: anchorsFile),
                                      nameRules: try arguments("--client-name").map { try ClientNameRule(parsing: $0) })
let mtls = try MutualTLSServer(certificateChain: try NIOSSLCertificate.fromPEMFile(certFile),
                               privateKey: try NIOSSLPrivateKey(file: keyFile, format: .pem), policy: policy)

let router = Router(context: ClientIdentityContext.self)
// The verified identity, read by the route: who the client is, by which key, admitted by which rule.
router.get("whoami") { _, context -> String in
    let client = try await context.verifiedClient()
    let who = client.names?.uris.first ?? client.names?.commonNames.first ?? client.names?.subject ?? "?"
    return "hello \(who)\nkey \(client.spkiSHA256 ?? "-")\nadmitted by \(client.match?.description ?? "-")\n"
}

let app = Application(router: router, server: .mutualTLS(mtls),
                      configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
