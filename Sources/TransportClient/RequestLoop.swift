import AppTransportSecurity
import Foundation
import NIOHTTP1
import TransportDecision
import TransportTrust

/// One request's way from the caller's request to its answer, as a plain value: redirects, 401 and 407 challenges,
/// and the limits on each. It decides and counts; the client's glue sends, reads, asks the challenge handler and
/// remembers credentials, so that every rule can be tested without a socket.
struct RequestLoop {
    struct Limits: Sendable {
        var redirects: Int
        /// Challenges answered in all, whatever protection spaces the server names.
        var challengesInAll: Int
        /// Failures per protection space, and stale-nonce retries in all.
        var attemptsPerSpace: Int
    }

    /// What to do with a response whose head has arrived.
    enum Next {
        /// Read its body away, then ``follow(_:to:resolve:)``.
        case redirect(status: UInt, location: String)
        /// A 407 from the proxy a plain http request went to: read it, answer the proxy, send again.
        case proxyChallenge(Proxy)
        /// A 401 with challenges: read it, then answer one (``challengeAnswered(_:)``) or return it.
        case challenge([HTTPAuthChallenge])
        /// The response is the answer.
        case deliver
    }

    /// A credential that got past its challenge, to be remembered as its persistence says.
    struct Accepted {
        var space: ProtectionSpace
        var credential: Credential
    }

    /// The request to send next, and where.
    private(set) var request: HTTPRequest
    private(set) var target: Target
    /// The URLs redirected from, in order.
    private(set) var redirects: [String] = []
    let limits: Limits
    /// Each protection space's failures, rejections and stale retries, which the challenge answer consults.
    var challenges: ChallengeBook
    /// The proxy's refusals of a plain http request's credential.
    var proxyFailures = 0
    private(set) var answeredChallenges = 0
    /// The credential the last request carried, remembered once it gets past its challenge.
    private(set) var pendingCredential: (space: ProtectionSpace, credential: Credential)?
    private(set) var pendingProxy: ProxyAnswer?

    init(request: HTTPRequest, target: Target, limits: Limits) {
        self.request = request
        self.target = target
        self.limits = limits
        challenges = ChallengeBook(limit: limits.attemptsPerSpace)
    }

    /// A response head arrived for ``request``.
    /// - Parameter proxy: the proxy ``target`` goes through, if any; looked up only for a 407.
    mutating func received(status: UInt, headers: HTTPHeaders, proxy: @autoclosure () -> Proxy?) -> (next: Next, accepted: [Accepted]) {
        var accepted: [Accepted] = []
        if let pending = pendingCredential, status != 401 {
            accepted.append(Accepted(space: pending.space, credential: pending.credential))
            pendingCredential = nil
        }
        if [301, 302, 303, 307, 308].contains(status), let location = headers.first(name: "location") {
            return (.redirect(status: status, location: location), accepted)
        }
        if let pending = pendingProxy, status != 407 {
            accepted.append(Accepted(space: pending.space, credential: pending.credential))
            pendingProxy = nil
        }
        // A 407 comes back on a request only for plain http sent through a proxy; https meets it at CONNECT.
        if status == 407, target.scheme == "http", let proxy = proxy() { return (.proxyChallenge(proxy), accepted) }
        if status == 401 {
            let challenges = HTTPAuthChallenge.parse(headers["www-authenticate"])
            if !challenges.isEmpty { return (.challenge(challenges), accepted) }
        }
        return (.deliver, accepted)
    }

