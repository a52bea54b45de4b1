/// How the delegate answered the server-trust challenge, as far as the decision cares.
public enum ServerTrustAnswer: Sendable, Hashable {
    /// No delegate, default handling, or the protection space rejected: the evaluation stands.
    case evaluationStands
    /// The delegate cancelled: the connection is refused whatever the evaluation said.
    case cancel
    /// The delegate accepted the server's trust: honoured only where the requirements let it loosen trust.
    case acceptServerTrust
    /// The delegate answered with a credential that is not a server trust (a password, an identity).
    case wrongCredential
}
