/// Whether a server asks for a client certificate, and what it does without one.
public enum ClientCertificateMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// A client certificate must be sent and must pass verification; a client without one gets a TLS alert.
    case required
    /// A client certificate is verified if one is sent; a client without one is let in, and its verdict says
    /// ``ClientCertificateVerdict/Outcome/notPresented``.
    case optional
    /// No client certificate is asked for.
    case none
}