    /// Follows a redirect within the limit: the next ``request`` and ``target``. A Location that cannot be followed
    /// is the server's fault; plain HTTP that the next target's ATS requirements do not allow is refused.
    /// - Parameter resolve: the target of an absolute URL, as the client resolves it (ATS, trust rules).
    mutating func follow(_ status: UInt, to location: String, resolve: (String) throws(TransportError) -> Target) throws(TransportError) {
        guard redirects.count < limits.redirects else {
            throw TransportError(.tooManyRedirects, phase: .redirect, host: target.host, port: target.port,
                                 "more than \(limits.redirects) redirects; the last pointed to \(location)")
        }
        guard URLText.problem(in: location) == nil,
              let next = URL(string: location, relativeTo: URL(string: request.url))?.absoluteURL.absoluteString else {
            throw TransportError(.malformedResponse, phase: .redirect, host: target.host, port: target.port,
                                 "the server redirected \(request.url) to \(NameDisplay.quoted(location)), which is not a URL")
        }
        let nextTarget: Target
        do throws(TransportError) { nextTarget = try resolve(next) } catch {
            guard error.kind == .invalidRequest else { throw error }
            throw TransportError(.malformedResponse, phase: .redirect, host: target.host, port: target.port,
                                 "the server redirected \(request.url) to \(NameDisplay.quoted(location)), which cannot be followed: \(error.message)")
        }
        if nextTarget.scheme == "http" && !nextTarget.requirements.allowsInsecureHTTP.value {
            throw TransportError(.redirectRefused, phase: .redirect, host: nextTarget.host, port: nextTarget.port,
                                 "\(request.url) redirected to plain \(next), and plain HTTP to \(nextTarget.host) is not allowed (\(nextTarget.requirements.allowsInsecureHTTP.because)); NSExceptionAllowsInsecureHTTPLoads for \(nextTarget.host) would allow it")
        }
        redirects.append(request.url)
        request = Self.redirected(request, status: status, to: next, sameOrigin: nextTarget.hasOrigin(of: target))
        target = nextTarget
    }

    /// The request a redirect with `status` asks for at `url`.
    static func redirected(_ request: HTTPRequest, status: UInt, to url: String, sameOrigin: Bool) -> HTTPRequest {
        var next = HTTPRequest(url: url, method: request.method, headers: request.headers, body: request.body)
        // 303, and 301/302 after POST, become GET without a body (RFC 9110 §15.4); a HEAD stays a HEAD (§15.4.4).
        if (status == 303 && request.method != .HEAD) || ((status == 301 || status == 302) && request.method == .POST) {
            next.method = .GET
            next.body = nil
            next.headers.remove(name: "content-type")
            next.headers.remove(name: "content-length")
        }
        // Credentials belong to the origin they were given for, and a Host the caller set names a virtual host there
        // (curl, too, sends a custom Host to the first host only). A proxy credential goes too: the next origin may
        // take another route.
        if !sameOrigin {
            for name in ["authorization", "proxy-authorization", "cookie", "host"] { next.headers.remove(name: name) }
        }
        return next
    }

    /// Whether another 401 may be answered: per-space limits do not bound a server that names a new realm each time.
    func mayAnswerChallenge() throws(TransportError) {
        guard answeredChallenges < limits.challengesInAll else {
            throw TransportError(.tooManyAuthenticationAttempts, phase: .authentication, host: target.host, port: target.port,
                                 "the server asked for credentials again after \(answeredChallenges) answered challenges (\(challenges.attempts.count) protection spaces); none is sent again. Check the user and password, or raise HTTPSClientConfiguration.maximumTotalAuthenticationAttempts")
        }
    }

    /// A 401's outcome: true when ``request`` now carries `answer` and goes again, false when the 401 is the answer.
    mutating func challengeAnswered(_ answer: HTTPSClient.Answer?) -> Bool {
        guard let answer else { return false }
        answeredChallenges += 1
        request.headers.replaceOrAdd(name: "authorization", value: answer.header)
        pendingCredential = (answer.space, answer.credential)
        return true
    }

    /// A 407 answered: the request goes again, and `answer` is remembered once the proxy accepts it.
    mutating func proxyChallengeAnswered(_ answer: ProxyAnswer) {
        pendingProxy = answer
    }
}

extension RequestLoop.Limits {
    /// The configuration's limits. In an extension, so that the memberwise initialiser stays.
    init(_ configuration: HTTPSClientConfiguration) {
        self.init(redirects: configuration.maximumRedirects, challengesInAll: configuration.maximumTotalAuthenticationAttempts,
                  attemptsPerSpace: configuration.maximumAuthenticationAttempts)
    }
}

