import TestSupport
import TestServersSupport
import ATSCommandLine
import Foundation
import NIOConcurrencyHelpers
import NIOHTTP1
import NIOSSL
import Testing
import TransportTrust
import X509

@testable import TransportClient

/// Requests through proxies: a real tinyproxy for CONNECT, Basic authentication, plain http and NO_PROXY, and
/// in-process proxies for what a real one will not do (garbage, hanging, a certificate of its own in the tunnel).
@Suite struct HTTPSClientProxyTests {
    let host = "localhost"

    /// An origin for `localhost` (tinyproxy resolves it; nothing here leaves 127.0.0.1).
    private func origin(_ pki: ServerPKI, responder: @escaping Responder = { _ in .text("origin") }) async throws -> TestServer {
        try await TestServer.https(chain: pki.served, key: pki.leaf.key, responder: responder)
    }

    private func client(_ pki: ServerPKI, proxy: ProxyConfiguration?, trustManager: ServerTrustManager? = nil,
                        timeouts: Timeouts = Timeouts(connect: .seconds(30), handshake: .seconds(30), request: .seconds(60)),
                        configure: (inout HTTPSClientConfiguration) -> Void = { _ in }) -> HTTPSClient {
        makeClient(anchors: pki.anchors, hosts: [host], trustManager: trustManager, timeouts: timeouts) { config in
            config.proxy = proxy
            configure(&config)
        }
    }

    private func via(_ url: String, noProxy: String = "") throws -> ProxyConfiguration {
        ProxyConfiguration(all: try Proxy(url: url), noProxy: NoProxyList(noProxy))
    }

    // MARK: tinyproxy

    @Test(.enabled(if: Tinyproxy.path != nil, "tinyproxy is not installed (apt-get install tinyproxy; .ci/run does)"))
    func httpsGoesThroughATinyproxyTunnelUnderTheOriginsTrust() async throws {
        let pki = ServerPKI(dns: [host])
        let server = try await origin(pki)
        try await withShutdown({ await server.shutdown() }) {
            let proxy = try await Tinyproxy.start()
            defer { proxy.stop() }
            let client = client(pki, proxy: try via(proxy.url))
            try await withShutdown({ await client.shutdown() }) {

                let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
                #expect(response.text == "origin")
                #expect(response.connection.verdict?.isTrusted == true)
                #expect(response.connection.host == host, "the report is the origin's, not the proxy's")
                #expect(proxy.logText.contains("CONNECT \(host):\(server.port)"), "\(proxy.logText)")
                // The tunnel is pooled like any connection to the origin.
                _ = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/again"))
                #expect(server.connectionCount == 1)
            }
        }
    }

    @Test(.enabled(if: Tinyproxy.path != nil, "tinyproxy is not installed (apt-get install tinyproxy; .ci/run does)"))
    func aMisPinnedOriginIsRefusedByOurEvaluationInsideTheTunnel() async throws {
        let pki = ServerPKI(dns: [host])
        let server = try await origin(pki)
        try await withShutdown({ await server.shutdown() }) {
            let proxy = try await Tinyproxy.start()
            defer { proxy.stop() }
            let wrongPin = try Pin(parsing: "sha256/" + ServerPKI.pin(ServerPKI().leaf))
            let manager = try ServerTrustManager(evaluators: [host: PinSetEvaluator(pins: [wrongPin])])
            let client = client(pki, proxy: try via(proxy.url), trustManager: manager)
            await withShutdown({ await client.shutdown() }) {

                let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
                #expect(error?.kind == .pinMismatch)
                #expect(error?.phase == .handshake, "the proxy opened the tunnel; the refusal is ours, at the origin's handshake")
                #expect(proxy.logText.contains("CONNECT \(host):\(server.port)"))
                #expect(server.requests.isEmpty, "no byte of HTTP reached the refused origin")
            }
        }
    }

