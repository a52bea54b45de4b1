import Crypto
import X509

/// Where trust comes from: custom anchors, the system roots, or both. Build one and reuse it: the anchor
/// store is made once, here.
///
/// `anchorsOnly` has the meaning of `SecTrustSetAnchorCertificatesOnly`: when true only ``custom`` anchors are
/// trusted; when false they are trusted in addition to the system roots. As on Apple platforms, setting custom
/// anchors implies anchors-only unless you say otherwise.
///
/// The system roots are those of this machine or, with ``Store/apple``, Apple's trust store with Apple's limits on
/// some of its roots (``AppleTrustStore``). Either counts as public: see `RuleContext/anchorIsSystem`.
public final class TrustAnchors: Sendable {
    /// Which public roots are trusted when not anchors-only.
    public enum Store: String, Sendable, Hashable, CaseIterable {
        /// This machine's roots (`SSL_CERT_FILE`, `SSL_CERT_DIR`, or the distribution's bundle).
        case system
        /// Apple's trust store for iOS 26 (``AppleTrustStore``), with its constraints.
        case apple
    }

    /// The anchors the caller supplied.
    public let custom: [InputCertificate]
    /// When true, only ``custom`` anchors are trusted; when false, the public roots of ``trustStore`` as well.
    public let anchorsOnly: Bool
    /// Every anchor, custom first.
    public let all: [InputCertificate]
    /// Anchors swift-certificates cannot parse (and so cannot use), each with its reason.
    public let unusable: [String]
    /// What a user should hear about the anchors, one sentence each: the system roots skipped (naming the file and
    /// line, see ``SystemRoots/skipped``) and the custom anchors that cannot be used. Empty when all is well.
    public let problems: [String]
    /// The system roots in use; nil when anchors-only.
    public let systemRoots: SystemRoots?
    /// Where the public roots come from (even when anchors-only, so that a verdict can say what was asked for).
    public let trustStore: Store
    /// Apple's limits on its roots; empty for the system store.
    let constraints: RootConstraints
    let store: CertificateStore
    let customDER: Set<DERKey>
    private let entries: [CertificateKey: Entry]
    private let byName: NamedCertificates
    /// Each usable anchor's extensions, parsed once here rather than in every evaluation that reaches it.
    let parsedExtensions: [ExtensionMemo.Key: ParsedExtensions]
    /// Distinguishes anchor sets in cache keys.
    let identity: [UInt8]

    /// The system roots alone, loaded once per process.
    public static let system = TrustAnchors(custom: [], anchorsOnly: false)

    /// Trusts `custom`, and, unless `anchorsOnly`, the public roots of `store`.
    /// - Parameters:
    ///   - custom: anchors the caller supplies.
    ///   - anchorsOnly: when true (the default), only `custom` is trusted.
    ///   - systemRoots: the public roots to use instead of the store's (tests build them from generated roots).
    ///   - store: the public roots when not anchors-only: this machine's, or Apple's with its constraints (which then
    ///     also apply to chains through the custom anchors: a blocked certificate stays blocked).
    public convenience init(custom: [InputCertificate], anchorsOnly: Bool = true, systemRoots: SystemRoots? = nil, store: Store = .system) {
        self.init(custom: custom, anchorsOnly: anchorsOnly, systemRoots: systemRoots, store: store,
                  constraints: store == .apple ? AppleTrustStore.shared.constraints : RootConstraints())
    }

