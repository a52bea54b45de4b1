import ATSTestServers
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import TransportClient
import TransportServer
import TransportTrust

// A PKI made for this run (ATSTestServers): a root, an intermediate, a server certificate for 127.0.0.1 and a
// client certificate. The server admits clients under the root; a client without a certificate is refused.
let pki = try LocalPKI()
let serverCertificate = try pki.leaf()
let clientCertificate = try pki.client(cn: "payments-api")
let clientCA = try InputCertificate(der: pki.root.der)

// snippet.start server
let policy = ClientVerificationPolicy(anchors: [clientCA], nameRules: [try ClientNameRule(parsing: "cn:payments-*")])
let mtls = try MutualTLSServer(
    certificateChain: [try NIOSSLCertificate(bytes: serverCertificate.der, format: .der),
                       try NIOSSLCertificate(bytes: pki.intermediate.der, format: .der)],
    privateKey: try NIOSSLPrivateKey(bytes: Array(serverCertificate.key.pem.utf8), format: .pem),
    policy: policy)

let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            // TLS and the client's verdict first, then HTTP: no request byte is read before the verdict.
            try mtls.configure(channel.pipeline.syncOperations)
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            try channel.pipeline.syncOperations.addHandler(WhoAmIHandler())
        }
    }
    .bind(host: "127.0.0.1", port: 0).get()
// snippet.end
guard let port = server.localAddress?.port else { print("UNEXPECTED: the server has no port"); exit(1) }
let url = "https://127.0.0.1:\(port)/whoami"
let serverCA = TrustAnchors(custom: [try InputCertificate(der: pki.root.der)])

// snippet.start client
let identity = try ClientIdentity(
    certificatePEM: Array((clientCertificate.pem + pki.intermediate.pem).utf8),
    keyPEM: Array(clientCertificate.key.pem.utf8))
let client = HTTPSClient(configuration: HTTPSClientConfiguration(anchors: serverCA, clientIdentity: identity))
let response = try await client.execute(HTTPRequest(url: url))
print(response.text)   // hello CN=payments-api,…
// snippet.end
await client.shutdown()

let anonymous = HTTPSClient(configuration: HTTPSClientConfiguration(anchors: serverCA))
var refusal: TransportError?
do { _ = try await anonymous.execute(HTTPRequest(url: url)) } catch { refusal = error }
await anonymous.shutdown()
try await server.close()

guard response.statusCode == 200, response.text.hasPrefix("hello ") else {
    print("UNEXPECTED: \(response.statusCode) \(response.text)"); exit(1)
}
guard let refusal else { print("UNEXPECTED: a client without a certificate got in"); exit(1) }
print("refused without a certificate:", refusal.kind)
print("ok: the verified client was greeted; a client without a certificate was refused")
