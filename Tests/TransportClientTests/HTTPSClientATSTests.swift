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

/// ATS during the handshake: TLS versions, forward secrecy, plain HTTP and redirects.
@Suite struct HTTPSClientATSTests {
    let host = "www.example.test"

    private func legacyServer(_ version: NIOSSL.TLSVersion, pki: ServerPKI) async throws -> TestServer {
        try await TestServer.https(chain: pki.served, key: pki.leaf.key, configure: { tls in
            tls.minimumTLSVersion = version
            tls.maximumTLSVersion = version
        })
    }

    @Test(arguments: [("TLSv1.0", NIOSSL.TLSVersion.tlsv1, ATSTLSVersion.tls10), ("TLSv1.1", .tlsv11, .tls11)])
    func legacyTLSIsBlockedByDefaultAndAllowedByTheException(name: String, version: NIOSSL.TLSVersion, ats: ATSTLSVersion) async throws {
        let pki = ServerPKI()
        let server = try await legacyServer(version, pki: pki)
        try await withShutdown({ await server.shutdown() }) {
            let error = await transportError { try await makeClient(anchors: pki.anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .atsRefused)
            #expect(error?.phase == .handshake)
            #expect(error?.message.contains("NSExceptionMinimumTLSVersion") == true)
            #expect(server.requests.isEmpty)

            let exception = ATSPolicy.configuration(exceptionDomains([host: ["NSExceptionMinimumTLSVersion": .string(name)]]))
            let response = try await makeClient(anchors: pki.anchors, ats: exception).execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.statusCode == 200)
            #expect(response.connection.handshake?.tlsVersion == ats)
            #expect(response.connection.atsEvaluation.isAllowed)
        }
    }

    /// The client resolves ATS for the exact release, as `ats check --platform` does: inside the `ios10` profile the
    /// system requires CT only from iOS 12.1.1.
    @Test func theClientResolvesATSForTheExactRelease() throws {
        func requiresCT(_ platform: ApplePlatform) throws -> Bool {
            var configuration = HTTPSClientConfiguration(ats: .default(profile: .ios10))
            configuration.platform = platform
            return try HTTPSClient(configuration: configuration).requirements(for: "https://www.example.com/").certificate.value.requiresCertificateTransparency
        }
        #expect(try requiresCT(ApplePlatform(.iOS, 12, 1)) == false)
        #expect(try requiresCT(ApplePlatform(.iOS, 13)) == true)
        // A release of another profile leaves the profile's newest release in charge (iOS 13.7 for ios10).
        #expect(try requiresCT(ApplePlatform(.iOS, 26)) == true)
    }

