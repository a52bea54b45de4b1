import AppTransportSecurity
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import TransportDecision
import TransportTrust

// HTTP authentication: answering 401 and 407 challenges through the challenge handler and the credential stores.
extension HTTPSClient {
    struct Answer {
        var header: String
        var space: ProtectionSpace
        var credential: Credential
    }

    /// The challenges this client can answer, strongest first: Digest SHA-256, Digest MD5, then Basic. One it cannot
    /// answer (qop=auth-int only, an unknown algorithm) is passed over for the next, as RFC 9110 §11.6.1 lets a client
    /// choose.
    static func usable(_ challenges: [HTTPAuthChallenge]) -> [(HTTPAuthChallenge, AuthenticationMethod, Int)] {
        challenges.compactMap { challenge -> (HTTPAuthChallenge, AuthenticationMethod, Int)? in
            switch challenge.scheme {
            case "digest":
                guard HTTPAuthorization.digestProblem(challenge) == nil,
                      let algorithm = HTTPAuthorization.DigestAlgorithm(parameter: challenge.parameters["algorithm"]) else { return nil }
                return (challenge, .httpDigest, 10 + algorithm.strength)
            case "basic": return (challenge, .httpBasic, 1)
            default: return nil
            }
        }.sorted { $0.2 > $1.2 }
    }

    /// The Authorization header that answers `challenge` with the user and password.
    private func authorization(_ method: AuthenticationMethod, challenge: HTTPAuthChallenge, user: String, password: String,
                               request: HTTPRequest, target: Target, nonceCount: Int) throws(TransportError) -> String {
        guard method == .httpDigest else { return HTTPAuthorization.basic(user: user, password: password) }
        do throws(HTTPAuthorization.DigestError) {
            return try HTTPAuthorization.digest(challenge: challenge, user: user, password: password, method: request.method.rawValue,
                                                uri: target.path, nonceCount: nonceCount)
        } catch {
            throw TransportError(.authenticationCancelled, phase: .authentication, host: target.host, port: target.port, error.description)
        }
    }

    /// - Parameter lastSent: the credential the request that drew these challenges carried, if any.
    func answer(_ challenges: [HTTPAuthChallenge], failure: HTTPResponse, request: HTTPRequest, target: Target,
                lastSent: (space: ProtectionSpace, credential: Credential)?, attempts: inout [ProtectionSpace: Int],
                rejected: inout Set<ProtectionSpace>, staleRetries: inout Int) async throws(TransportError) -> Answer? {
        let usable = Self.usable(challenges)
        for (challenge, method, _) in usable {
            let space = ProtectionSpace(host: target.host, port: target.port, protocol: target.scheme, realm: challenge.realm,
                                        authenticationMethod: method)
            if rejected.contains(space) { continue }
            let failures = attempts[space, default: 0]
            let credential: Credential
            // stale=true (RFC 7616 §3.3): the nonce expired, not the credential. Retry with the new nonce and the
            // same credential, without counting a failure or asking the delegate again, as curl does. Bounded, so a
            // server that calls every nonce stale still ends.
            let isStaleRetry = method == .httpDigest && challenge.parameters["stale"]?.lowercased() == "true"
                && lastSent?.space == space && staleRetries < configuration.maximumAuthenticationAttempts
            if isStaleRetry, let lastSent {
                staleRetries += 1
                credential = lastSent.credential
            } else {
                if failures >= configuration.maximumAuthenticationAttempts { return nil }
                let proposed = await storedCredential(for: space)
                let disposition: ChallengeDisposition
                if let handler = configuration.challengeHandler {
                    disposition = await handler(AuthenticationChallenge(protectionSpace: space, previousFailureCount: failures,
                                                                        failureResponse: failure, proposedCredential: proposed))
                } else {
                    disposition = .performDefaultHandling
                }
                switch disposition {
                case .useCredential(let given):
                    credential = given
                case .performDefaultHandling:
                    // The stored credential, once: after it has failed, the 401 is the answer.
                    guard let proposed, failures == 0 else { return nil }
                    credential = proposed
                case .cancelAuthenticationChallenge:
                    throw TransportError(.authenticationCancelled, phase: .authentication, host: target.host, port: target.port,
                                         "the challenge handler cancelled the \(method.rawValue) challenge for \(space)")
                case .rejectProtectionSpace:
                    rejected.insert(space)
                    continue
                }
            }
            guard let (user, password) = credential.userPassword else {
                throw TransportError(.authenticationCancelled, phase: .authentication, host: target.host, port: target.port,
                                     "an HTTP \(method.rawValue) challenge needs a user-and-password credential")
            }
            if !space.receivesCredentialSecurely && !configuration.allowsCredentialsOverInsecureHTTP {
                throw TransportError(.insecureHTTPRefused, phase: .authentication, host: target.host, port: target.port,
                                     "refusing to send a password to \(target.host) over plain http; use https, or set allowsCredentialsOverInsecureHTTP")
            }
            let header = try authorization(method, challenge: challenge, user: user, password: password, request: request, target: target,
                                           nonceCount: isStaleRetry ? 1 : failures + 1)
            if !isStaleRetry { attempts[space] = failures + 1 }
            return Answer(header: header, space: space, credential: credential)
        }
        return nil
    }

    func storedCredential(for space: ProtectionSpace) async -> Credential? {
        if let found = await sessionCredentials.credential(for: space) {
            return .password(user: found.user, password: found.password, persistence: .forSession)
        }
        if let store = configuration.credentialStore, let found = await store.credential(for: space) {
            return .password(user: found.user, password: found.password, persistence: .permanent)
        }
        return nil
    }

    func remember(_ credential: Credential, for space: ProtectionSpace) async {
        guard let (user, password) = credential.userPassword else { return }
        switch credential.persistence {
        case .none:
            return
        case .forSession:
            await sessionCredentials.set(user: user, password: password, for: space)
        case .permanent:
            await sessionCredentials.set(user: user, password: password, for: space)
            try? await configuration.credentialStore?.set(user: user, password: password, for: space)
        }
    }
}
