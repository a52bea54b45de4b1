import TransportTrust

/// A ``ClientCertificateVerdict`` as plain Codable values, for JSON answers and logs that want structure.
package struct ClientCertificateVerdictReport: Sendable, Hashable, Codable {
    /// One certificate of the chain: who it is, who issued it, its key.
    public struct Certificate: Sendable, Hashable, Codable {
        public var subject: String
        public var issuer: String
        public var spkiSHA256: String
    }

    public var verified: Bool
    public var outcome: ClientCertificateVerdict.Outcome
    /// The reason code of a refusal (``ClientCertificateVerdict/reasonCode``).
    public var reason: String?
    public var chain: [Certificate]
    public var spkiSHA256: String?
    public var names: ClientCertificateNames?
    /// What admitted the client (``ClientCertificateMatch``), in words.
    public var matchedRule: String?
    public var failures: [TrustFailure]
    public var notes: [String]

    package init(_ verdict: ClientCertificateVerdict, hashCache: SPKIHashCache = .shared) {
        verified = verdict.isVerified
        outcome = verdict.outcome
        reason = verdict.reasonCode
        chain = verdict.chain.map { input in
            let fingerprint = hashCache.fingerprint(input.der)
            return Certificate(subject: input.certificate?.subject.description ?? fingerprint.subject,
                               issuer: input.certificate?.issuer.description ?? "",
                               spkiSHA256: fingerprint.sha256Pin)
        }
        spkiSHA256 = verdict.spkiSHA256
        names = verdict.names
        matchedRule = verdict.match?.description
        failures = verdict.failures
        notes = verdict.notes
    }
}