    init(custom: [InputCertificate], anchorsOnly: Bool, systemRoots: SystemRoots?, store: Store, constraints: RootConstraints) {
        self.custom = custom
        self.anchorsOnly = anchorsOnly
        self.trustStore = store
        self.constraints = constraints
        let roots = anchorsOnly ? nil : (systemRoots ?? (store == .apple ? .apple : .shared))
        self.systemRoots = roots
        let system = roots?.certificates ?? []
        self.all = custom + system
        self.store = CertificateStore(custom: NamedCertificateStore(all.compactMap(\.certificate)))
        self.unusable = all.compactMap { c in c.parseFailure.map { "\(c.subjectDescription): \($0)" } }
        self.problems = custom.compactMap { c in c.parseFailure.map { "the anchor \(c.subjectDescription) cannot be used: \($0)" } }
            + (roots?.skipped.map { "system roots: \($0)" } ?? [])
        self.customDER = Set(custom.map { DERKey($0.der) })
        // trustd asks whether the root is in the system anchor store (SecCertificateSourceContains(kSecSystemAnchorSource,
        // root)), not how the app supplied it: a custom anchor that is also a root of the store is public, and CT and the
        // 398-day limit apply to chains through it. Membership needs only the store's DER, read once per process.
        let storeDER: Set<DERKey> = custom.isEmpty ? []
            : (roots ?? systemRoots).map { Set($0.certificates.map { DERKey($0.der) }) }
            ?? (store == .apple ? Set(SystemRoots.apple.certificates.map { DERKey($0.der) }) : SystemRoots.sharedMembers)
        var entries: [CertificateKey: Entry] = [:]
        for c in all {
            guard let cert = c.certificate else { continue }
            let key = CertificateKey(cert)
            let der = DERKey(c.der)
            let isCustom = self.customDER.contains(der)
            let isPublic = !isCustom || storeDER.contains(der)
            // The first of duplicate anchors names the input; any of them that is public makes the key public.
            if let first = entries[key] {
                if isPublic && !first.isPublic { entries[key]?.isPublic = true }
                continue
            }
            entries[key] = Entry(input: c, isCustom: isCustom, isPublic: isPublic)
        }
        self.entries = entries
        self.byName = NamedCertificates(all.compactMap(\.certificate))
        var parsedExtensions: [ExtensionMemo.Key: ParsedExtensions] = [:]
        for cert in all.compactMap(\.certificate) { parsedExtensions[ExtensionMemo.Key(tbs: cert.tbsCertificateBytes)] = ParsedExtensions(cert) }
        self.parsedExtensions = parsedExtensions
        var hash = SHA256()
        // Whether each anchor is public decides CT and the 398-day limit, and comes from the store's membership, not
        // from the anchors themselves: it is part of the identity, or a path cached under one set would answer for the other.
        for c in custom {
            hash.update(data: c.der)
            hash.update(data: [c.certificate.map { entries[CertificateKey($0)]?.isPublic == true } == true ? 1 : 0])
        }
        hash.update(data: [anchorsOnly ? 1 : 0, store == .apple ? 1 : 0, constraints.isEmpty ? 0 : 1])
        for c in system { hash.update(data: c.der) }
        self.identity = Array(hash.finalize())
    }

    func isCustom(_ der: [UInt8]) -> Bool { customDER.contains(DERKey(der)) }

    /// How the anchor `certificate` was supplied, and whether it is a root of the public store (the system's or
    /// Apple's), as trustd decides where Apple's rules for public roots apply: whether or not the caller also supplied
    /// it as an anchor. Nil when it is no anchor.
    func entry(for certificate: Certificate) -> Entry? { entries[CertificateKey(certificate)] }

    func entry(for key: CertificateKey) -> Entry? { entries[key] }

    func input(for certificate: Certificate) -> InputCertificate? { entry(for: certificate)?.input }

    func isPublic(_ certificate: Certificate) -> Bool { entry(for: certificate)?.isPublic ?? false }

    struct Entry {
        var input: InputCertificate
        var isCustom: Bool
        var isPublic: Bool
    }

    /// Usable anchors whose subject is `name` (RFC 5280 §7.1), as the path builder finds them.
    func certificates(named name: DistinguishedName) -> [Certificate] { byName[name] }

    /// Anchors whose subject is `name` (RFC 5280 §7.1).
    func named(_ name: DistinguishedName) -> [InputCertificate] {
        all.filter { ($0.certificate?.subject ?? $0.raw?.subject).map { ComparableName.matches($0, name) } ?? false }
    }
}
