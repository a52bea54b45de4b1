import NIOHTTP1
import Testing

@testable import TransportClient

/// The request loop's rules, one test each, without a socket: redirects, 401 and 407 challenges, retries and limits.
@Suite struct RequestLoopTests {
    /// Resolves targets as a client does; under `.default()` ATS plain http is refused, under `.disabled` allowed.
    static let strict = HTTPSClient(configuration: HTTPSClientConfiguration(ats: .default()))
    static let lax = HTTPSClient(configuration: HTTPSClientConfiguration(ats: .disabled))

    static func resolve(_ client: HTTPSClient) -> (String) throws(TransportError) -> Target {
        { (url: String) throws(TransportError) -> Target in try client.target(for: url, phase: .redirect, checkScheme: false) }
    }

    static let limits = RequestLoop.Limits(redirects: 3, challengesInAll: 2, attemptsPerSpace: 2)

    func makeLoop(_ request: HTTPRequest, limits: RequestLoop.Limits = Self.limits) throws -> RequestLoop {
        RequestLoop(request: request, target: try Self.strict.target(for: request.url, phase: .requirements), limits: limits)
    }

    func headers(_ pairs: [(String, String)]) -> HTTPHeaders { HTTPHeaders(pairs) }

    func isRedirect(_ next: RequestLoop.Next) -> Bool { if case .redirect = next { true } else { false } }
    func isDeliver(_ next: RequestLoop.Next) -> Bool { if case .deliver = next { true } else { false } }
    func isProxyChallenge(_ next: RequestLoop.Next) -> Bool { if case .proxyChallenge = next { true } else { false } }
    func challenges(_ next: RequestLoop.Next) -> [HTTPAuthChallenge]? { if case .challenge(let found) = next { found } else { nil } }

    // MARK: Redirects

    @Test(arguments: [301, 302, 303, 307, 308] as [UInt]) func aRedirectWithALocationIsFollowed(status: UInt) throws {
        var loop = try makeLoop(HTTPRequest(url: "https://a.example.test/start"))
        #expect(isRedirect(loop.received(status: status, headers: headers([("Location", "/next")]), proxy: nil).next))
        #expect(isDeliver(loop.received(status: status, headers: [:], proxy: nil).next), "without a Location it is the answer")
    }

    @Test func aFollowedRedirectResolvesTheLocationAgainstTheRequestAndCountsIt() throws {
        var loop = try makeLoop(HTTPRequest(url: "https://a.example.test/dir/start"))
        try loop.follow(302, to: "next?q=1", resolve: Self.resolve(Self.strict))
        #expect(loop.request.url == "https://a.example.test/dir/next?q=1")
        #expect(loop.target.path == "/dir/next?q=1")
        #expect(loop.redirects == ["https://a.example.test/dir/start"])
    }

    @Test func pastTheRedirectLimitTheRequestFails() throws {
        var loop = try makeLoop(HTTPRequest(url: "https://a.example.test/"))
        for hop in 0..<Self.limits.redirects { try loop.follow(302, to: "/\(hop)", resolve: Self.resolve(Self.strict)) }
        #expect(loop.redirects.count == Self.limits.redirects)
        let error = #expect(throws: TransportError.self) { try loop.follow(302, to: "/more", resolve: Self.resolve(Self.strict)) }
        #expect(error?.kind == .tooManyRedirects)
    }

    @Test(arguments: ["https://a.example.test/\u{0}", "https://[::1/"]) func aLocationThatIsNotAURLIsTheServersFault(location: String) throws {
        var loop = try makeLoop(HTTPRequest(url: "https://a.example.test/"))
        let error = #expect(throws: TransportError.self) { try loop.follow(302, to: location, resolve: Self.resolve(Self.strict)) }
        #expect(error?.kind == .malformedResponse)
        #expect(loop.redirects.isEmpty)
    }

    @Test func aLocationTheClientCannotFollowIsTheServersFault() throws {
        var loop = try makeLoop(HTTPRequest(url: "https://a.example.test/"))
        let error = #expect(throws: TransportError.self) { try loop.follow(302, to: "ftp://a.example.test/file", resolve: Self.resolve(Self.strict)) }
        #expect(error?.kind == .malformedResponse, "an invalid request would blame the caller")
    }

    @Test func aRedirectTargetsOwnRefusalStands() throws {
        var loop = try makeLoop(HTTPRequest(url: "https://a.example.test/"))
        let refuse = { (url: String) throws(TransportError) -> Target in
            throw TransportError(.hostNotAllowed, phase: .redirect, host: "b.example.test", port: 443, "not allowed")
        }
        let error = #expect(throws: TransportError.self) { try loop.follow(302, to: "https://b.example.test/", resolve: refuse) }
        #expect(error?.kind == .hostNotAllowed)
    }

