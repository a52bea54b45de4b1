import TestSupport
import TestServersSupport
import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOHTTP1
import NIOSSL
import Testing
import TransportTrust
import X509

@testable import TransportClient

/// HTTP Basic and Digest challenges, the delegate's dispositions, and mutual TLS.
@Suite struct HTTPSClientAuthenticationTests {
    let host = "www.example.test"

    /// A server that wants `user:good` by Basic.
    private func basicServer(_ pki: ServerPKI) async throws -> TestServer {
        try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
            if request.head.headers.first(name: "authorization") == "Basic " + Data("user:good".utf8).base64EncodedString() {
                return .text("welcome")
            }
            return TestResponse(status: .unauthorized, headers: [("www-authenticate", "Basic realm=\"tests\", charset=\"UTF-8\"")], body: Array("no".utf8))
        }
    }

    @Test func basicWithAGoodPassword() async throws {
        let pki = ServerPKI()
        let server = try await basicServer(pki)
        try await withShutdown({ await server.shutdown() }) {
            let seen = ChallengeLog()
            let client = makeClient(anchors: pki.anchors) { config in
                config.challengeHandler = { challenge in
                    seen.append(challenge)
                    guard challenge.protectionSpace.authenticationMethod == .httpBasic else { return .performDefaultHandling }
                    return .useCredential(.password(user: "user", password: "good"))
                }
            }
            let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.text == "welcome")
            let basic = seen.all.filter { $0.protectionSpace.authenticationMethod == .httpBasic }
            #expect(basic.count == 1)
            #expect(basic.first?.protectionSpace.realm == "tests")
            #expect(basic.first?.previousFailureCount == 0)
            #expect(basic.first?.failureResponse?.statusCode == 401)

            // forSession: the next challenge proposes the stored credential.
            let again = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/again"))
            #expect(again.text == "welcome")
            #expect(seen.all.filter { $0.protectionSpace.authenticationMethod == .httpBasic }.count == 2)
            #expect(seen.all.last?.proposedCredential?.userPassword?.user == "user")
        }
    }

    @Test func basicWithABadPasswordCountsFailuresUntilTheDelegateGivesUp() async throws {
        let pki = ServerPKI()
        let server = try await basicServer(pki)
        try await withShutdown({ await server.shutdown() }) {
            let seen = ChallengeLog()
            let client = makeClient(anchors: pki.anchors) { config in
                config.challengeHandler = { challenge in
                    guard challenge.protectionSpace.authenticationMethod == .httpBasic else { return .performDefaultHandling }
                    seen.append(challenge)
                    return challenge.previousFailureCount < 2 ? .useCredential(.password(user: "user", password: "bad")) : .performDefaultHandling
                }
            }
            let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.statusCode == 401)
            #expect(seen.all.map(\.previousFailureCount) == [0, 1, 2])
            #expect(server.requests.count == 3)

            let cancelled = makeClient(anchors: pki.anchors) { $0.challengeHandler = { challenge in
                challenge.protectionSpace.authenticationMethod == .httpBasic ? .cancelAuthenticationChallenge : .performDefaultHandling
            } }
            let error = await transportError { try await cancelled.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .authenticationCancelled)
            #expect(await cancelled.idleConnectionCount == 1, "the 401 exchange was complete, so its connection is kept, not left open outside the pool")
        }
    }

    /// Answers every Basic challenge with the same password.
    private static let alwaysAnswering: ChallengeHandler = { challenge in
        challenge.protectionSpace.authenticationMethod == .httpBasic ? .useCredential(.password(user: "user", password: "secret")) : .performDefaultHandling
    }

    @Test func aServerNamingANewRealmEachTimeGetsTheCredentialABoundedNumberOfTimes() async throws {
        let pki = ServerPKI()
        let realms = NIOLockedValueBox(0)
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in
            let realm = realms.withLockedValue { $0 += 1; return $0 }
            return TestResponse(status: .unauthorized, headers: [("www-authenticate", "Basic realm=\"r\(realm)\"")], body: [])
        }
        await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors, timeouts: Timeouts(connect: .seconds(30), handshake: .seconds(30), request: .seconds(20))) { config in
                config.challengeHandler = Self.alwaysAnswering
            }
            await withShutdown({ await client.shutdown() }) {
                let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
                #expect(error?.kind == .tooManyAuthenticationAttempts, "\(error?.description ?? "loaded")")
                #expect(error?.phase == .authentication)
                #expect(error?.message.contains("maximumTotalAuthenticationAttempts") == true)
                #expect(error.map { "\($0)" }?.contains("secret") == false, "no password in the error")
                let sent = server.requests.filter { $0.head.headers.contains(name: "authorization") }
                #expect(sent.count == HTTPSClientConfiguration().maximumTotalAuthenticationAttempts)
                #expect(server.requests.count == sent.count + 1)

                // The limit is the client's to set.
                let strict = makeClient(anchors: pki.anchors) { config in
                    config.maximumTotalAuthenticationAttempts = 2
                    config.challengeHandler = Self.alwaysAnswering
                }
                let before = server.requests.count
                let stopped = await transportError { try await strict.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
                await strict.shutdown()
                #expect(stopped?.kind == .tooManyAuthenticationAttempts)
                #expect(server.requests.count - before == 3)
            }
        }
    }

    /// Streamed, a challenge's body is read for the challenge handler, and is the body when the 401 is the answer.
    @Test func aStreamedRequestReadsALargeChallengeBody() async throws {
        let pki = ServerPKI()
        let page = Array(repeating: UInt8(ascii: "p"), count: 900 << 10)
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in
            TestResponse(status: .unauthorized, headers: [("www-authenticate", "Basic realm=\"tests\"")], body: page)
        }
        try await withShutdown({ await server.shutdown() }) {
            let seen = ChallengeLog()
            let client = makeClient(anchors: pki.anchors) { config in
                config.httpVersions = .http1Only
                config.challengeHandler = { challenge in
                    seen.append(challenge)
                    return .performDefaultHandling
                }
            }
            try await withShutdown({ await client.shutdown() }) {
                let response = try await client.stream(HTTPRequest(url: "https://\(host):\(server.port)/", timeout: .seconds(20)))
                var body: [UInt8] = []
                for try await chunk in response.body { body += chunk }
                #expect(response.status == .unauthorized)
                #expect(body == page, "the 401 is the answer, with its body")
                #expect(seen.all.first { $0.protectionSpace.authenticationMethod == .httpBasic }?.failureResponse?.body == page)
            }
        }
    }

    @Test func anUnansweredChallengePoolsItsConnectionOnce() async throws {
        let pki = ServerPKI()
        let server = try await basicServer(pki)
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors) { _ in }
            let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.statusCode == 401 && response.text == "no")
            // Pooled twice, one connection would be handed to two concurrent requests, and the second would fail as busy.
            #expect(await client.idleConnectionCount == 1)
            async let first = client.execute(HTTPRequest(url: "https://\(host):\(server.port)/1"))
            async let second = client.execute(HTTPRequest(url: "https://\(host):\(server.port)/2"))
            #expect(try await [first.statusCode, second.statusCode] == [401, 401])
        }
    }

    @Test(arguments: ["MD5", "SHA-256", "MD5-sess", "SHA-256-sess"])
    func digestWithGoodAndBadPasswords(algorithm: String) async throws {
        let pki = ServerPKI()
        let nonce = "dcd98b7102dd2f0e8b11d0f600bfb0c093"
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
            let challenge = TestResponse(status: .unauthorized, headers: [
                ("www-authenticate", "Digest realm=\"digest@tests\", qop=\"auth\", algorithm=\(algorithm), nonce=\"\(nonce)\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\""),
                ("www-authenticate", "Basic realm=\"fallback\""),
            ], body: [])
            guard let header = request.head.headers.first(name: "authorization"), header.hasPrefix("Digest ") else { return challenge }
            let p = DigestCheck.parameters(header)
            let expected = DigestCheck.response(algorithm: algorithm, user: "Mufasa", realm: "digest@tests", password: "Circle of Life",
                                                method: request.head.method.rawValue, uri: request.head.uri, nonce: nonce,
                                                nc: p["nc"] ?? "", cnonce: p["cnonce"] ?? "", qop: p["qop"] ?? "")
            return p["response"] == expected && p["uri"] == request.head.uri && p["opaque"] == "5ccc069c403ebaf9f0171e9517f40e41" ? .text("digest ok") : challenge
        }
        try await withShutdown({ await server.shutdown() }) {
            func client(password: String) -> HTTPSClient {
                makeClient(anchors: pki.anchors) { $0.challengeHandler = { challenge in
                    guard challenge.protectionSpace.authenticationMethod == .httpDigest else { return .performDefaultHandling }
                    return challenge.previousFailureCount == 0 ? .useCredential(.password(user: "Mufasa", password: password, persistence: .none)) : .cancelAuthenticationChallenge
                } }
            }
            let response = try await client(password: "Circle of Life").execute(HTTPRequest(url: "https://\(host):\(server.port)/dir/index.html?x=1"))
            #expect(response.text == "digest ok")
            let error = await transportError { try await client(password: "wrong").execute(HTTPRequest(url: "https://\(host):\(server.port)/dir/index.html")) }
            #expect(error?.kind == .authenticationCancelled)
        }
    }

    /// A Digest server whose first nonce has expired: a right answer to it draws `stale=true` and a new nonce.
    /// `alwaysStale` calls every nonce stale.
    private func staleDigestServer(_ pki: ServerPKI, alwaysStale: Bool = false) async throws -> TestServer {
        let issued = NIOLockedValueBox(0)
        return try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
            func challenge(stale: Bool) -> TestResponse {
                let nonce = issued.withLockedValue { $0 += 1; return "nonce\($0)" }
                return TestResponse(status: .unauthorized, headers: [
                    ("www-authenticate", "Digest realm=\"r\", qop=\"auth\", algorithm=MD5, nonce=\"\(nonce)\"" + (stale ? ", stale=true" : "")),
                ], body: [])
            }
            guard let header = request.head.headers.first(name: "authorization") else { return challenge(stale: false) }
            let p = DigestCheck.parameters(header)
            let expected = DigestCheck.response(algorithm: "MD5", user: "user", realm: "r", password: "good", method: request.head.method.rawValue,
                                                uri: request.head.uri, nonce: p["nonce"] ?? "", nc: p["nc"] ?? "", cnonce: p["cnonce"] ?? "", qop: p["qop"] ?? "")
            guard p["response"] == expected else { return challenge(stale: false) }
            return alwaysStale || p["nonce"] == "nonce1" ? challenge(stale: true) : .text("digest ok")
        }
    }

    @Test func aStaleNonceIsRetriedWithTheSameCredentialAndIsNoFailure() async throws {
        let pki = ServerPKI()
        let server = try await staleDigestServer(pki)
        try await withShutdown({ await server.shutdown() }) {
            let seen = ChallengeLog()
            // Like `ats fetch --user`: one answer, and default handling once a credential has failed.
            let handler: ChallengeHandler = { challenge in
                guard challenge.protectionSpace.authenticationMethod == .httpDigest else { return .performDefaultHandling }
                seen.append(challenge)
                return challenge.previousFailureCount == 0 ? .useCredential(.password(user: "user", password: "good", persistence: .none)) : .performDefaultHandling
            }
            let response = try await makeClient(anchors: pki.anchors) { $0.challengeHandler = handler }.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.statusCode == 200 && response.text == "digest ok")
            #expect(seen.all.map(\.previousFailureCount) == [0], "the stale nonce is no failure, and the delegate is not asked again")
            #expect(server.requests.count == 3)
            let retry = try #require(server.requests.last?.head.headers.first(name: "authorization"))
            #expect(DigestCheck.parameters(retry)["nonce"] == "nonce2")
            #expect(DigestCheck.parameters(retry)["nc"] == "00000001", "a new nonce starts its count again")

            // A server that calls every nonce stale ends: a few retries, then its 401 is the answer.
            let stale = try await staleDigestServer(pki, alwaysStale: true)
            try await withShutdown({ await stale.shutdown() }) {
                let client = makeClient(anchors: pki.anchors) { $0.challengeHandler = handler }
                let endless = try await client.execute(HTTPRequest(url: "https://\(host):\(stale.port)/"))
                #expect(endless.statusCode == 401)
                #expect(stale.requests.count == 2 + client.configuration.maximumAuthenticationAttempts)
            }
        }
    }

    @Test func aDigestChallengeTheClientCannotAnswerGivesWayToTheNextOne() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
            if request.head.headers.first(name: "authorization") == "Basic " + Data("user:good".utf8).base64EncodedString() { return .text("basic ok") }
            return TestResponse(status: .unauthorized, headers: [
                ("www-authenticate", "Digest realm=\"r\", nonce=\"n\", qop=\"auth-int\", algorithm=SHA-256"),
                ("www-authenticate", "Digest realm=\"r\", nonce=\"n\", algorithm=SHA-512-256"),
                ("www-authenticate", "Basic realm=\"r\""),
            ], body: [])
        }
        try await withShutdown({ await server.shutdown() }) {
            let seen = ChallengeLog()
            let response = try await makeClient(anchors: pki.anchors) { config in
                config.challengeHandler = { challenge in
                    guard [.httpBasic, .httpDigest].contains(challenge.protectionSpace.authenticationMethod) else { return .performDefaultHandling }
                    seen.append(challenge)
                    return .useCredential(.password(user: "user", password: "good", persistence: .none))
                }
            }.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.text == "basic ok")
            #expect(seen.all.map(\.protectionSpace.authenticationMethod) == [.httpBasic], "the delegate is asked only about a challenge the client can answer")
        }
    }

    @Test func credentialsAreNotSentOverPlainHTTP() async throws {
        let server = try await TestServer.http { request in
            request.head.headers.contains(name: "authorization") ? .text("in")
                : TestResponse(status: .unauthorized, headers: [("www-authenticate", "Basic realm=\"plain\"")], body: [])
        }
        try await withShutdown({ await server.shutdown() }) {
            let allowed = ATSPolicy.configuration(exceptionDomains([host: ["NSExceptionAllowsInsecureHTTPLoads": .boolean(true)]]))
            let handler: ChallengeHandler = { _ in .useCredential(.password(user: "u", password: "p")) }
            let error = await transportError {
                try await makeClient(anchors: ServerPKI().anchors, ats: allowed) { $0.challengeHandler = handler }.execute(HTTPRequest(url: "http://\(host):\(server.port)/"))
            }
            #expect(error?.kind == .insecureHTTPRefused)
            #expect(error?.phase == .authentication)
            #expect(server.requests.count == 1)
            #expect(server.requests.allSatisfy { !$0.head.headers.contains(name: "authorization") })

            let response = try await makeClient(anchors: ServerPKI().anchors, ats: allowed) {
                $0.challengeHandler = handler
                $0.allowsCredentialsOverInsecureHTTP = true
            }.execute(HTTPRequest(url: "http://\(host):\(server.port)/"))
            #expect(response.text == "in")
        }
    }

    // MARK: Mutual TLS

    private struct MTLS {
        let server: ServerPKI
        let clientCA: TestCert
        let clientLeaf: TestCert
        var identity: ClientIdentity {
            get throws {
                try ClientIdentity(certificateChain: [try NIOSSLCertificate(bytes: clientLeaf.der, format: .der)], privateKey: try clientLeaf.key.nioPrivateKey())
            }
        }

        init() {
            server = ServerPKI()
            clientCA = PKI.root("Client CA")
            clientLeaf = clientCA.leaf("client", dns: [], extendedKeyUsage: [.clientAuth])
        }
    }

    private func mtlsServer(_ m: MTLS, version: NIOSSL.TLSVersion) async throws -> TestServer {
        let ca = try NIOSSLCertificate(bytes: m.clientCA.der, format: .der)
        return try await TestServer.https(chain: m.server.served, key: m.server.leaf.key, responder: { _ in .text("mutual") }, configure: { tls in
            tls.maximumTLSVersion = version
            tls.certificateVerification = .noHostnameVerification
            tls.trustRoots = .certificates([ca])
        })
    }

    @Test(arguments: [NIOSSL.TLSVersion.tlsv12, .tlsv13])
    func clientCertificateRequiredMissingAndWrong(version: NIOSSL.TLSVersion) async throws {
        let m = MTLS()
        let server = try await mtlsServer(m, version: version)
        try await withShutdown({ await server.shutdown() }) {
            let url = "https://\(host):\(server.port)/"

            let good = try await makeClient(anchors: m.server.anchors) { $0.clientIdentity = try? m.identity }.execute(HTTPRequest(url: url))
            #expect(good.text == "mutual")

            let missing = await transportError { try await makeClient(anchors: m.server.anchors).execute(HTTPRequest(url: url)) }
            #expect(missing?.kind == .clientCertificateRejected)
            #expect(missing?.message.contains("client certificate rejected") == true)

            let stranger = PKI.root("Stranger CA").leaf("client", dns: [], extendedKeyUsage: [.clientAuth])
            let wrong = try ClientIdentity(certificateChain: [try NIOSSLCertificate(bytes: stranger.der, format: .der)], privateKey: try stranger.key.nioPrivateKey())
            let rejected = await transportError { try await makeClient(anchors: m.server.anchors) { $0.clientIdentity = wrong }.execute(HTTPRequest(url: url)) }
            #expect(rejected?.kind == .clientCertificateRejected)
            #expect(rejected?.message.contains("client certificate rejected") == true)
        }
    }

    @Test func clientCertificateChallengeSuppliesTheIdentity() async throws {
        let m = MTLS()
        let server = try await mtlsServer(m, version: .tlsv13)
        try await withShutdown({ await server.shutdown() }) {
            let identity = try m.identity
            let asked = LockedCounter()
            let response = try await makeClient(anchors: m.server.anchors) { config in
                config.challengeHandler = { challenge in
                    guard challenge.protectionSpace.authenticationMethod == .clientCertificate else { return .performDefaultHandling }
                    asked.increment()
                    return .useCredential(.identity(identity))
                }
            }.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.text == "mutual")
            #expect(asked.value == 1)
        }
    }
}