extension Target {
    /// Same scheme, host and port: what credentials and a caller's Host header are bound to.
    func hasOrigin(of other: Target) -> Bool {
        host == other.host && port == other.port && scheme == other.scheme
    }
}

/// What a request carries from one 401 to the next, per protection space.
struct ChallengeBook {
    /// Failures per space, and stale-nonce retries in all.
    let limit: Int
    private(set) var attempts: [ProtectionSpace: Int] = [:]
    private(set) var rejected: Set<ProtectionSpace> = []
    private(set) var staleRetries = 0

    init(limit: Int) { self.limit = limit }

    /// What to do about one challenge the client can answer.
    enum Step {
        /// The handler rejected this space earlier: try the next challenge.
        case skip
        /// The nonce went stale, not the credential: send the last one again, with the new nonce.
        case resend(Credential)
        /// The space failed `limit` times: the 401 is the answer.
        case giveUp
        /// Ask the challenge handler, telling it the failures so far.
        case ask(failures: Int)
    }

    /// - Parameter lastSent: the credential the request that drew the challenge carried, if any.
    mutating func step(for space: ProtectionSpace, challenge: HTTPAuthChallenge,
                       lastSent: (space: ProtectionSpace, credential: Credential)?) -> Step {
        if rejected.contains(space) { return .skip }
        // stale=true (RFC 7616 §3.3): the nonce expired, not the credential. Retry with the new nonce and the same
        // credential, without counting a failure or asking the delegate again, as curl does. Bounded, so a server
        // that calls every nonce stale still ends.
        if space.authenticationMethod == .httpDigest, challenge.parameters["stale"]?.lowercased() == "true",
           let lastSent, lastSent.space == space, staleRetries < limit {
            staleRetries += 1
            return .resend(lastSent.credential)
        }
        let failures = attempts[space, default: 0]
        return failures >= limit ? .giveUp : .ask(failures: failures)
    }

    /// What the handler's answer makes of a challenge.
    enum Choice {
        case use(Credential)
        /// No credential: the 401 is the answer.
        case none
        case cancel
        /// This space is passed over, now and for the rest of the request.
        case rejected
    }

    mutating func choose(_ disposition: ChallengeDisposition, proposed: Credential?, space: ProtectionSpace, failures: Int) -> Choice {
        switch disposition {
        case .useCredential(let given):
            return .use(given)
        case .performDefaultHandling:
            // The stored credential, once: after it has failed, the 401 is the answer.
            guard let proposed, failures == 0 else { return .none }
            return .use(proposed)
        case .cancelAuthenticationChallenge:
            return .cancel
        case .rejectProtectionSpace:
            rejected.insert(space)
            return .rejected
        }
    }

    /// Counts a credential sent for `space` after `step`; the Digest nonce count it goes with.
    mutating func sent(to space: ProtectionSpace, after step: Step) -> Int {
        guard case .ask(let failures) = step else { return 1 }
        attempts[space] = failures + 1
        return failures + 1
    }
}

/// One send's retries: once more on a new connection when the request provably did not run (or may run twice), and
/// one question to the challenge handler for a client identity.
struct SendAttempts {
    private(set) var retried = false
    private(set) var askedForIdentity = false

    enum Next: Equatable {
        case retry
        /// Ask the handler for an identity, then connect again presenting it, or fail as it says.
        case askForIdentity
        case fail
    }

    mutating func failed(_ error: TransportError, reused: Bool, method: HTTPMethod, identityPresented: Bool, hasHandler: Bool) -> Next {
        // A pooled connection the server closed: try once more on a new one.
        if !retried && ExchangeFailure.mayRetry(error, reused: reused, method: method) {
            retried = true
            return .retry
        }
        // A server that wants a certificate we did not send (under TLS 1.3 this shows only after the handshake): ask
        // the delegate once, as URLSession does.
        guard ClientCertificateChallenge.asksDelegate(refusedForClientCertificate: error.kind == .clientCertificateRejected,
                                                      identityPresented: identityPresented, hasDelegate: hasHandler,
                                                      askedBefore: askedForIdentity) else { return .fail }
        askedForIdentity = true
        return .askForIdentity
    }
}
