import TransportTrust
import X509

/// Decides whether a client certificate chain may connect. Free of I/O (an OCSP source handed in through the
/// policy's revocation options is the caller's choice), so it runs the same in a handshake and in a test.
///
/// The chain goes through the trust engine (`TrustEngine`), whose validated-path cache makes a reconnect with
/// the same chain cost no signature check; pins, the clientAuth requirement and name rules are cheap checks on the
/// chain it built. Fails closed: every path that is not a positive decision refuses, with its reasons.
public struct ClientCertificateVerifier: Sendable {
    /// What client certificates must satisfy.
    public var policy: ClientVerificationPolicy
    /// The engine that validates chains; share one so that its validated-path cache serves every connection.
    public var engine: TrustEngine
    /// Where SPKI hashes for pins and verdicts come from.
    package var hashCache: SPKIHashCache

    /// A verifier of client chains under `policy`.
    public init(policy: ClientVerificationPolicy, engine: TrustEngine = .shared) {
        self.init(policy: policy, engine: engine, hashCache: .shared)
    }

    package init(policy: ClientVerificationPolicy, engine: TrustEngine, hashCache: SPKIHashCache) {
        self.policy = policy
        self.engine = engine
        self.hashCache = hashCache
    }

    /// Verifies `presented`: the client's certificates as DER, leaf first, as sent.
    public func verify(_ presented: [[UInt8]]) async -> ClientCertificateVerdict {
        guard let first = presented.first else {
            return policy.mode == .required ? .noCertificate : ClientCertificateVerdict(outcome: .notPresented)
        }
        let sentLeaf = try? InputCertificate(der: first)
        guard presented.count <= policy.maximumPresentedCertificates else {
            return refused(chain: sentLeaf.map { [$0] } ?? [], [TrustFailure(.chainTooLong, certificate: nil,
                "the client sent \(presented.count) certificates; at most \(policy.maximumPresentedCertificates) are accepted")])
        }
        let trust = ServerTrust(certificates: presented, anchors: policy.anchors, policy: policy.trustPolicy,
                                validationTime: policy.validationTime)
        let validation = DefaultTrustEvaluator(engine: engine)
        let evaluator: any ServerTrustEvaluating = policy.pins.map { PinSetEvaluator(pinSet: $0, validation: validation) } ?? validation
        var verdict = await evaluator.evaluate(trust)
        verdict.failures = ClientWording.adapt(verdict.failures)
        let chain = verdict.chain.isEmpty ? (sentLeaf.map { [$0] } ?? []) : verdict.chain

        guard let leaf = chain.first?.certificate else {
            return refused(chain: chain, verdict.failures.isEmpty
                ? [TrustFailure(.malformedCertificate, certificate: 0, "the client's certificate cannot be read")] : verdict.failures)
        }
        // The engine's rule admits a leaf without the extension (RFC 5280: any purpose); a client certificate must say it.
        if policy.leafMustListClientAuth, (try? leaf.extensions.extendedKeyUsage) == nil,
           !verdict.failures.contains(where: { $0.code == .extendedKeyUsage && $0.certificate == 0 }) {
            verdict.failures.append(TrustFailure(.extendedKeyUsage, certificate: 0,
                "\(NameDisplay.quoted(leaf.subject.description)) has no extendedKeyUsage extension; a client certificate must list clientAuth"))
        }
        let names = ClientCertificateNames(leaf)
        var match = ClientCertificateMatch()
        if !policy.nameRules.isEmpty {
            if let found = policy.nameRules.lazy.compactMap({ rule in rule.match(names).map { (rule: rule, name: $0) } }).first {
                match.nameRule = found.rule
                match.name = found.name
            } else {
                verdict.failures.append(TrustFailure(.hostNotAllowed, certificate: 0,
                    "the client's names (\(names.summary)) match no name rule (\(policy.nameRules.map(\.description).joined(separator: ", ")))"))
            }
        }
        if let pins = policy.pins { match.pins = pins.check(hashCache.fingerprints(chain)).matches }
        let spki = hashCache.fingerprint(chain[0].der).sha256Pin
        guard verdict.isTrusted else {
            return ClientCertificateVerdict(outcome: .refused, chain: chain, spkiSHA256: spki, names: names,
                                            failures: verdict.failures, notes: verdict.notes)
        }
        return ClientCertificateVerdict(outcome: .verified, chain: chain, spkiSHA256: spki, names: names, match: match,
                                        notes: verdict.notes)
    }

    private func refused(chain: [InputCertificate], _ failures: [TrustFailure]) -> ClientCertificateVerdict {
        let leaf = chain.first
        return ClientCertificateVerdict(outcome: .refused, chain: chain, spkiSHA256: leaf.map { hashCache.fingerprint($0.der).sha256Pin },
                                        names: leaf?.certificate.map(ClientCertificateNames.init), failures: failures)
    }
}
