import TestSupport
import TestServersSupport
import Foundation
import NIOConcurrencyHelpers
import NIOHTTP1
import Testing
import TransportTrust
import X509

@testable import TransportClient

/// OCSP during the handshake: the client asks the responder the leaf names, through its own HTTP stack; a signed
/// answer decides, and the policy's soft- or hard-fail mode decides what an unusable answer means.
@Suite struct HTTPOCSPResponseSourceTests {
    let host = "www.example.test"

    /// A chain whose leaf names `responder` as its OCSP server.
    func pki(responder: String) throws -> ServerPKI {
        let aia = try Certificate.Extension(AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(responder))]), critical: false)
        let root = PKI.root()
        let intermediate = root.intermediate("OCSP Test CA")
        return ServerPKI(root: root, intermediate: intermediate, leaf: intermediate.leaf(dns: [host], extra: [aia]))
    }

    func client(_ pki: ServerPKI, _ mode: RevocationOptions.Mode) -> HTTPSClient {
        makeClient(anchors: pki.anchors, hosts: [host, "ocsp.example.test"]) { $0.revocation = mode }
    }

    /// A responder answering with a signed response about the leaf, and the server. The responder's URL is only
    /// known once it listens, and the leaf names it, so the chain and the response are made after it starts.
    func servers(_ status: OCSPResponseBuilder.Status) async throws -> (pki: ServerPKI, responder: TestServer, server: TestServer) {
        // The answer is set once the chain that names the responder exists.
        let answer = NIOLockedValueBox<[UInt8]?>(nil)
        let responder = try await TestServer.http { _ in
            guard let der = answer.withLockedValue({ $0 }) else { return .text("not ready", status: .serviceUnavailable) }
            return TestResponse(headers: [("content-type", "application/ocsp-response")], body: der)
        }
        let pki = try pki(responder: "http://ocsp.example.test:\(responder.port)/")
        let der = try OCSPResponseBuilder.response(for: pki.leaf, issuer: pki.intermediate, status: status, at: Date())
        answer.withLockedValue { $0 = der }
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("loaded") }
        return (pki, responder, server)
    }

    @Test(arguments: [RevocationOptions.Mode.soft, .hard])
    func aGoodAnswerLoads(_ mode: RevocationOptions.Mode) async throws {
        let (pki, responder, server) = try await servers(.good)
        try await withShutdown({ await server.shutdown(); await responder.shutdown() }) {
            let client = client(pki, mode)
            let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.text == "loaded")
            #expect(responder.requests.count == 1)
            await client.shutdown()
        }
    }

    @Test(arguments: [RevocationOptions.Mode.soft, .hard])
    func aRevokedAnswerRefusesTheServerInEitherMode(_ mode: RevocationOptions.Mode) async throws {
        let (pki, responder, server) = try await servers(.revoked(at: Date().addingTimeInterval(-86400)))
        await withShutdown({ await server.shutdown(); await responder.shutdown() }) {
            let client = client(pki, mode)
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .serverTrustRefused)
            let revoked = error?.verdict?.failures.first { $0.code == .revoked }
            #expect(revoked?.certificate == 0, "\(String(describing: error?.verdict?.failures))")
            #expect(server.requests.isEmpty, "no request reaches a revoked server")
            await client.shutdown()
        }
    }

    @Test func hardFailAsksTheRespondersAndRefusesWithoutAnAnswer() async throws {
        let responder = try await TestServer.http { _ in .text("try later", status: .serviceUnavailable) }
        let pki = try pki(responder: "http://ocsp.example.test:\(responder.port)/")
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown(); await responder.shutdown() }) {
            let client = client(pki, .hard)
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .serverTrustRefused)
            #expect(error?.verdict?.failures.contains { $0.code == .revocationUnknown } == true)
            #expect(server.requests.isEmpty)
            let asked = try #require(responder.requests.first)
            #expect(asked.head.method == .POST)
            #expect(asked.head.headers.first(name: "content-type") == "application/ocsp-request")
            #expect(asked.body.first == 0x30, "an OCSPRequest is a DER SEQUENCE")
            await client.shutdown()
        }
    }

    @Test func softFailLoadsWhenTheResponderHasNoAnswer() async throws {
        let responder = try await TestServer.http { _ in .text("garbage, not DER") }
        let pki = try pki(responder: "http://ocsp.example.test:\(responder.port)/")
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("loaded") }
        try await withShutdown({ await server.shutdown(); await responder.shutdown() }) { () async throws in
            let client = client(pki, .soft)
            #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")).text == "loaded")
            #expect(!responder.requests.isEmpty)
            await client.shutdown()
        }
    }

    @Test func revocationOffAsksNobody() async throws {
        let responder = try await TestServer.http()
        let pki = try pki(responder: "http://ocsp.example.test:\(responder.port)/")
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown(); await responder.shutdown() }) { () async throws in
            let client = client(pki, .off)
            #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")).statusCode == 200)
            #expect(responder.requests.isEmpty)
            await client.shutdown()
        }
    }

    @Test func aTrustManagersRevocationEvaluatorAsksTheResponderWhenTheClientChecksNothing() async throws {
        let (pki, responder, server) = try await servers(.revoked(at: Date().addingTimeInterval(-86400)))
        try await withShutdown({ await server.shutdown(); await responder.shutdown() }) {
            let counting = CountingEvaluator { _, trust in await RevocationTrustEvaluator().evaluate(trust) }
            let manager = ServerTrustManager(rules: [.init(try HostPattern(host), counting)])
            let client = makeClient(anchors: pki.anchors, hosts: [host, "ocsp.example.test"], trustManager: manager)
            #expect(client.configuration.revocation == .off)
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.verdict?.failures.contains { $0.code == .revoked } == true, "\(String(describing: error))")
            #expect(responder.requests.count == 1, "evaluations \(counting.calls), connections \(server.connectionCount)")
            await client.shutdown()
        }
    }
}
