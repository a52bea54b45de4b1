import NIOConcurrencyHelpers
import TestSupport
import TestServersSupport
import AppTransportSecurity
import Foundation
import NIOHTTP1
import NIOSSL
import Testing
import TransportTrust
import X509

@testable import TransportClient

/// Server trust during the handshake: chains, hosts, anchors, pins and the delegate, against real TLS servers.
@Suite struct HTTPSClientTrustTests {
    let host = "www.example.test"

    @Test func goodChainIsTrustedAndReported() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("hi there") }
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors)
            let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/path?q=1"))
            #expect(response.statusCode == 200)
            #expect(response.text == "hi there")
            #expect(server.requests.first?.head.uri == "/path?q=1")
            #expect(server.requests.first?.head.headers.first(name: "host") == "\(host):\(server.port)")
            let report = response.connection
            #expect(report.verdict?.isTrusted == true)
            #expect(report.verdict?.chain.count == 3)
            #expect(report.handshake?.tlsVersion == .tls13)
            #expect(report.handshake?.cipherSuite?.hasPrefix("TLS_AES_") == true || report.handshake?.cipherSuite == "TLS_CHACHA20_POLY1305_SHA256")
            #expect(report.atsEvaluation.isAllowed)
        }
    }

    @Test func expiredCertificateIsRefusedWithItsVerdict() async throws {
        let pki = ServerPKI(leafNotAfter: Date().addingTimeInterval(-86400), leafNotBefore: Date().addingTimeInterval(-10 * 86400))
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        await withShutdown({ await server.shutdown() }) {
            let error = await transportError { try await makeClient(anchors: pki.anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .serverTrustRefused)
            #expect(error?.phase == .handshake)
            #expect(error?.host == host)
            #expect(error?.verdict?.failures.contains { $0.code == .expired } == true)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func wrongHostIsRefused() async throws {
        let pki = ServerPKI(dns: ["other.example.test"])
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        await withShutdown({ await server.shutdown() }) {
            let error = await transportError { try await makeClient(anchors: pki.anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .serverTrustRefused)
            #expect(error?.verdict?.failures.contains { $0.code == .hostnameMismatch } == true)
        }
    }

    @Test func selfSignedLeafIsRefused() async throws {
        let key = TestKey.p256()
        let selfSigned = PKI.issue(subject: PKI.name(host), key: key, issuer: nil, extensions: [
            try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
            try Certificate.Extension(SubjectAlternativeNames([.dnsName(host)]), critical: false),
        ])
        let server = try await TestServer.https(chain: [selfSigned], key: key)
        await withShutdown({ await server.shutdown() }) {
            let other = ServerPKI()
            let error = await transportError { try await makeClient(anchors: other.anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .serverTrustRefused)
            #expect(error?.verdict?.failures.contains { $0.code == .selfSignedLeaf } == true)
        }
    }

    @Test func untrustedRootIsRefused() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: [pki.leaf, pki.intermediate, pki.root], key: pki.leaf.key)
        await withShutdown({ await server.shutdown() }) {
            let error = await transportError { try await makeClient(anchors: ServerPKI().anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .serverTrustRefused)
            #expect(error?.verdict?.failures.contains { $0.code == .untrustedRoot || $0.code == .unknownIssuer } == true)
        }
    }

    @Test func missingIntermediateIsRefusedAndNamed() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: [pki.leaf], key: pki.leaf.key)
        await withShutdown({ await server.shutdown() }) {
            let error = await transportError { try await makeClient(anchors: pki.anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .serverTrustRefused)
            let failure = error?.verdict?.failures.first { $0.code == .unknownIssuer }
            #expect(failure?.message.contains("Test Intermediate CA") == true)
        }
    }

    @Test func trustManagerPinMatchAndMismatch() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let good = try ServerTrustManager(evaluators: [host: PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + ServerPKI.pin(pki.intermediate))])])
            let ok = try await makeClient(anchors: pki.anchors, trustManager: good).execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(ok.statusCode == 200)

            let wrongPin = ServerPKI.pin(ServerPKI().leaf)
            let bad = try ServerTrustManager(evaluators: [host: PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + wrongPin)])])
            let error = await transportError { try await makeClient(anchors: pki.anchors, trustManager: bad).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .pinMismatch)
            #expect(error?.verdict?.failures.contains { $0.code == .pinMismatch && $0.message.contains(ServerPKI.pin(pki.leaf)) } == true)
            #expect(server.requests.count == 1)
        }
    }

    @Test func atsPinnedDomainsAreEnforced() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            func pinned(_ pin: String) -> ATSPolicy {
                .configuration(atsConfiguration(["NSPinnedDomains": .dictionary([host: .dictionary([
                    "NSPinnedCAIdentities": .array([.dictionary(["SPKI-SHA256-BASE64": .string(pin)])]),
                ])])]))
            }
            let ok = try await makeClient(anchors: pki.anchors, ats: pinned(ServerPKI.pin(pki.root))).execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(ok.statusCode == 200)
            let error = await transportError {
                try await makeClient(anchors: pki.anchors, ats: pinned(ServerPKI.pin(ServerPKI().root))).execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            }
            #expect(error?.kind == .pinMismatch)
            #expect(error?.atsEvaluation?.blockingReasons.contains { $0.check == "pins" } == true)
        }
    }

    @Test func unlistedHostIsRefusedBeforeConnecting() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let manager = try ServerTrustManager.allowList(["api.example.test"])
            let error = await transportError { try await makeClient(anchors: pki.anchors, trustManager: manager).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .hostNotAllowed)
            #expect(error?.phase == .requirements)
            #expect(server.connectionCount == 0)
        }
    }

    /// swift-nio-ssl never resumes client sessions, but the guarantee is ours to test: every new connection runs
    /// the evaluator, so a decision that changes between connections is applied.
    @Test func everyNewConnectionIsEvaluatedEvenWhenTheServerOffersResumption() async throws {
        let pki = ServerPKI()
        // Session tickets and a session cache are on by default in the server; each response closes the connection.
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in TestResponse(close: true) }
        try await withShutdown({ await server.shutdown() }) {
            let matching = PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + ServerPKI.pin(pki.leaf))])
            let mismatching = PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + ServerPKI.pin(ServerPKI().leaf))])
            let counting = CountingEvaluator { n, trust in
                n <= 2 ? await matching.evaluate(trust) : await mismatching.evaluate(trust)
            }
            let client = makeClient(anchors: pki.anchors, trustManager: ServerTrustManager(rules: [.init(try HostPattern(host), counting)]))
            #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")).statusCode == 200)
            #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")).statusCode == 200)
            #expect(counting.calls == 2)
            let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .pinMismatch)
            #expect(counting.calls == 3)
            #expect(server.connectionCount == 3)
        }
    }

    @Test func keptAliveConnectionIsReusedWithoutANewHandshake() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let counting = CountingEvaluator { _, trust in await DefaultTrustEvaluator().evaluate(trust) }
            let client = makeClient(anchors: pki.anchors, trustManager: ServerTrustManager(rules: [.init(try HostPattern(host), counting)]))
            for _ in 0..<3 { #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")).statusCode == 200) }
            #expect(server.connectionCount == 1)
            #expect(counting.calls == 1)
            #expect(await client.idleConnectionCount == 1)
            await client.shutdown()
            #expect(await client.idleConnectionCount == 0)
        }
    }

    @Test func delegateCannotRescueAnExpiredCertificateUnderDefaultATS() async throws {
        let pki = ServerPKI(leafNotAfter: Date().addingTimeInterval(-86400), leafNotBefore: Date().addingTimeInterval(-10 * 86400))
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        try await withShutdown({ await server.shutdown() }) {
            let asked = LockedCounter()
            let handler: ChallengeHandler = { challenge in
                if challenge.protectionSpace.authenticationMethod == .serverTrust { asked.increment() }
                return .useCredential(.serverTrust)
            }
            let error = await transportError {
                try await makeClient(anchors: pki.anchors) { $0.challengeHandler = handler }.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            }
            #expect(asked.value == 1)
            #expect(error?.kind == .serverTrustRefused)
            #expect(error?.verdict?.failures.contains { $0.code == .expired } == true)
            #expect(server.requests.isEmpty)

            // Where the domain's exception lets the app loosen trust (NSExceptionAllowsInsecureHTTPLoads), it may.
            let relaxed = ATSPolicy.configuration(exceptionDomains([host: ["NSExceptionAllowsInsecureHTTPLoads": .boolean(true)]]))
            let response = try await makeClient(anchors: pki.anchors, ats: relaxed) { $0.challengeHandler = handler }
                .execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.statusCode == 200)
            #expect(response.connection.notes.contains { $0.contains("accepted a chain that failed") })
        }
    }

    @Test func delegateCanTightenTrustByCancelling() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key)
        await withShutdown({ await server.shutdown() }) {
            let error = await transportError {
                try await makeClient(anchors: pki.anchors) { $0.challengeHandler = { _ in .cancelAuthenticationChallenge } }
                    .execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            }
            #expect(error?.kind == .authenticationCancelled)
            #expect(error?.verdict?.isTrusted == true)
            #expect(server.requests.isEmpty)
        }
    }
}

final class LockedCounter: Sendable {
    private let n = NIOLockedValueBox(0)
    func increment() { n.withLockedValue { $0 += 1 } }
    var value: Int { n.withLockedValue { $0 } }
}