    @Test func staticRSAIsBlockedUnlessForwardSecrecyIsOff() async throws {
        // Static RSA encrypts the premaster secret to the leaf key, so the leaf needs keyEncipherment.
        let pki = ServerPKI(key: .rsa2048(), leafKeyUsage: KeyUsage(digitalSignature: true, keyEncipherment: true))
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key, configure: { tls in
            tls.maximumTLSVersion = .tlsv12
            tls.cipherSuites = "TLS_RSA_WITH_AES_128_GCM_SHA256"
        })
        try await withShutdown({ await server.shutdown() }) {
            let error = await transportError { try await makeClient(anchors: pki.anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .atsRefused)
            #expect(error?.message.contains("NSExceptionRequiresForwardSecrecy") == true)

            let noPFS = ATSPolicy.configuration(exceptionDomains([host: ["NSExceptionRequiresForwardSecrecy": .boolean(false)]]))
            let response = try await makeClient(anchors: pki.anchors, ats: noPFS).execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.statusCode == 200)
            #expect(response.connection.handshake?.cipherSuite == "TLS_RSA_WITH_AES_128_GCM_SHA256")
            #expect(response.connection.handshake?.tlsVersion == .tls12)
        }
    }

    @Test func tls12ForwardSecretSuiteIsReadFromTheServerHello() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key, configure: { tls in
            tls.maximumTLSVersion = .tlsv12
            tls.cipherSuites = "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"
        })
        try await withShutdown({ await server.shutdown() }) {
            let response = try await makeClient(anchors: pki.anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            #expect(response.connection.handshake?.cipherSuite == "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384")
            #expect(response.connection.handshake?.cipherSuiteCode == 0xC02C)
            #expect(response.connection.atsEvaluation.reasons.contains { $0.check == "cipher-suite" && $0.passed })
        }
    }

    @Test func plainHTTPIsRefusedNamingTheKeyAndAllowedByIt() async throws {
        let server = try await TestServer.http { _ in .text("plain") }
        try await withShutdown({ await server.shutdown() }) {
            let anchors = ServerPKI().anchors
            let error = await transportError { try await makeClient(anchors: anchors).execute(HTTPRequest(url: "http://\(host):\(server.port)/")) }
            #expect(error?.kind == .insecureHTTPRefused)
            #expect(error?.message.contains("NSExceptionAllowsInsecureHTTPLoads") == true)
            #expect(server.connectionCount == 0)

            let allowed = ATSPolicy.configuration(exceptionDomains([host: ["NSExceptionAllowsInsecureHTTPLoads": .boolean(true)]]))
            let response = try await makeClient(anchors: anchors, ats: allowed).execute(HTTPRequest(url: "http://\(host):\(server.port)/"))
            #expect(response.text == "plain")
            #expect(response.connection.scheme == "http")
        }
    }

    @Test func redirectsAcrossHostsAreEvaluatedPerHop() async throws {
        let pki = ServerPKI(dns: ["a.example.test", "b.example.test"])
        let b = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("from b") }
        try await withShutdown({ await b.shutdown() }) {
            let a = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
                TestResponse(status: .found, headers: [("location", "https://b.example.test:\(b.port)/landing")], body: [])
            }
            try await withShutdown({ await a.shutdown() }) {
                let hosts = ["a.example.test", "b.example.test"]
                let response = try await makeClient(anchors: pki.anchors, hosts: hosts).execute(HTTPRequest(url: "https://a.example.test:\(a.port)/start",
                    headers: ["authorization": "Bearer secret"]))
                #expect(response.text == "from b")
                #expect(response.redirects == ["https://a.example.test:\(a.port)/start"])
                #expect(response.connection.host == "b.example.test")
                // The credential for a did not follow to b.
                #expect(b.requests.first?.head.headers.first(name: "authorization") == nil)

                // b is pinned to a key it does not have: the second hop is refused, naming b.
                let pinned = ATSPolicy.configuration(atsConfiguration(["NSPinnedDomains": .dictionary(["b.example.test": .dictionary([
                    "NSPinnedLeafIdentities": .array([.dictionary(["SPKI-SHA256-BASE64": .string(ServerPKI.pin(ServerPKI().leaf))])]),
                ])])]))
                let error = await transportError { try await makeClient(anchors: pki.anchors, hosts: hosts, ats: pinned).execute(HTTPRequest(url: "https://a.example.test:\(a.port)/start")) }
                #expect(error?.kind == .pinMismatch)
                #expect(error?.host == "b.example.test")
            }
        }
    }

    @Test func aCustomHostHeaderStaysWithItsOriginAcrossRedirects() async throws {
        let pki = ServerPKI(dns: ["a.example.test", "b.example.test"])
        let b = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("from b") }
        try await withShutdown({ await b.shutdown() }) {
            let a = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
                switch request.head.uri {
                case "/start": TestResponse(status: .found, headers: [("location", "/same-origin")], body: [])
                case "/same-origin": TestResponse(status: .found, headers: [("location", "https://b.example.test:\(b.port)/landing")], body: [])
                default: .text("unexpected", status: .notFound)
                }
            }
            try await withShutdown({ await a.shutdown() }) {
                let client = makeClient(anchors: pki.anchors, hosts: ["a.example.test", "b.example.test"])
                let response = try await client.execute(HTTPRequest(url: "https://a.example.test:\(a.port)/start", headers: ["host": "virtual.example.test"]))
                #expect(response.text == "from b")
                #expect(a.requests.map { $0.head.headers["host"] } == [["virtual.example.test"], ["virtual.example.test"]])
                #expect(b.requests.first?.head.headers["host"] == ["b.example.test:\(b.port)"])
            }
        }
    }

    @Test func httpsToHTTPRedirectIsRefusedUnlessAllowed() async throws {
        let pki = ServerPKI()
        let plain = try await TestServer.http { _ in .text("insecure") }
        try await withShutdown({ await plain.shutdown() }) {
            let secure = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in
                TestResponse(status: .movedPermanently, headers: [("location", "http://plain.example.test:\(plain.port)/")], body: [])
            }
            try await withShutdown({ await secure.shutdown() }) {
                let hosts = [host, "plain.example.test"]
                let error = await transportError { try await makeClient(anchors: pki.anchors, hosts: hosts).execute(HTTPRequest(url: "https://\(host):\(secure.port)/")) }
                #expect(error?.kind == .redirectRefused)
                #expect(error?.phase == .redirect)
                #expect(error?.message.contains("NSExceptionAllowsInsecureHTTPLoads") == true)
                #expect(plain.connectionCount == 0)

                // The client remembers the refused hop's target; asking for that URL directly is still refused.
                let client = makeClient(anchors: pki.anchors, hosts: hosts)
                _ = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(secure.port)/")) }
                for _ in 0..<2 {
                    let direct = await transportError { try await client.execute(HTTPRequest(url: "http://plain.example.test:\(plain.port)/")) }
                    #expect(direct?.kind == .insecureHTTPRefused)
                }
                #expect(plain.connectionCount == 0)

                let allowed = ATSPolicy.configuration(exceptionDomains(["plain.example.test": ["NSExceptionAllowsInsecureHTTPLoads": .boolean(true)]]))
                let response = try await makeClient(anchors: pki.anchors, hosts: hosts, ats: allowed).execute(HTTPRequest(url: "https://\(host):\(secure.port)/"))
                #expect(response.text == "insecure")
            }
        }
    }

    /// Resolved targets are remembered per URL, and only up to a bound.
    @Test func rememberedTargetsStayBounded() throws {
        let client = makeClient(anchors: ServerPKI().anchors)
        for i in 0..<(HTTPSClient.rememberedTargets + 10) {
            _ = try client.requirements(for: "https://\(host)/item/\(i)")
        }
        let remembered = client.targets.withLockedValue { $0.count }
        #expect(remembered > 0 && remembered <= HTTPSClient.rememberedTargets)
        // A URL that cannot be resolved is not remembered, and fails the same way each time.
        for _ in 0..<2 { #expect(throws: TransportError.self) { try client.requirements(for: "https://exa mple.test/") } }
        #expect(client.targets.withLockedValue { $0["https://exa mple.test/"] } == nil)
    }

    @Test(arguments: ["ftp://127.0.0.1/x", "http://%zz", "https://www.example.test:99999/", "/a b", "mailto:someone@example.test"])
    func aRedirectThatCannotBeFollowedIsTheServersFault(_ location: String) async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in
            TestResponse(status: .found, headers: [("location", location)], body: [])
        }
        await withShutdown({ await server.shutdown() }) {
            let error = await transportError { try await makeClient(anchors: pki.anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            #expect(error?.kind == .malformedResponse, "\(error?.description ?? "loaded")")
            #expect(error?.phase == .redirect)
            #expect(error?.host == host)
            // Named as written, quoted, escaped and bounded as any peer text is (NameDisplay).
            #expect(error?.message.contains("'\(location)'") == true, "\(error?.message ?? "")")
        }
    }

    @Test func a303KeepsAHEADAndTurnsAPOSTIntoAGET() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
            // No body for a HEAD: this server does not drop it itself.
            request.head.uri == "/other" ? .text(request.head.method == .HEAD ? "" : "the other page")
                : TestResponse(status: .seeOther, headers: [("location", "/other")], body: [])
        }
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors)
            try await withShutdown({ await client.shutdown() }) {
                let url = "https://\(host):\(server.port)/form"
                _ = try await client.execute(HTTPRequest(url: url, method: .HEAD))
                _ = try await client.execute(HTTPRequest(url: url, method: .POST, body: Array("a=1".utf8)))
                #expect(server.requests.map { "\($0.head.method.rawValue) \($0.head.uri)" } == ["HEAD /form", "HEAD /other", "POST /form", "GET /other"])
            }
        }
    }

    /// Streamed, a redirect's body has no reader but the client, which must not wait for one.
    @Test(arguments: [900 << 10, 5 << 20])
    func aStreamedRequestFollowsARedirectWithALargeBody(_ size: Int) async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
            request.head.uri == "/landing" ? .text("landed")
                : TestResponse(status: .found, headers: [("location", "/landing")], body: Array(repeating: 0x61, count: size))
        }
        try await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors) { $0.httpVersions = .http1Only }
            try await withShutdown({ await client.shutdown() }) {
                let response = try await client.stream(HTTPRequest(url: "https://\(host):\(server.port)/start", timeout: .seconds(20)))
                var body: [UInt8] = []
                for try await chunk in response.body { body += chunk }
                #expect(String(decoding: body, as: UTF8.self) == "landed")
                #expect(response.redirects == ["https://\(host):\(server.port)/start"])
                // A body read through keeps its connection; a larger one is dropped with it.
                #expect(server.connectionCount == (size <= HTTPSClient.discardedBodyLimit ? 1 : 2))
            }
        }
    }

    @Test func redirectLimitIsEnforced() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { request in
            TestResponse(status: .temporaryRedirect, headers: [("location", "/again")], body: [])
        }
        await withShutdown({ await server.shutdown() }) {
            let error = await transportError {
                try await makeClient(anchors: pki.anchors) { $0.maximumRedirects = 3 }.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
            }
            #expect(error?.kind == .tooManyRedirects)
            #expect(server.requests.count == 4)
        }
    }

    @Test func connectionsUnderDisabledATSStillCheckTrust() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: [pki.leaf], key: pki.leaf.key, configure: { tls in
            tls.minimumTLSVersion = .tlsv1
            tls.maximumTLSVersion = .tlsv1
        })
        await withShutdown({ await server.shutdown() }) {
            let error = await transportError { try await makeClient(anchors: pki.anchors, ats: .disabled).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            // TLS 1.0 is allowed without ATS, but the missing intermediate still refuses trust.
            #expect(error?.kind == .serverTrustRefused)
            #expect(error?.handshake?.tlsVersion == .tls10)
        }
    }
}
