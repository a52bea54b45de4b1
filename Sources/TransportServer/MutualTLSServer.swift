import Logging
import NIOCore
import NIOSSL
import TransportTrust

/// A swift-nio-ssl server whose client certificates are verified by the trust engine during the handshake.
///
/// Add ``configure(_:)`` to each accepted channel's pipeline, before the application's handlers:
///
/// ```swift
/// let policy = ClientVerificationPolicy(anchors: clientCAs, nameRules: [try ClientNameRule(parsing: "uri:spiffe://example.org/*")])
/// let server = try MutualTLSServer(certificateChain: chain, privateKey: key, policy: policy)
/// ServerBootstrap(group: group).childChannelInitializer { channel in
///     channel.eventLoop.makeCompletedFuture {
///         try server.configure(channel.pipeline.syncOperations)
///         try channel.pipeline.syncOperations.configureHTTPServerPipeline()
///     }
/// }
/// ```
///
/// A refused client gets a TLS alert (certificate_unknown; for none sent, certificate_required under TLS 1.3 and
/// handshake_failure under TLS 1.2) and the ``logger`` gets one line: reason code, subject, SPKI hash, peer
/// address. After the handshake the verdict reaches the application as ``ClientCertificateVerifiedEvent`` and
/// through `Channel.clientCertificateVerdict()`.
public final class MutualTLSServer: Sendable {
    /// The decision each handshake runs.
    public let verifier: ClientCertificateVerifier
    /// The TLS context, shared by every connection: the server's identity, and client certificates asked for as
    /// the policy's mode says.
    public let sslContext: NIOSSLContext
    /// How long a client has to finish its handshake; a stalled client is closed after it.
    public let handshakeTimeout: TimeAmount
    /// Where refusal lines go, at `notice`.
    public let logger: Logger
    /// The chains of recently verified clients, so that a resumed session's client can be verified again.
    let recentChains = RecentChains(capacity: 4096)

