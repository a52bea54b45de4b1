import TransportTrust

/// What the server decided about one client: verified or refused, with the chain, the key, the names and the
/// rule that let it in, or every reason it was refused.
///
/// It reaches the application after the handshake in ``ClientCertificateVerifiedEvent`` and from
/// ``ClientVerdictHandler/verdict``.
public struct ClientCertificateVerdict: Sendable {
    /// Whether the client was verified, refused, or sent no certificate where none is required.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The client sent a certificate and it passed every check.
        case verified
        /// The client sent a certificate that failed, or none when one is required.
        case refused
        /// The client sent no certificate and none is required (or none was asked for).
        case notPresented = "not-presented"
    }

    /// Verified, refused, or no certificate presented.
    public var outcome: Outcome
    /// Verified: the chain as built, leaf first and anchor last. Refused: the longest chain the engine got to,
    /// or the leaf as sent.
    public var chain: [InputCertificate]
    /// The leaf's SPKI pin, `sha256/BASE64`: what a client pin names.
    public var spkiSHA256: String?
    /// The leaf's names.
    public var names: ClientCertificateNames?
    /// Why the client was let in: the name rule and the pins that matched.
    public var match: ClientCertificateMatch?
    /// Every reason for a refusal; empty when verified.
    public var failures: [TrustFailure]
    /// Facts that did not change the verdict: soft-fail revocation, report-only pins, a resumed session.
    public var notes: [String]

    package init(outcome: Outcome, chain: [InputCertificate] = [], spkiSHA256: String? = nil, names: ClientCertificateNames? = nil,
                match: ClientCertificateMatch? = nil, failures: [TrustFailure] = [], notes: [String] = []) {
        self.outcome = outcome
        self.chain = chain
        self.spkiSHA256 = spkiSHA256
        self.names = names
        self.match = match
        self.failures = failures
        self.notes = notes
    }

    /// True when the client presented a certificate and it passed every check.
    public var isVerified: Bool { outcome == .verified }

    /// A refusal the server decided without the engine, which has no ``TrustFailureCode`` of its own.
    var serverReason: String?

    /// The reason code of a refusal: the first failure's code (`TrustFailureCode`), `nameNotAllowed` for a name
    /// rule, `noCertificate` when none was sent, `unverifiedResumption` for a resumed session that cannot be verified
    /// again. Nil unless refused.
    public var reasonCode: String? {
        guard outcome == .refused else { return nil }
        if let serverReason { return serverReason }
        guard let first = failures.first else { return "noCertificate" }
        if first.code == .hostNotAllowed { return "nameNotAllowed" }
        return first.code.rawValue
    }

    /// The refusal of a client that sent no certificate where one is required.
    /// It has no ``failures``, as there was no certificate to fail; its reason code is `noCertificate`.
    public static var noCertificate: ClientCertificateVerdict {
        ClientCertificateVerdict(outcome: .refused, notes: [noCertificateReason])
    }

    static let noCertificateReason = "the client sent no certificate, and this server requires one"

    /// The refusal of a resumed session whose client cannot be verified again (its chain is no longer remembered).
    static func unverifiedResumption(leaf der: [UInt8]) -> ClientCertificateVerdict {
        let sent = try? InputCertificate(der: der)
        var verdict = ClientCertificateVerdict(outcome: .refused, chain: sent.map { [$0] } ?? [],
            spkiSHA256: sent.map { SPKIHashCache.shared.fingerprint($0.der).sha256Pin },
            names: sent?.certificate.map(ClientCertificateNames.init),
            failures: [TrustFailure(.policy, certificate: 0, "the client resumed a TLS session whose certificate chain this server no longer remembers, so it cannot be verified again")])
        verdict.serverReason = "unverifiedResumption"
        return verdict
    }

    /// The one line a server logs for a refusal: reason code, subject and SPKI hash. Never the chain.
    public var logLine: String {
        let subject = names.map { NameDisplay.plain($0.subject) } ?? "-"
        // The first line only: a pin mismatch goes on to list the chain's hashes.
        let reason = failures.first.map { NameDisplay.plain(String($0.message.prefix { $0 != "\n" })) } ?? Self.noCertificateReason
        return "client refused: reason=\(reasonCode ?? outcome.rawValue) subject=\"\(subject)\" spki=\(spkiSHA256 ?? "-") (\(reason))"
    }
}

/// The rules that admitted a client.
public struct ClientCertificateMatch: Sendable, Hashable, CustomStringConvertible {
    /// The name rule that matched, and the name it matched; nil when no name rules are configured.
    public var nameRule: ClientNameRule?
    /// The client's name that ``nameRule`` matched.
    public var name: String?
    /// The pins that matched, and at which certificate; empty when no pins are configured.
    public var pins: [PinMatch]

    /// What matched: the name rule and name, and the pins.
    package init(nameRule: ClientNameRule? = nil, name: String? = nil, pins: [PinMatch] = []) {
        self.nameRule = nameRule
        self.name = name
        self.pins = pins
    }

    public var description: String {
        var parts: [String] = []
        if let nameRule, let name { parts.append("name rule \(nameRule) matched '\(name)'") }
        for match in pins { parts.append("pin \(match.pin) matched certificate \(match.certificate)") }
        return parts.isEmpty ? "client anchors" : parts.joined(separator: "; ")
    }
}