    @Test(.enabled(if: Tinyproxy.path != nil, "tinyproxy is not installed (apt-get install tinyproxy; .ci/run does)"))
    func basicProxyAuthenticationRightWrongAndCancelled() async throws {
        let pki = ServerPKI(dns: [host])
        let server = try await origin(pki) { request in
            TestResponse(body: Array("origin".utf8), close: request.head.uri == "/close")
        }
        try await withShutdown({ await server.shutdown() }) {
            let proxy = try await Tinyproxy.start(basicAuth: ("proxyuser", "proxypass"))
            defer { proxy.stop() }
            let url = "https://\(host):\(server.port)/"

            // Right, from the proxy URL: the challenge handler's default handling sends it.
            let fromURL = client(pki, proxy: try via("http://proxyuser:proxypass@127.0.0.1:\(proxy.port)"))
            #expect(try await fromURL.execute(HTTPRequest(url: url)).text == "origin")
            await fromURL.shutdown()

            // Right, from the challenge handler, which sees a proxy protection space.
            let seen = ChallengeLog()
            let answering = client(pki, proxy: try via(proxy.url)) { config in
                config.challengeHandler = { challenge in
                    guard challenge.protectionSpace.isProxy else { return .performDefaultHandling }
                    seen.append(challenge)
                    return .useCredential(.password(user: "proxyuser", password: "proxypass", persistence: .forSession))
                }
            }
            #expect(try await answering.execute(HTTPRequest(url: url)).text == "origin")
            let space = try #require(seen.all.first?.protectionSpace)
            #expect(space.proxyType == "http")
            #expect(space.host == "127.0.0.1" && space.port == proxy.port)
            #expect(space.authenticationMethod == .httpBasic)
            #expect(space.realm == "Tinyproxy")
            #expect(!server.requests.contains { $0.head.headers.contains(name: "proxy-authorization") }, "the proxy credential never reaches the origin")
            // The next tunnel sends the remembered credential at once.
            _ = try await answering.execute(HTTPRequest(url: url + "close"))
            _ = try await answering.execute(HTTPRequest(url: url))
            #expect(server.connectionCount == 3, "the origin closed after /close, so the last request had a tunnel of its own")
            #expect(seen.all.count == 1)
            await answering.shutdown()

            // Wrong: counted failures, then a proxy authentication failure.
            let wrongSeen = ChallengeLog()
            let wrong = client(pki, proxy: try via(proxy.url)) { config in
                config.challengeHandler = { challenge in
                    guard challenge.protectionSpace.isProxy else { return .performDefaultHandling }
                    wrongSeen.append(challenge)
                    return .useCredential(.password(user: "proxyuser", password: "wrong", persistence: .none))
                }
            }
            let failed = await transportError { try await wrong.execute(HTTPRequest(url: url)) }
            #expect(failed?.kind == .proxyAuthenticationFailed)
            #expect(failed?.phase == .proxy)
            #expect(failed?.message.contains("http://127.0.0.1:\(proxy.port)") == true)
            #expect(wrongSeen.all.map(\.previousFailureCount) == [0, 1, 2])
            #expect(failed.map { "\($0)" }?.contains("wrong") == false, "no password in the error")
            // A refused credential is not remembered: the caller's own header goes first on the next request.
            var explicit = HTTPRequest(url: url)
            explicit.headers.add(name: "Proxy-Authorization", value: HTTPAuthorization.basic(user: "proxyuser", password: "proxypass"))
            #expect(try await wrong.execute(explicit).text == "origin")
            #expect(wrongSeen.all.count == 3, "the caller's credential was accepted without a challenge")
            await wrong.shutdown()

            // No credential at all.
            let none = client(pki, proxy: try via(proxy.url))
            let unanswered = await transportError { try await none.execute(HTTPRequest(url: url)) }
            #expect(unanswered?.kind == .proxyAuthenticationFailed)
            #expect(unanswered?.message.contains("no proxy credential") == true)
            await none.shutdown()

            // The delegate cancels.
            let cancelling = client(pki, proxy: try via(proxy.url)) { config in
                config.challengeHandler = { $0.protectionSpace.isProxy ? .cancelAuthenticationChallenge : .performDefaultHandling }
            }
            let cancelled = await transportError { try await cancelling.execute(HTTPRequest(url: url)) }
            #expect(cancelled?.kind == .authenticationCancelled)
            #expect(cancelled?.phase == .proxy)
            await cancelling.shutdown()
            #expect(server.requests.count == 5, "only the requests whose tunnel opened reached the origin (four after answered challenges, one with the caller's own header)")
        }
    }

