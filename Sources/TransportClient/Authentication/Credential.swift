/// How long a credential is remembered, as `URLCredential.Persistence`.
public enum CredentialPersistence: String, Sendable, Hashable, Codable {
    /// Used for this request only.
    case none
    /// Remembered by the client until it is shut down.
    case forSession
    /// Written to the client's ``CredentialStore``.
    case permanent
}

/// What answers a challenge: a user and password, a client identity, or acceptance of the server's trust.
public struct Credential: Sendable {
    /// What the credential holds.
    public enum Kind: Sendable {
        /// A user and password, for Basic and Digest.
        case password(user: String, password: String)
        /// A client certificate and its key, for a client-certificate request.
        case identity(ClientIdentity)
        /// Accepts the server trust that was evaluated. It can only accept what the requirements allow: under
        /// ATS, an untrusted chain stays refused unless the domain's exception lets the app loosen trust.
        case serverTrust
    }

    /// What the credential holds.
    public var kind: Kind
    /// How long the client remembers it.
    public var persistence: CredentialPersistence

    /// A credential of `kind`, remembered as `persistence` says (for this request only by default).
    public init(_ kind: Kind, persistence: CredentialPersistence = .none) {
        self.kind = kind
        self.persistence = persistence
    }

    /// A user and password, remembered for the session by default, as `URLCredential(user:password:persistence:)`.
    public static func password(user: String, password: String, persistence: CredentialPersistence = .forSession) -> Credential {
        Credential(.password(user: user, password: password), persistence: persistence)
    }

    /// A client identity, for this request.
    public static func identity(_ identity: ClientIdentity) -> Credential { Credential(.identity(identity)) }

    /// Accepts the evaluated server trust, within what the requirements allow.
    public static let serverTrust = Credential(.serverTrust)

    /// The user and password, when this is a password credential.
    public var userPassword: (user: String, password: String)? {
        if case .password(let user, let password) = kind { return (user, password) }
        return nil
    }
}

/// How the delegate answers a challenge, as `URLSession.AuthChallengeDisposition`.
public enum ChallengeDisposition: Sendable {
    /// Use this credential.
    case useCredential(Credential)
    /// Do what the client would do with no delegate: stored credentials for HTTP, the evaluation's verdict
    /// for server trust, no certificate for a client-certificate request.
    case performDefaultHandling
    /// Cancel the request: it fails with ``TransportError/Kind/authenticationCancelled``.
    case cancelAuthenticationChallenge
    /// Decline this protection space and let the client try the server's next one (for example Basic after
    /// Digest). When there is none, the challenge response is returned as it is.
    case rejectProtectionSpace
}

/// One challenge, as `URLAuthenticationChallenge`.
public struct AuthenticationChallenge: Sendable {
    /// Who asks, and how.
    public var protectionSpace: ProtectionSpace
    /// How many times credentials for this space have already failed during this request.
    public var previousFailureCount: Int
    /// The response that carried the challenge (a 401), for HTTP challenges.
    public var failureResponse: HTTPResponse?
    /// A stored credential the client would use by default.
    public var proposedCredential: Credential?
    /// For server-trust challenges: the evaluation the client made, with the chain and reasons.
    public var serverTrust: ServerTrustChallengeInfo?

    /// A challenge as the client hands it to the delegate.
    public init(protectionSpace: ProtectionSpace, previousFailureCount: Int, failureResponse: HTTPResponse? = nil,
                proposedCredential: Credential? = nil, serverTrust: ServerTrustChallengeInfo? = nil) {
        self.protectionSpace = protectionSpace
        self.previousFailureCount = previousFailureCount
        self.failureResponse = failureResponse
        self.proposedCredential = proposedCredential
        self.serverTrust = serverTrust
    }
}

/// Answers challenges. An async closure, called once per challenge.
public typealias ChallengeHandler = @Sendable (AuthenticationChallenge) async -> ChallengeDisposition
