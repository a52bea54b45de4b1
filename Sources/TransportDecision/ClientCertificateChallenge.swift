/// The client-certificate challenge (URLSession's `NSURLAuthenticationMethodClientCertificate`): when a server
/// refuses a handshake for want of a client certificate, whether the delegate is asked for one, and what its answer
/// does to the request.
///
/// Under TLS 1.3 the server's refusal arrives after the client's handshake is over, so the client cannot ask during
/// the handshake as URLSession does; it asks after the refusal and tries once more with the identity it is given.
public enum ClientCertificateChallenge {
    /// How the delegate answered, as far as the decision cares.
    public enum Answer: Sendable, Hashable {
        /// Default handling, or the protection space rejected.
        case noIdentity
        /// The delegate cancelled the challenge.
        case cancel
        /// The delegate gave an identity.
        case identity
        /// The delegate gave a credential that is not an identity (a password, a server trust).
        case wrongCredential
    }

    /// What happens to the request.
    public enum Outcome: Sendable, Hashable {
        /// The server's refusal is the request's error.
        case refusalStands
        /// The request fails as cancelled by the delegate.
        case cancelled
        /// The connection is made again, presenting the delegate's identity.
        case retryPresentingIdentity
    }

    /// Whether the refusal is put to the delegate: only when the server refused for a client certificate, none was
    /// presented (a configured identity the server refused is not replaced), there is a delegate, and it has not been
    /// asked already for this request (a second refusal is final, so a delegate cannot loop).
    public static func asksDelegate(refusedForClientCertificate: Bool, identityPresented: Bool, hasDelegate: Bool,
                                    askedBefore: Bool) -> Bool {
        refusedForClientCertificate && !identityPresented && hasDelegate && !askedBefore
    }

    /// The request's fate after the delegate's answer.
    public static func outcome(_ answer: Answer) -> Outcome {
        switch answer {
        case .identity: return .retryPresentingIdentity
        case .cancel: return .cancelled
        case .noIdentity, .wrongCredential: return .refusalStands
        }
    }
}
