import TestSupport
import TestServersSupport
import Foundation
import NIOConcurrencyHelpers
import NIOHTTP1
import Testing
import TransportTrust
import X509

@testable import TransportClient

/// CRLs during the handshake: the client fetches the distribution point the leaf names over plain http, within a size
/// cap; a CRL signed by the issuer decides, and soft- or hard-fail decides what a missing one means.
@Suite struct HTTPCRLSourceTests {
    let host = "www.example.test"

    /// A distribution point serving the CRL `make` builds for the chain, and the server. The point's URL is only known once it
    /// listens, and the leaf names it, so the chain and the CRL are made after it starts.
    func servers(_ make: @escaping @Sendable (ServerPKI) throws -> [UInt8]?) async throws -> (pki: ServerPKI, point: TestServer, server: TestServer) {
        let answer = NIOLockedValueBox<[UInt8]?>(nil)
        let point = try await TestServer.http { _ in
            guard let der = answer.withLockedValue({ $0 }) else { return .text("gone", status: .notFound) }
            return TestResponse(headers: [("content-type", "application/pkix-crl")], body: der)
        }
        let root = PKI.root()
        let intermediate = root.intermediate("CRL Test CA")
        let dp = CRLBuilder.distributionPoints(["http://crl.example.test:\(point.port)/ca.crl"])
        let pki = ServerPKI(root: root, intermediate: intermediate, leaf: intermediate.leaf(dns: [host], extra: [dp]))
        let crl = try make(pki)
        answer.withLockedValue { $0 = crl }
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("loaded") }
        return (pki, point, server)
    }

    func client(_ pki: ServerPKI, _ mode: RevocationOptions.Mode) -> HTTPSClient {
        makeClient(anchors: pki.anchors, hosts: [host, "crl.example.test"]) { $0.revocation = mode }
    }

    static func crl(_ pki: ServerPKI, revoking: Bool) throws -> [UInt8] {
        var builder = CRLBuilder(issuer: pki.intermediate)
        builder.thisUpdate = Date().addingTimeInterval(-3600)
        builder.nextUpdate = Date().addingTimeInterval(86400)
        if revoking { builder.entries = [.revoking(pki.leaf, reason: 1)] }
        return try builder.signed(by: pki.intermediate.key)
    }

    @Test(arguments: [RevocationOptions.Mode.soft, .hard])
    func aCRLListingTheLeafRefusesTheServer(_ mode: RevocationOptions.Mode) async throws {
        let (pki, point, server) = try await servers { try Self.crl($0, revoking: true) }
        try await withShutdown({ await server.shutdown(); await point.shutdown() }) {
            let client = client(pki, mode)
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .serverTrustRefused)
            let revoked = error?.verdict?.failures.first { $0.code == .revoked }
            #expect(revoked?.message.contains("keyCompromise") == true, "\(String(describing: error?.verdict?.failures))")
            #expect(server.requests.isEmpty, "no request reaches a revoked server")
            let asked = try #require(point.requests.first)
            #expect(asked.head.method == .GET)
            #expect(asked.head.uri == "/ca.crl")
            await client.shutdown()
        }
    }

    @Test func aCleanCRLLoadsUnderHardFail() async throws {
        let (pki, point, server) = try await servers { try Self.crl($0, revoking: false) }
        try await withShutdown({ await server.shutdown(); await point.shutdown() }) { () async throws in
            let client = client(pki, .hard)
            #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")).text == "loaded")
            #expect(point.requests.count == 1)
            await client.shutdown()
        }
    }

    @Test func hardFailRefusesWhenThePointHasNoCRLAndSoftFailLoads() async throws {
        let (pki, point, server) = try await servers { _ in nil }
        try await withShutdown({ await server.shutdown(); await point.shutdown() }) { () async throws in
            let hard = client(pki, .hard)
            let error = await transportError { try await hard.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.verdict?.failures.contains { $0.code == .revocationUnknown && $0.message.contains("could not be fetched") } == true,
                    "\(String(describing: error?.verdict?.failures))")
            await hard.shutdown()
            let soft = client(pki, .soft)
            #expect(try await soft.execute(HTTPRequest(url: "https://\(host):\(server.port)/")).text == "loaded")
            await soft.shutdown()
        }
    }

    @Test func aCRLOverTheSizeCapIsNotRead() async throws {
        let point = try await TestServer.http { _ in TestResponse(body: [UInt8](repeating: 0x30, count: 20_000)) }
        await withShutdown({ await point.shutdown() }) {
            // Limits no busy machine reaches: the first fetch must fail for its size, not its time, or the count below
            // would not say that it reached the server.
            let source = HTTPCRLSource(timeout: .seconds(60), maximumBytes: 10_000, addressOverrides: ["crl.example.test": "127.0.0.1"])
            #expect(await source.crl(at: "http://crl.example.test:\(point.port)/big.crl") == nil)
            let small = HTTPCRLSource(timeout: .seconds(60), maximumBytes: 30_000, addressOverrides: ["crl.example.test": "127.0.0.1"])
            #expect(await small.crl(at: "http://crl.example.test:\(point.port)/big.crl")?.count == 20_000)
            #expect(await small.crl(at: "ldap://crl.example.test/cn=CA") == nil, "only http is fetched")
            #expect(point.requests.count == 2)
            await source.shutdown()
            await small.shutdown()
        }
    }
}