    @Test(.enabled(if: Tinyproxy.path != nil, "tinyproxy is not installed (apt-get install tinyproxy; .ci/run does)"))
    func plainHTTPGoesToTheProxyInAbsoluteFormWithItsCredential() async throws {
        let server = try await TestServer.http { _ in .text("plain") }
        try await withShutdown({ await server.shutdown() }) {
            let proxy = try await Tinyproxy.start(basicAuth: ("proxyuser", "proxypass"))
            defer { proxy.stop() }
            let client = makeClient(anchors: ServerPKI().anchors, hosts: [host], ats: .disabled) { config in
                config.proxy = try? self.via("http://proxyuser:proxypass@127.0.0.1:\(proxy.port)")
            }
            try await withShutdown({ await client.shutdown() }) {
                let response = try await client.execute(HTTPRequest(url: "http://\(host):\(server.port)/page?q=1"))
                #expect(response.text == "plain")
                #expect(proxy.logText.contains("GET http://\(host):\(server.port)/page?q=1"), "\(proxy.logText)")
                #expect(server.requests.first?.head.uri == "/page?q=1")
                #expect(server.requests.first?.head.headers.contains(name: "proxy-authorization") == false, "the proxy keeps its credential")
            }
        }
    }

    /// Where only the proxy reaches out, an OCSP request around it finds nothing (hard-fail refuses every server) and
    /// tells the network which CAs are in use: the client's own responder fetches go through the proxy too.
    @Test(.enabled(if: Tinyproxy.path != nil, "tinyproxy is not installed (apt-get install tinyproxy; .ci/run does)"))
    func revocationIsFetchedThroughTheProxy() async throws {
        let answer = NIOLockedValueBox<[UInt8]?>(nil)
        let responder = try await TestServer.http { _ in
            guard let der = answer.withLockedValue({ $0 }) else { return .text("not ready", status: .serviceUnavailable) }
            return TestResponse(headers: [("content-type", "application/ocsp-response")], body: der)
        }
        let responderURL = "http://\(host):\(responder.port)/"
        let aia = try Certificate.Extension(AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier(responderURL))]), critical: false)
        let root = PKI.root()
        let intermediate = root.intermediate("OCSP Test CA")
        let pki = ServerPKI(root: root, intermediate: intermediate, leaf: intermediate.leaf(dns: [host], extra: [aia]))
        answer.withLockedValue { $0 = try? OCSPResponseBuilder.response(for: pki.leaf, issuer: pki.intermediate, status: .good, at: Date()) }
        let server = try await origin(pki)
        try await withShutdown({ await server.shutdown(); await responder.shutdown() }) {
            let proxy = try await Tinyproxy.start()
            defer { proxy.stop() }
            let client = client(pki, proxy: try via(proxy.url)) { $0.revocation = .hard }
            try await withShutdown({ await client.shutdown() }) {
                let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
                #expect(response.text == "origin")
                #expect(responder.requests.count == 1)
                #expect(proxy.logText.contains("POST \(responderURL)"), "\(proxy.logText)")
            }
        }
    }

    @Test(.enabled(if: Tinyproxy.path != nil, "tinyproxy is not installed (apt-get install tinyproxy; .ci/run does)"))
    func atsFetchGoesThroughTinyproxyAndSaysSo() async throws {
        let pki = ServerPKI(dns: [host])
        let server = try await origin(pki)
        try await withShutdown({ await server.shutdown() }) {
            let proxy = try await Tinyproxy.start()
            defer { proxy.stop() }
            let dir = try TemporaryDirectory()
            let anchors = try dir.write("root.pem", pki.root.pem)
            let output = Output.capture()
            let status = await ATSCommand.run(arguments: withGenerousTimeLimits(["fetch", "https://\(host):\(server.port)/", "--anchors", anchors,
                                                                                                "--proxy", proxy.url, "--verbose"]), output: output)
            #expect(status == 0, "\(output.standardError)")
            #expect(output.standardOutput == "origin")
            #expect(output.standardError.contains("through the proxy \(proxy.url)"))
            #expect(proxy.logText.contains("CONNECT \(host):\(server.port)"))
        }
    }

    // MARK: Bypass and unreachable proxies

    @Test func noProxyBypassesTheProxyAndADeadProxyIsNamed() async throws {
        let pki = ServerPKI(dns: [host])
        let server = try await origin(pki)
        try await withShutdown({ await server.shutdown() }) {
            let deadPort = try ClosedPort()
            defer { deadPort.close() }
            let dead = deadPort.port
            let short = Timeouts(connect: .seconds(5), handshake: .seconds(30), request: .seconds(60))

            let bypassing = client(pki, proxy: try via("http://127.0.0.1:\(dead)", noProxy: "example.com, .\(host)"), timeouts: short)
            #expect(try await bypassing.execute(HTTPRequest(url: "https://\(host):\(server.port)/")).text == "origin")
            await bypassing.shutdown()

            let proxied = client(pki, proxy: try via("http://user:secret@127.0.0.1:\(dead)", noProxy: "example.com"), timeouts: short)
            let error = await transportError { try await proxied.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
            await proxied.shutdown()
            #expect(error?.kind == .connectionFailed)
            #expect(error?.phase == .proxy)
            #expect(error?.message.contains("proxy http://127.0.0.1:\(dead)") == true)
            #expect(error?.message.contains("unreachable") == true)
            #expect(error?.message.contains("127.0.0.1:\(dead) refused the connection") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("SingleConnectionFailure") == false, "NIO's text only in underlying")
            #expect(error?.underlying?.isEmpty == false)
            #expect(error.map { "\($0)" }?.contains("secret") == false, "never the proxy's password")
            #expect(server.requests.count == 1)
        }
    }

    // MARK: Hostile proxies

    @Test func aProxyAnsweringGarbageIsAMalformedProxyResponse() async throws {
        let pki = ServerPKI(dns: [host])
        let proxy = try await TestProxy.start(.garbage)
        try await withShutdown({ await proxy.shutdown() }) {
            let client = client(pki, proxy: try via(proxy.url))
            await withShutdown({ await client.shutdown() }) {
                let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):443/")) }
                #expect(error?.kind == .malformedResponse)
                #expect(error?.phase == .proxy)
                #expect(error?.message.contains("not HTTP") == true)
            }
        }
    }

    /// A CONNECT answer whose headers pass the parser's limits is named as that, not as an answer that is not HTTP.
    @Test func aProxyAnsweringWithEndlessHeadersIsSaidToSendTooMuch() async throws {
        let pki = ServerPKI(dns: [host])
        let proxy = try await TestServer.raw(.oversizedHeaders)
        try await withShutdown({ await proxy.shutdown() }) {
            let client = client(pki, proxy: try via("http://127.0.0.1:\(proxy.port)"))
            await withShutdown({ await client.shutdown() }) {
                let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):443/")) }
                #expect(error?.kind == .malformedResponse, "\(error?.description ?? "loaded")")
                #expect(error?.phase == .proxy)
                #expect(error?.message.contains("headers over the limits this client reads") == true, "\(error?.message ?? "")")
            }
        }
    }

    @Test func aProxySendingBytesAfterItsCONNECTAnswerIsSaidToHaveDoneSo() async throws {
        let pki = ServerPKI(dns: [host])
        let proxy = try await TestProxy.start(.garbageAfterConnect)
        try await withShutdown({ await proxy.shutdown() }) {
            let client = client(pki, proxy: try via(proxy.url))
            await withShutdown({ await client.shutdown() }) {
                let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):443/")) }
                #expect(error?.kind == .malformedResponse, "\(error?.description ?? "loaded")")
                #expect(error?.phase == .proxy)
                #expect(error?.message.contains("answered CONNECT with 200, then sent bytes of its own") == true, "\(error?.message ?? "")")
                #expect(error?.message.contains("closed") == false, "the proxy never closed the connection")
            }
        }
    }

    @Test func aRefusedCONNECTNamesTheProxyAndItsStatus() async throws {
        let pki = ServerPKI(dns: [host])
        let proxy = try await TestProxy.start(.forward(requiredAuthorization: nil))
        try await withShutdown({ await proxy.shutdown() }) {
            let closedPort = try ClosedPort()
            defer { closedPort.close() }
            let closed = closedPort.port
            let client = client(pki, proxy: try via(proxy.url))
            await withShutdown({ await client.shutdown() }) {
                let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(closed)/")) }
                #expect(error?.kind == .proxyRefused)
                #expect(error?.phase == .proxy)
                #expect(error?.message.contains("502") == true)
                #expect(error?.message.contains("proxy \(proxy.url)") == true)
                #expect(error?.message.contains("\(host):\(closed)") == true)
            }
        }
    }

    /// An address override for the proxy's host is where the proxy is reached, as it would be for an origin.
    @Test func anAddressOverrideReachesTheProxy() async throws {
        let pki = ServerPKI(dns: [host])
        let server = try await origin(pki)
        let proxy = try await TestProxy.start(.forward(requiredAuthorization: nil))
        try await withShutdown({ await server.shutdown(); await proxy.shutdown() }) {
            let client = client(pki, proxy: try via("http://proxy.invalid:\(proxy.port)")) { $0.addressOverrides["proxy.invalid"] = "127.0.0.1" }
            try await withShutdown({ await client.shutdown() }) {
                let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
                #expect(response.text == "origin")
                #expect(proxy.requests.first?.uri == "\(host):\(server.port)", "\(proxy.requests)")
            }
        }
    }

    /// A request refused before it is sent opens no proxy connection, so none is left open behind it.
    @Test func aRequestThatCannotBeSentOpensNoProxyConnection() async throws {
        let pki = ServerPKI(dns: [host])
        let proxy = try await TestProxy.start(.forward(requiredAuthorization: nil))
        try await withShutdown({ await proxy.shutdown() }) {
            let closedPort = try ClosedPort()
            defer { closedPort.close() }
            let closed = closedPort.port
            let client = client(pki, proxy: try via(proxy.url)) { $0.httpVersions = .http2Only; $0.ats = .disabled }
            await withShutdown({ await client.shutdown() }) {
                let error = await transportError { try await client.execute(HTTPRequest(url: "http://\(host):\(closed)/")) }
                #expect(error?.kind == .invalidRequest, "\(error?.description ?? "loaded")")
                // A request the proxy answers: connections are accepted in order, so any from the first came before it.
                let refused = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(closed)/")) }
                #expect(refused?.kind == .proxyRefused, "\(refused?.description ?? "loaded")")
                #expect(proxy.acceptedConnections == 1)
            }
        }
    }

    @Test func aProxyThatNeverAnswersOrHangsInTheTunnelTimesOut() async throws {
        let pki = ServerPKI(dns: [host])
        // Long enough for an in-process proxy to answer CONNECT on a loaded machine, short enough to wait out twice.
        let quick = Timeouts(connect: .seconds(5), handshake: .seconds(3), request: .seconds(30))

        let silent = try await TestProxy.start(.silent)
        try await withShutdown({ await silent.shutdown() }) {
            let first = client(pki, proxy: try via(silent.url), timeouts: quick)
            let unanswered = await transportError { try await first.execute(HTTPRequest(url: "https://\(host):443/")) }
            await first.shutdown()
            #expect(unanswered?.kind == .timedOut)
            #expect(unanswered?.phase == .proxy)
            #expect(unanswered?.message.contains("CONNECT") == true)

            let hanging = try await TestProxy.start(.hangAfterConnect)
            try await withShutdown({ await hanging.shutdown() }) {
                let second = client(pki, proxy: try via(hanging.url), timeouts: quick)
                let stalled = await transportError { try await second.execute(HTTPRequest(url: "https://\(host):443/")) }
                await second.shutdown()
                #expect(stalled?.kind == .timedOut)
                #expect(stalled?.phase == .handshake, "the tunnel opened; the origin's handshake never finished")
            }
        }
    }

    /// A task cancelled while the proxy has not answered CONNECT ends at once, not at the handshake limit (90 s, past
    /// the test's own), and its connection to the proxy is closed.
    @Test(.timeLimit(.minutes(1))) func aRequestCancelledWhileTheProxyHoldsCONNECTEndsAtOnce() async throws {
        let pki = ServerPKI(dns: [host])
        let silent = try await TestProxy.start(.silent)
        try await withShutdown({ await silent.shutdown() }) {
            let patient = Timeouts(connect: .seconds(90), handshake: .seconds(90), request: .seconds(90))
            let client = client(pki, proxy: try via(silent.url), timeouts: patient)
            let task = Task { try await client.execute(HTTPRequest(url: "https://\(host):443/")) }
            var handled = silent.handled.makeAsyncIterator()
            await handled.next()
            task.cancel()
            let error = await transportError { try await task.value }
            await client.shutdown()
            #expect(error?.kind == .cancelled, "\(String(describing: error))")
            #expect(error?.phase == .proxy)
            #expect(silent.requests.count == 1)
        }
    }

    @Test func aProxyInjectingItsOwnCertificateIsRefused() async throws {
        let pki = ServerPKI(dns: [host])
        let impostor = ServerPKI(dns: [host])
        let tls = try NIOSSLContext(configuration: TestServer.tlsConfiguration(chain: impostor.served, key: impostor.leaf.key))
        let proxy = try await TestProxy.start(.inject(tls))
        try await withShutdown({ await proxy.shutdown() }) {
            let client = client(pki, proxy: try via(proxy.url))
            await withShutdown({ await client.shutdown() }) {
                let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):443/")) }
                #expect(error?.kind == .serverTrustRefused)
                #expect(error?.phase == .handshake)
                #expect(proxy.requests.map(\.method) == [.CONNECT])
            }
        }
    }

    // MARK: Credentials stay where they belong

    @Test func proxyAndOriginCredentialsNeverCross() async throws {
        let pki = ServerPKI(dns: [host])
        let originAuth = HTTPAuthorization.basic(user: "alice", password: "origin-secret")
        let proxyAuth = HTTPAuthorization.basic(user: "bob", password: "proxy-secret")
        let server = try await origin(pki) { request in
            request.head.headers.first(name: "authorization") == originAuth ? .text("welcome")
                : TestResponse(status: .unauthorized, headers: [("www-authenticate", "Basic realm=\"origin\"")], body: [])
        }
        try await withShutdown({ await server.shutdown() }) {
            let proxy = try await TestProxy.start(.forward(requiredAuthorization: proxyAuth))
            try await withShutdown({ await proxy.shutdown() }) {
                let seen = ChallengeLog()
                let client = client(pki, proxy: try via(proxy.url)) { config in
                    config.challengeHandler = { challenge in
                        let space = challenge.protectionSpace
                        guard space.authenticationMethod == .httpBasic else { return .performDefaultHandling }
                        seen.append(challenge)
                        return .useCredential(space.isProxy ? .password(user: "bob", password: "proxy-secret", persistence: .forSession)
                                                            : .password(user: "alice", password: "origin-secret", persistence: .forSession))
                    }
                }
                try await withShutdown({ await client.shutdown() }) { () async throws in
                    #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")).text == "welcome")
                    #expect(try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/again")).text == "welcome")

                    #expect(!proxy.requests.isEmpty)
                    #expect(proxy.requests.allSatisfy { !$0.headers.contains(name: "authorization") }, "the origin's credential never reaches the proxy")
                    #expect(proxy.requests.last?.headers.first(name: "proxy-authorization") == proxyAuth)
                    #expect(server.requests.allSatisfy { !$0.head.headers.contains(name: "proxy-authorization") }, "the proxy's credential never reaches the origin")
                    #expect(server.requests.last?.head.headers.first(name: "authorization") == originAuth)
                    // Each space is proposed only its own stored credential.
                    let proxyChallenges = seen.all.filter(\.protectionSpace.isProxy)
                    let originChallenges = seen.all.filter { !$0.protectionSpace.isProxy }
                    #expect(proxyChallenges.count == 1 && originChallenges.count == 2)
                    #expect(proxyChallenges.allSatisfy { $0.proposedCredential?.userPassword?.user != "alice" })
                    #expect(originChallenges.allSatisfy { $0.proposedCredential?.userPassword?.user != "bob" })
                }
            }
        }
    }

    @Test func aCallersProxyAuthorizationGoesOnCONNECTAndNeverToAnOrigin() async throws {
        let pki = ServerPKI(dns: [host])
        let proxyAuth = HTTPAuthorization.basic(user: "bob", password: "proxy-secret")
        let b = try await origin(pki) { _ in .text("from b") }
        try await withShutdown({ await b.shutdown() }) {
            let a = try await origin(pki) { _ in
                TestResponse(status: .found, headers: [("location", "https://\(host):\(b.port)/landing")], body: [])
            }
            try await withShutdown({ await a.shutdown() }) {
                let proxy = try await TestProxy.start(.forward(requiredAuthorization: nil))
                try await withShutdown({ await proxy.shutdown() }) {
                    let client = client(pki, proxy: try via(proxy.url))
                    try await withShutdown({ await client.shutdown() }) { () async throws in
                        let request = HTTPRequest(url: "https://\(host):\(a.port)/", headers: ["proxy-authorization": proxyAuth])
                        #expect(try await client.execute(request).text == "from b")
                        #expect(proxy.requests.map(\.method) == [.CONNECT, .CONNECT])
                        #expect(proxy.requests.first?.headers.first(name: "proxy-authorization") == proxyAuth, "the proxy gets it on CONNECT")
                        #expect(proxy.requests.last?.headers.contains(name: "proxy-authorization") == false,
                                "a redirect to another origin drops it, as it drops Authorization")
                        #expect(!a.requests.isEmpty && !b.requests.isEmpty)
                        #expect((a.requests + b.requests).allSatisfy { !$0.head.headers.contains(name: "proxy-authorization") },
                                "no origin sees it inside the tunnel")
                    }
                }
            }
        }
    }

    @Test func aCallersProxyAuthorizationIsNotSentWithoutAProxy() async throws {
        let pki = ServerPKI(dns: [host])
        let server = try await origin(pki)
        try await withShutdown({ await server.shutdown() }) {
            let client = client(pki, proxy: nil)
            try await withShutdown({ await client.shutdown() }) { () async throws in
                let request = HTTPRequest(url: "https://\(host):\(server.port)/", headers: ["proxy-authorization": "Basic Ym9iOnNlY3JldA=="])
                #expect(try await client.execute(request).text == "origin")
                #expect(server.requests.count == 1)
                #expect(server.requests.first?.head.headers.contains(name: "proxy-authorization") == false)
            }
        }
    }

    // MARK: https proxies

    @Test func anHTTPSProxyIsHeldToItsOwnAnchorsAndNeverToPins() async throws {
        let pki = ServerPKI(dns: [host])
        let server = try await origin(pki)
        try await withShutdown({ await server.shutdown() }) {
            let proxyPKI = ServerPKI()
            let proxyLeaf = proxyPKI.intermediate.leaf(dns: [], ips: [[127, 0, 0, 1]], key: .p256())
            let tls = try NIOSSLContext(configuration: TestServer.tlsConfiguration(chain: [proxyLeaf, proxyPKI.intermediate], key: proxyLeaf.key))
            let proxy = try await TestProxy.start(.forward(requiredAuthorization: nil), tls: tls)
            try await withShutdown({ await proxy.shutdown() }) {
                // The origin is pinned; the proxy's certificate matches no pin and need not.
                let pin = try Pin(parsing: "sha256/" + ServerPKI.pin(pki.leaf))
                let manager = try ServerTrustManager(evaluators: [host: PinSetEvaluator(pins: [pin])])

                var trusted = try Proxy(url: proxy.url)
                trusted.anchors = proxyPKI.anchors
                let trusting = client(pki, proxy: ProxyConfiguration(all: trusted), trustManager: manager)
                let response = try await trusting.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
                await trusting.shutdown()
                #expect(response.text == "origin")
                #expect(response.connection.verdict?.chain.first?.der == pki.leaf.der, "the verdict is the origin's")

                // Without its anchors the proxy is untrusted, and named.
                let untrusting = client(pki, proxy: ProxyConfiguration(all: try Proxy(url: proxy.url)), trustManager: manager)
                let error = await transportError { try await untrusting.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
                await untrusting.shutdown()
                #expect(error?.kind == .serverTrustRefused)
                #expect(error?.phase == .proxy)
                #expect(error?.message.contains("proxy https://127.0.0.1:\(proxy.port)") == true)
                #expect(server.requests.count == 1)
            }
        }
    }
}
