/// Where trust came from. Apple reports the first as `.unspecified` and the second as `.proceed`.
public enum AnchorSource: String, Sendable, Codable {
    /// A root of the system store.
    case system
    /// An anchor the caller supplied.
    case custom
}

/// The outcome of an evaluation: trusted or not, the chain it concerns, and every reason.
public struct TrustVerdict: Sendable {
    /// True when a chain was built and nothing refused it.
    public var isTrusted: Bool { failures.isEmpty && !chain.isEmpty }
    /// Set when the chain reached an anchor.
    public var anchor: AnchorSource?
    /// The built chain, leaf first and anchor last; when no chain could be built, the longest partial chain.
    public var chain: [InputCertificate]
    /// Every reason trust is refused; empty when trusted.
    public var failures: [TrustFailure]
    /// Facts worth telling that do not change the verdict (soft-fail revocation, skipped anchors, report-only pins).
    public var notes: [String]
    /// What Certificate Transparency found on the leaf, when the policy looked: its SCTs and Apple's verdict on them.
    public var certificateTransparency: CertificateTransparencyReport?

    /// A verdict with these parts, for evaluators that build their own.
    public init(anchor: AnchorSource?, chain: [InputCertificate], failures: [TrustFailure], notes: [String] = [],
                certificateTransparency: CertificateTransparencyReport? = nil) {
        self.anchor = anchor
        self.chain = chain
        self.failures = failures
        self.notes = notes
        self.certificateTransparency = certificateTransparency
    }

    /// True when the leaf is itself one of the anchors and is trusted as one, without a path above it, as SecTrust and
    /// OpenSSL's partial chain trust it. Its own validity, key purposes and name still apply; ``anchor`` says which kind.
    public var leafIsAnchor: Bool { isTrusted && anchor != nil && chain.count == 1 }

    /// The per-certificate facts of ``chain``, computed on demand so that the hot path stays cheap.
    public var chainSummaries: [CertificateSummary] { chain.map(CertificateSummary.init) }

    /// A verdict that refuses trust for one reason.
    public static func refused(_ failure: TrustFailure, chain: [InputCertificate] = []) -> TrustVerdict {
        TrustVerdict(anchor: nil, chain: chain, failures: [failure])
    }

    /// Adds another evaluator's findings to this verdict.
    public func adding(_ more: [TrustFailure], notes moreNotes: [String] = []) -> TrustVerdict {
        var v = self
        v.failures += more
        v.notes += moreNotes
        return v
    }
}

extension TrustVerdict {
    /// The chain as far as each certificate is signed by the next one: all of it when trusted. A refusal decided on
    /// a path linked only by name (the rules run before signatures) may name a CA that never signed the leaf, and a
    /// pin must never match such a CA.
    package var signedChain: [InputCertificate] { isTrusted ? chain : Self.signedPrefix(of: chain) }

    /// `certificates` up to the first one its successor did not sign (the first alone when it is the only one left).
    package static func signedPrefix(of certificates: [InputCertificate]) -> [InputCertificate] {
        guard certificates.count > 1 else { return certificates }
        var end = 1
        while end < certificates.count, let child = certificates[end - 1].certificate, let parent = certificates[end].certificate,
              parent.publicKey.isValidSignature(child.signature, for: child) {
            end += 1
        }
        return Array(certificates.prefix(end))
    }

    /// This verdict accepted whatever it found, because the caller turned validation off (`allowInvalidCertificates`,
    /// Alamofire with both validations off, `ats pins --skip-validation`): its failures become notes, each after
    /// `why`. Only the signed part of the chain is kept, and an anchor only when the chain still reaches it.
    package func acceptingInvalid(_ why: String) -> TrustVerdict {
        guard !chain.isEmpty else { return self }
        let signed = signedChain
        var v = TrustVerdict(anchor: signed.count == chain.count ? anchor : nil, chain: signed, failures: [], notes: notes)
        for f in failures { v.notes.append("\(why): \(f)") }
        if signed.count < chain.count {
            func name(_ i: Int) -> String { chain[i].certificate?.label ?? chain[i].raw?.subject.label ?? "certificate \(i)" }
            v.notes.append("the chain stops at \(name(signed.count - 1)): the key of \(name(signed.count)) did not sign it, so nothing above it counts, no pin included")
        }
        return v
    }
}