    @Test func aRedirectToPlainHTTPIsRefusedUnlessATSAllowsIt() throws {
        var refused = try makeLoop(HTTPRequest(url: "https://a.example.test/"))
        let error = #expect(throws: TransportError.self) { try refused.follow(302, to: "http://a.example.test/", resolve: Self.resolve(Self.strict)) }
        #expect(error?.kind == .redirectRefused)
        var allowed = try makeLoop(HTTPRequest(url: "https://a.example.test/"))
        try allowed.follow(302, to: "http://a.example.test/", resolve: Self.resolve(Self.lax))
        #expect(allowed.target.scheme == "http")
    }

    static let post = HTTPRequest(url: "https://a.example.test/form", method: .POST,
                                  headers: HTTPHeaders([("content-type", "text/plain"), ("content-length", "2")]), body: Array("hi".utf8))

    @Test(arguments: [301, 302, 303] as [UInt]) func aPOSTRedirectedBy301To303BecomesAGETWithoutBody(status: UInt) {
        let next = RequestLoop.redirected(Self.post, status: status, to: "https://a.example.test/done", sameOrigin: true)
        #expect(next.method == .GET)
        #expect(next.body == nil)
        #expect(!next.headers.contains(name: "content-type") && !next.headers.contains(name: "content-length"))
    }

    @Test(arguments: [307, 308] as [UInt]) func aPOSTRedirectedBy307Or308StaysAPOSTWithItsBody(status: UInt) {
        let next = RequestLoop.redirected(Self.post, status: status, to: "https://a.example.test/done", sameOrigin: true)
        #expect(next.method == .POST)
        #expect(next.body == Array("hi".utf8))
        #expect(next.headers.contains(name: "content-type"))
    }

    @Test func a303TurnsAnyMethodButHEADIntoGET() {
        let put = HTTPRequest(url: "https://a.example.test/", method: .PUT, body: [1])
        #expect(RequestLoop.redirected(put, status: 303, to: "https://a.example.test/x", sameOrigin: true).method == .GET)
        #expect(RequestLoop.redirected(put, status: 301, to: "https://a.example.test/x", sameOrigin: true).method == .PUT, "301 changes only a POST")
        let head = HTTPRequest(url: "https://a.example.test/", method: .HEAD)
        #expect(RequestLoop.redirected(head, status: 303, to: "https://a.example.test/x", sameOrigin: true).method == .HEAD)
    }

    static let credentialed = HTTPRequest(url: "https://a.example.test/", headers: HTTPHeaders([
        ("authorization", "Basic dTpw"), ("proxy-authorization", "Basic cDpw"), ("cookie", "s=1"), ("host", "vhost.example.test"), ("accept", "*/*"),
    ]))
    static let credentialHeaders = ["authorization", "proxy-authorization", "cookie", "host"]

