import Crypto
import X509

/// Where trust comes from: custom anchors, the system roots, or both. Build one and reuse it: the anchor
/// store is made once, here.
///
/// `anchorsOnly` has the meaning of `SecTrustSetAnchorCertificatesOnly`: when true only ``custom`` anchors are
/// trusted; when false they are trusted in addition to the system roots. As on Apple platforms, setting custom
/// anchors implies anchors-only unless you say otherwise.
public final class TrustAnchors: Sendable {
    public let custom: [InputCertificate]
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
    let store: CertificateStore
    let customDER: Set<DERKey>
    private let inputs: [CertificateKey: InputCertificate]
    private let bySubject: [DistinguishedName: [Certificate]]
    /// Each usable anchor's extensions, parsed once here rather than in every evaluation that reaches it.
    let parsedExtensions: [ExtensionMemo.Key: ParsedExtensions]
    /// Distinguishes anchor sets in cache keys.
    let identity: [UInt8]

    /// The system roots alone, loaded once per process.
    public static let system = TrustAnchors(custom: [], anchorsOnly: false)

    public init(custom: [InputCertificate], anchorsOnly: Bool = true, systemRoots: SystemRoots? = nil) {
        self.custom = custom
        self.anchorsOnly = anchorsOnly
        let roots = anchorsOnly ? nil : (systemRoots ?? .shared)
        self.systemRoots = roots
        let system = roots?.certificates ?? []
        self.all = custom + system
        self.store = CertificateStore(all.compactMap(\.certificate))
        self.unusable = all.compactMap { c in c.parseFailure.map { "\(c.subjectDescription): \($0)" } }
        self.problems = custom.compactMap { c in c.parseFailure.map { "the anchor \(c.subjectDescription) cannot be used: \($0)" } }
            + (roots?.skipped.map { "system roots: \($0)" } ?? [])
        self.customDER = Set(custom.map { DERKey($0.der) })
        var inputs: [CertificateKey: InputCertificate] = [:]
        for c in all {
            // The first of duplicate anchors wins.
            if let cert = c.certificate, case let key = CertificateKey(cert), inputs[key] == nil { inputs[key] = c }
        }
        self.inputs = inputs
        self.bySubject = Dictionary(grouping: all.compactMap(\.certificate), by: \.subject)
        var parsedExtensions: [ExtensionMemo.Key: ParsedExtensions] = [:]
        for cert in all.compactMap(\.certificate) { parsedExtensions[ExtensionMemo.Key(tbs: cert.tbsCertificateBytes)] = ParsedExtensions(cert) }
        self.parsedExtensions = parsedExtensions
        var hash = SHA256()
        for c in custom { hash.update(data: c.der) }
        hash.update(data: [anchorsOnly ? 1 : 0])
        for c in system { hash.update(data: c.der) }
        self.identity = Array(hash.finalize())
    }

    func isCustom(_ der: [UInt8]) -> Bool { customDER.contains(DERKey(der)) }

    func isCustom(_ certificate: Certificate) -> Bool {
        inputs[CertificateKey(certificate)].map { customDER.contains(DERKey($0.der)) } ?? false
    }

    func input(for certificate: Certificate) -> InputCertificate? { inputs[CertificateKey(certificate)] }

    /// Usable anchors whose subject is `name`, as swift-certificates' store finds them.
    func certificates(named name: DistinguishedName) -> [Certificate] { bySubject[name] ?? [] }

    /// Anchors whose subject is `name`.
    func named(_ name: DistinguishedName) -> [InputCertificate] {
        all.filter { ($0.certificate?.subject ?? $0.raw?.subject) == name }
    }
}