final class ChallengeLog: Sendable {
    private let items = NIOLockedValueBox<[AuthenticationChallenge]>([])
    func append(_ c: AuthenticationChallenge) { items.withLockedValue { $0.append(c) } }
    var all: [AuthenticationChallenge] { items.withLockedValue { $0 } }
}

/// The server side of Digest, written independently of the client's code.
enum DigestCheck {
    static func parameters(_ header: String) -> [String: String] {
        var out: [String: String] = [:]
        let regex = try? NSRegularExpression(pattern: #"(\w+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]+))"#)
        let ns = header as NSString
        for match in regex?.matches(in: header, range: NSRange(location: 0, length: ns.length)) ?? [] {
            let name = ns.substring(with: match.range(at: 1))
            let value = match.range(at: 2).location != NSNotFound ? ns.substring(with: match.range(at: 2)) : ns.substring(with: match.range(at: 3))
            out[name] = value
        }
        return out
    }

    static func response(algorithm: String, user: String, realm: String, password: String, method: String, uri: String,
                         nonce: String, nc: String, cnonce: String, qop: String) -> String {
        func h(_ s: String) -> String {
            algorithm.hasPrefix("SHA-256") ? SHA256.hash(data: Data(s.utf8)).map { String(format: "%02x", $0) }.joined()
                : Insecure.MD5.hash(data: Data(s.utf8)).map { String(format: "%02x", $0) }.joined()
        }
        var a1 = h("\(user):\(realm):\(password)")
        if algorithm.hasSuffix("-sess") { a1 = h("\(a1):\(nonce):\(cnonce)") }
        return h("\(a1):\(nonce):\(nc):\(cnonce):\(qop):\(h("\(method):\(uri)"))")
    }
}
