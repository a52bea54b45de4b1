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

    /// The Authorization that answers one of `challenges`, strongest first, or nil when none is answered (the 401 is
    /// then the answer). `book` decides what each challenge's protection space allows.
    /// - Parameter lastSent: the credential the request that drew these challenges carried, if any.
    func answer(_ challenges: [HTTPAuthChallenge], failure: HTTPResponse, request: HTTPRequest, target: Target,
                lastSent: (space: ProtectionSpace, credential: Credential)?, book: inout ChallengeBook) async throws(TransportError) -> Answer? {
        for (challenge, method, _) in Self.usable(challenges) {
            let space = ProtectionSpace(host: target.host, port: target.port, protocol: target.scheme, realm: challenge.realm,
                                        authenticationMethod: method)
            let step = book.step(for: space, challenge: challenge, lastSent: lastSent)
            let credential: Credential
            switch step {
            case .skip: continue
            case .giveUp: return nil
            case .resend(let last): credential = last
            case .ask(let failures):
                let proposed = await storedCredential(for: space)
                let disposition = await configuration.challengeHandler?(AuthenticationChallenge(protectionSpace: space, previousFailureCount: failures,
                                                                                                 failureResponse: failure, proposedCredential: proposed))
                switch book.choose(disposition ?? .performDefaultHandling, proposed: proposed, space: space, failures: failures) {
                case .use(let chosen): credential = chosen
                case .none: return nil
                case .rejected: continue
                case .cancel:
                    throw TransportError(.authenticationCancelled, phase: .authentication, host: target.host, port: target.port,
                                         "the challenge handler cancelled the \(method.rawValue) challenge for \(space)")
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
                                           nonceCount: book.sent(to: space, after: step))
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