    @Test(arguments: ["https://b.example.test/", "https://a.example.test:8443/", "http://a.example.test/"])
    func credentialsAndHostStayBehindWhenTheOriginChanges(location: String) throws {
        var loop = try makeLoop(Self.credentialed)
        try loop.follow(302, to: location, resolve: Self.resolve(Self.lax))
        for name in Self.credentialHeaders { #expect(!loop.request.headers.contains(name: name), "\(name) went to another origin") }
        #expect(loop.request.headers.contains(name: "accept"))
    }

    @Test func credentialsAndHostGoAlongOnTheSameOrigin() throws {
        var loop = try makeLoop(Self.credentialed)
        try loop.follow(302, to: "/elsewhere", resolve: Self.resolve(Self.strict))
        for name in Self.credentialHeaders { #expect(loop.request.headers.contains(name: name), "\(name) was dropped") }
    }

    // MARK: 401

    static let basic = [("www-authenticate", "Basic realm=\"r\"")]

    @Test func a401WithChallengesIsAnsweredWithoutIsTheAnswer() throws {
        var loop = try makeLoop(HTTPRequest(url: "https://a.example.test/"))
        #expect(challenges(loop.received(status: 401, headers: headers(Self.basic), proxy: nil).next)?.first?.scheme == "basic")
        #expect(isDeliver(loop.received(status: 401, headers: [:], proxy: nil).next))
    }

    static let space = ProtectionSpace(host: "a.example.test", port: 443, protocol: "https", realm: "r", authenticationMethod: .httpBasic)
    static let answer = HTTPSClient.Answer(header: "Basic dTpw", space: space, credential: .password(user: "u", password: "p"))

    @Test func anAnsweredChallengeSendsTheRequestAgainWithItsAuthorization() throws {
        var loop = try makeLoop(HTTPRequest(url: "https://a.example.test/"))
        let answered = loop.challengeAnswered(Self.answer)
        #expect(answered)
        #expect(loop.request.headers["authorization"] == ["Basic dTpw"])
        #expect(loop.challengeAnswered(nil) == false, "no answer: the 401 is the answer")
    }

    @Test func aCredentialIsRememberedOnlyOnceItGetsPastItsChallenge() throws {
        var loop = try makeLoop(HTTPRequest(url: "https://a.example.test/"))
        _ = loop.challengeAnswered(Self.answer)
        #expect(loop.received(status: 401, headers: headers(Self.basic), proxy: nil).accepted.isEmpty, "refused again")
        _ = loop.challengeAnswered(Self.answer)
        #expect(loop.received(status: 200, headers: [:], proxy: nil).accepted.map(\.space) == [Self.space])
        #expect(loop.received(status: 200, headers: [:], proxy: nil).accepted.isEmpty, "remembered once")
    }

    @Test func pastTheLimitInAllNoChallengeIsAnswered() throws {
        var loop = try makeLoop(HTTPRequest(url: "https://a.example.test/"))
        for _ in 0..<Self.limits.challengesInAll {
            try loop.mayAnswerChallenge()
            _ = loop.challengeAnswered(Self.answer)
        }
        let error = #expect(throws: TransportError.self) { try loop.mayAnswerChallenge() }
        #expect(error?.kind == .tooManyAuthenticationAttempts)
    }

    static let digest = HTTPAuthChallenge.parse(["Digest realm=\"r\", nonce=\"n\", stale=true"])[0]
    static let digestSpace = ProtectionSpace(host: "a.example.test", port: 443, protocol: "https", realm: "r", authenticationMethod: .httpDigest)
    static let challenge = HTTPAuthChallenge.parse(["Basic realm=\"r\""])[0]

    func failures(_ step: ChallengeBook.Step) -> Int? { if case .ask(let failures) = step { failures } else { nil } }

    @Test func eachSpaceIsAskedWithItsFailuresUntilItsLimit() {
        var book = ChallengeBook(limit: 2)
        for expected in 0..<2 {
            let step = book.step(for: Self.space, challenge: Self.challenge, lastSent: nil)
            #expect(failures(step) == expected)
            #expect(book.sent(to: Self.space, after: step) == expected + 1, "the nonce count follows the failures")
        }
        guard case .giveUp = book.step(for: Self.space, challenge: Self.challenge, lastSent: nil) else {
            Issue.record("a space past its limit gives up")
            return
        }
    }

    @Test func aRejectedSpaceIsPassedOver() {
        var book = ChallengeBook(limit: 2)
        guard case .rejected = book.choose(.rejectProtectionSpace, proposed: nil, space: Self.space, failures: 0),
              case .skip = book.step(for: Self.space, challenge: Self.challenge, lastSent: nil) else {
            Issue.record("a rejected space is skipped for the rest of the request")
            return
        }
    }

    @Test func aStaleNonceResendsTheLastCredentialUncountedWithinTheLimit() {
        var book = ChallengeBook(limit: 2)
        let last = (space: Self.digestSpace, credential: Credential.password(user: "u", password: "p"))
        for _ in 0..<2 {
            let step = book.step(for: Self.digestSpace, challenge: Self.digest, lastSent: last)
            guard case .resend(let credential) = step else { Issue.record("a stale nonce resends"); return }
            #expect(credential.userPassword?.user == "u")
            #expect(book.sent(to: Self.digestSpace, after: step) == 1)
        }
        #expect(book.attempts.isEmpty, "a stale nonce is no failure")
        #expect(failures(book.step(for: Self.digestSpace, challenge: Self.digest, lastSent: last)) == 0, "past the bound, the handler is asked")
    }

    @Test func aStaleNonceForAnotherSpaceIsAskedAbout() {
        var book = ChallengeBook(limit: 2)
        let last = (space: Self.space, credential: Credential.password(user: "u", password: "p"))
        #expect(failures(book.step(for: Self.digestSpace, challenge: Self.digest, lastSent: last)) == 0)
    }

    @Test func defaultHandlingUsesTheStoredCredentialOnce() {
        var book = ChallengeBook(limit: 3)
        let stored = Credential.password(user: "u", password: "p")
        guard case .use = book.choose(.performDefaultHandling, proposed: stored, space: Self.space, failures: 0) else {
            Issue.record("the stored credential is tried first"); return
        }
        guard case .none = book.choose(.performDefaultHandling, proposed: stored, space: Self.space, failures: 1),
              case .none = book.choose(.performDefaultHandling, proposed: nil, space: Self.space, failures: 0) else {
            Issue.record("after it failed, or without one, the 401 is the answer"); return
        }
    }

    @Test func theHandlersCredentialIsUsedAndItsCancellationEndsTheRequest() {
        var book = ChallengeBook(limit: 3)
        guard case .use(let given) = book.choose(.useCredential(.password(user: "h", password: "p")), proposed: nil, space: Self.space, failures: 2),
              case .cancel = book.choose(.cancelAuthenticationChallenge, proposed: nil, space: Self.space, failures: 0) else {
            Issue.record("the handler's answer decides"); return
        }
        #expect(given.userPassword?.user == "h")
    }

    // MARK: 407

    static let proxy = Proxy(scheme: .http, host: "proxy.example.test", port: 3128)

    @Test func a407IsAProxyChallengeOnlyForPlainHTTPThroughAProxy() throws {
        var plain = RequestLoop(request: HTTPRequest(url: "http://a.example.test/"),
                                target: try Self.lax.target(for: "http://a.example.test/", phase: .requirements), limits: Self.limits)
        #expect(isProxyChallenge(plain.received(status: 407, headers: [:], proxy: Self.proxy).next))
        #expect(isDeliver(plain.received(status: 407, headers: [:], proxy: nil).next), "no proxy: the 407 is the answer")
        var tunnelled = try makeLoop(HTTPRequest(url: "https://a.example.test/"))
        #expect(isDeliver(tunnelled.received(status: 407, headers: [:], proxy: Self.proxy).next), "https meets a 407 at CONNECT")
    }

    @Test func aProxyCredentialIsRememberedOnceTheProxyLetsARequestThroughNotOnARedirect() throws {
        var loop = RequestLoop(request: HTTPRequest(url: "http://a.example.test/"),
                               target: try Self.lax.target(for: "http://a.example.test/", phase: .requirements), limits: Self.limits)
        let space = ProtectionSpace(host: "proxy.example.test", port: 3128, protocol: "http", realm: nil, authenticationMethod: .httpBasic, proxyType: "http")
        loop.proxyChallengeAnswered(ProxyAnswer(header: "Basic cDpw", space: space, credential: .password(user: "p", password: "w")))
        #expect(loop.received(status: 407, headers: [:], proxy: Self.proxy).accepted.isEmpty, "refused again")
        #expect(loop.received(status: 302, headers: headers([("location", "/x")]), proxy: Self.proxy).accepted.isEmpty)
        #expect(loop.received(status: 200, headers: [:], proxy: Self.proxy).accepted.map(\.space) == [space])
    }

    // MARK: Retries

    static func closed(_ underlying: String?) -> TransportError {
        TransportError(.connectionClosed, phase: .response, host: "a.example.test", port: 443, "closed", underlying: underlying)
    }

    @Test func aRefusedStreamIsSentAgainOnceWhateverTheMethod() {
        var attempts = SendAttempts()
        let refused = Self.closed(ExchangeFailure.refusedMarker)
        #expect(attempts.failed(refused, reused: false, method: .POST, identityPresented: false, hasHandler: false) == .retry)
        #expect(attempts.failed(refused, reused: false, method: .POST, identityPresented: false, hasHandler: false) == .fail)
    }

    @Test func aStaleKeepAliveConnectionIsRetriedForAnIdempotentRequest() {
        var get = SendAttempts()
        #expect(get.failed(Self.closed(nil), reused: true, method: .GET, identityPresented: false, hasHandler: false) == .retry)
        var fresh = SendAttempts()
        #expect(fresh.failed(Self.closed(nil), reused: false, method: .GET, identityPresented: false, hasHandler: false) == .fail,
                "a new connection that closed is the server's answer")
    }

    @Test func aPOSTIsRetriedOnlyWhenItProvablyWasNotSent() {
        var sent = SendAttempts()
        #expect(sent.failed(Self.closed(nil), reused: true, method: .POST, identityPresented: false, hasHandler: false) == .fail)
        var unsent = SendAttempts()
        #expect(unsent.failed(Self.closed(ExchangeFailure.notSentMarker), reused: true, method: .POST, identityPresented: false, hasHandler: false) == .retry)
    }

    @Test func aClientCertificateRefusalAsksTheHandlerOnceWhenNoIdentityWasPresented() {
        let refusal = TransportError(.clientCertificateRejected, phase: .handshake, host: "a.example.test", port: 443, "wants a certificate")
        var attempts = SendAttempts()
        #expect(attempts.failed(refusal, reused: false, method: .GET, identityPresented: false, hasHandler: true) == .askForIdentity)
        #expect(attempts.failed(refusal, reused: false, method: .GET, identityPresented: false, hasHandler: true) == .fail, "asked once")
        var presented = SendAttempts()
        #expect(presented.failed(refusal, reused: false, method: .GET, identityPresented: true, hasHandler: true) == .fail)
        var unhandled = SendAttempts()
        #expect(unhandled.failed(refusal, reused: false, method: .GET, identityPresented: false, hasHandler: false) == .fail)
    }
}
