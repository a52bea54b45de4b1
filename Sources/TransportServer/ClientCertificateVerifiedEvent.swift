/// The user inbound event that follows a completed handshake on a ``MutualTLSServer`` connection, before
/// `TLSUserEvent.handshakeCompleted` itself: the verdict on the client, for handlers that want it pushed to them.
public struct ClientCertificateVerifiedEvent: Sendable {
    /// The verdict on the client's certificate chain.
    public var verdict: ClientCertificateVerdict

    /// The event for `verdict`.
    package init(verdict: ClientCertificateVerdict) { self.verdict = verdict }
}
