import NIOCore
import NIOHTTP1

extension HTTPSClient {
    /// A channel through `proxy` ready for `target`: a CONNECT tunnel for https, the proxy itself for http. Answers the
    /// proxy's 407 challenges through the challenge handler, each time on a new connection.
    /// - Parameter given: the request's own Proxy-Authorization, sent when no credential is remembered for the proxy.
    func tunnel(through proxy: Proxy, to target: Target, authorization given: String? = nil,
                deadline: NIODeadline) async throws(TransportError) -> any Channel {
        let authority = target.scheme == "https" ? AddressOverrides.key(host: target.host, port: target.port) : nil
        var failures = 0
        var authorization = proxyAuthorizations.withLockedValue { $0[proxy.description] } ?? given
        var pending: ProxyAnswer?
        while true {
            switch try await ProxyTunnel.open(proxy, connect: authority, authorization: authorization, target: target,
                                              configuration: configuration, group: group, deadline: deadline) {
            case .open(let channel):
                if let pending { await remember(pending.credential, for: pending.space) }
                return channel
            case .authenticationRequired(let head):
                forgetProxyAuthorization(authorization, for: proxy)
                let answer = try await answerProxyChallenge(head, proxy: proxy, target: target, failures: &failures, failure: nil)
                authorization = answer.header
                pending = answer
            }
        }
    }

    /// Forgets the remembered Proxy-Authorization for `proxy` when it is `refused`: a credential the proxy turned
    /// down must not lead later requests, ahead of the caller's own header.
    func forgetProxyAuthorization(_ refused: String?, for proxy: Proxy) {
        guard let refused else { return }
        proxyAuthorizations.withLockedValue { if $0[proxy.description] == refused { $0[proxy.description] = nil } }
    }

    /// Answers a proxy's 407 with Basic, through the challenge handler with a protection space whose `proxyType` is
    /// set. Returns the Proxy-Authorization to send, and keeps it for this proxy's next connections; the caller
    /// remembers the credential once the proxy has accepted it.
    ///
    /// Basic goes to an `http://` proxy in the clear, as with curl and URLSession: a proxy that asks for it is on a
    /// network path the caller chose. The credential never reaches an origin: https travels inside the tunnel.
    func answerProxyChallenge(_ head: HTTPResponseHead, proxy: Proxy, target: Target, failures: inout Int,
                              failure: HTTPResponse?) async throws(TransportError) -> ProxyAnswer {
        func refused(_ message: String) -> TransportError {
            TransportError(.proxyAuthenticationFailed, phase: .proxy, host: target.host, port: target.port, "the proxy \(proxy) \(message)")
        }
        let challenges = HTTPAuthChallenge.parse(head.headers["proxy-authenticate"] + head.headers["www-authenticate"])
        guard let basic = challenges.first(where: { $0.scheme == "basic" }) else {
            let offered = challenges.map(\.scheme).joined(separator: ", ")
            throw refused("requires authentication (407) " + (offered.isEmpty ? "without naming a scheme" : "by \(offered)") + "; only Basic is supported for proxies")
        }
        let space = ProtectionSpace(host: proxy.host, port: proxy.port, protocol: proxy.scheme.rawValue, realm: basic.realm,
                                    authenticationMethod: .httpBasic, proxyType: proxy.scheme.rawValue)
        guard failures < configuration.maximumAuthenticationAttempts else {
            throw refused("refused the credential \(failures) times (407); check the proxy user and password")
        }
        let given = proxy.user.map { Credential.password(user: $0, password: proxy.password ?? "", persistence: .forSession) }
        let proposed = await storedCredential(for: space) ?? given
        let disposition: ChallengeDisposition
        if let handler = configuration.challengeHandler {
            disposition = await handler(AuthenticationChallenge(protectionSpace: space, previousFailureCount: failures, failureResponse: failure,
                                                                proposedCredential: proposed))
        } else {
            disposition = .performDefaultHandling
        }
        let credential: Credential
        switch disposition {
        case .useCredential(let chosen):
            credential = chosen
        case .performDefaultHandling:
            guard let proposed, failures == 0 else {
                throw refused(proposed == nil ? "requires authentication (407) and no proxy credential was given; put it in the proxy URL (http://USER:PASSWORD@HOST:PORT) or answer the challenge"
                                              : "refused the proxy credential (407); check the proxy user and password")
            }
            credential = proposed
        case .cancelAuthenticationChallenge:
            throw TransportError(.authenticationCancelled, phase: .proxy, host: target.host, port: target.port,
                                 "the challenge handler cancelled the proxy's Basic challenge for \(space)")
        case .rejectProtectionSpace:
            throw refused("requires authentication (407) and the challenge handler rejected its protection space")
        }
        guard let (user, password) = credential.userPassword else {
            throw refused("requires Basic authentication, which needs a user-and-password credential")
        }
        failures += 1
        let header = HTTPAuthorization.basic(user: user, password: password)
        proxyAuthorizations.withLockedValue { $0[proxy.description] = header }
        return ProxyAnswer(header: header, space: space, credential: credential)
    }
}

/// A proxy challenge's answer, remembered once the proxy accepts it.
struct ProxyAnswer: Sendable {
    var header: String
    var space: ProtectionSpace
    var credential: Credential
}