    /// A server that presents `certificateChain` and verifies every client's certificate against `policy` in the
    /// handshake.
    ///
    /// - Parameters:
    ///   - certificateChain: the server's certificates, leaf first.
    ///   - privateKey: the key of the leaf.
    ///   - policy: what client certificates must satisfy.
    ///   - engine: the trust engine; its validated-path cache is what makes a reconnecting client cheap.
    ///   - handshakeTimeout: how long a client has to finish its handshake before it is closed.
    ///   - logger: where the one-line refusals go, at `notice`.
    ///   - configure: further TLS settings (versions, suites); verification and trust roots are ours and are set
    ///     after it.
    /// - Throws: ``MutualTLSServerError`` when the chain is empty, the key is not the leaf's, or the TLS settings
    ///   `configure` made cannot be used; in words, without BoringSSL's text.
    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey, policy: ClientVerificationPolicy,
                engine: TrustEngine = .shared, handshakeTimeout: TimeAmount = .seconds(10),
                logger: Logger = Logger(label: "TransportServer.mtls"),
                configure: (inout TLSConfiguration) -> Void = { _ in }) throws(MutualTLSServerError) {
        guard let leaf = certificateChain.first else { throw MutualTLSServerError(.noCertificate) }
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: certificateChain.map { .certificate($0) },
                                                           privateKey: .privateKey(privateKey))
        tls.minimumTLSVersion = .tlsv12
        configure(&tls)
        Self.applyVerification(policy.mode, to: &tls)
        do { self.sslContext = try NIOSSLContext(configuration: tls) } catch {
            // BoringSSL refuses a key that is not the leaf's only here; tried alone, the pair tells which fault it is.
            var pair = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(leaf)], privateKey: .privateKey(privateKey))
            pair.trustRoots = .certificates([])
            if (try? NIOSSLContext(configuration: pair)) == nil { throw MutualTLSServerError(.keyMismatch) }
            throw MutualTLSServerError(.unusableSettings)
        }
        self.verifier = ClientCertificateVerifier(policy: policy, engine: engine)
        self.handshakeTimeout = handshakeTimeout
        self.logger = logger
    }

    /// Sets how swift-nio-ssl asks for client certificates. Never `.none` unless no certificate is wanted: the
    /// verification callback is not called then. The trust store is empty: the callback decides, not BoringSSL.
    static func applyVerification(_ mode: ClientCertificateMode, to tls: inout TLSConfiguration) {
        switch mode {
        case .required: tls.certificateVerification = .noHostnameVerification
        case .optional: tls.certificateVerification = .optionalVerification
        case .none: tls.certificateVerification = .none
        }
        tls.trustRoots = .certificates([])
        tls.additionalTrustRoots = []
        tls.renegotiationSupport = .none
    }

    /// Adds the TLS handler and the ``ClientVerdictHandler`` to a new connection's pipeline.
    public func configure(_ pipeline: ChannelPipeline.SynchronousOperations) throws {
        let (tls, verdicts) = makeHandlers()
        try pipeline.addHandler(tls)
        try pipeline.addHandler(verdicts)
    }

    /// The two handlers of one connection, in pipeline order, for callers that place them themselves.
    public func makeHandlers() -> (NIOSSLServerHandler, ClientVerdictHandler) {
        let decided = ConnectionVerdict()
        let verifier = self.verifier
        let recentChains = self.recentChains
        let tls = NIOSSLServerHandler(context: sslContext, customVerificationCallbackWithMetadata: { certificates, promise in
            let presented: [[UInt8]]
            do { presented = try certificates.map { try $0.toDERBytes() } } catch {
                let verdict = ClientCertificateVerdict(outcome: .refused, failures: [
                    TrustFailure(.malformedCertificate, certificate: nil, "the client's certificates cannot be read"),
                ])
                decided.set(verdict)
                return promise.succeed(.failed)
            }
            decided.start {
                promise.succeed(await Self.verification(of: presented, verifier: verifier, decided: decided, recentChains: recentChains))
            }
        })
        let handler = ClientVerdictHandler(decided: decided, mode: verifier.policy.mode, handshakeTimeout: handshakeTimeout,
                                           logger: logger) { leaf in
            guard let chain = recentChains.chain(forLeaf: leaf) else { return .unverifiedResumption(leaf: leaf) }
            var verdict = await verifier.verify(chain)
            verdict.notes.append("a resumed TLS session: verified again from the chain the client sent when it was made")
            return verdict
        }
        return (tls, handler)
    }

    /// One handshake's verification, as its callback runs it: the verdict goes to `decided`, the answer to
    /// swift-nio-ssl, and a verified chain to `recentChains` for a later resumption.
    static func verification(of presented: [[UInt8]], verifier: ClientCertificateVerifier, decided: ConnectionVerdict,
                             recentChains: RecentChains) async -> NIOSSLVerificationResultWithMetadata {
        // Cancelled while it waited for a thread (the handshake limit passed, or the client left): refuse without the
        // work, as the client's verifier does. A long straight chain is never searched, so the engine's own
        // cancellation checks would not stop it.
        guard !Task.isCancelled else {
            decided.set(ClientCertificateVerdict(outcome: .refused, failures: [TrustFailure(.internalError, certificate: nil,
                "the verification was cancelled before it ran (the handshake's time limit passed or the client left)")]))
            return .failed
        }
        let verdict = await verifier.verify(presented)
        decided.set(verdict)
        guard verdict.isVerified else { return .failed }
        recentChains.remember(presented)
        let built = verdict.chain.compactMap { try? NIOSSLCertificate(bytes: $0.der, format: .der) }
        return .certificateVerified(VerificationMetadata(built.isEmpty ? nil : ValidatedCertificateChain(built)))
    }
}

/// Why a ``MutualTLSServer`` cannot be made.
public struct MutualTLSServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which problem it is.
    public enum Code: Sendable, Hashable {
        /// The certificate chain is empty.
        case noCertificate
        /// The private key is not the key of the chain's first certificate.
        case keyMismatch
        /// The TLS settings (as `configure` left them) cannot make a TLS context: a cipher list that matches no suite,
        /// versions that exclude each other.
        case unusableSettings
    }

    /// Which problem it is; the description says it in words.
    public let code: Code

    init(_ code: Code) { self.code = code }

    public var description: String {
        switch code {
        case .noCertificate: return "the server's certificate chain is empty; give the server's certificate, leaf first"
        case .keyMismatch: return "the private key is not the key of the server's certificate (the chain's first); give the key that was issued with it"
        case .unusableSettings: return "the TLS settings cannot be used to make a server context; check the cipher suites and TLS versions set in `configure`"
        }
    }
}
