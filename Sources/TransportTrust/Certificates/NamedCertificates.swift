import X509

/// Certificates found by subject name as RFC 5280 §7.1 compares names (``ComparableName``), where
/// swift-certificates' own store compares them byte for byte: an issuer name re-encoded (PrintableString to
/// UTF8String, other case or spacing) still finds its issuer.
struct NamedCertificates: Sendable, Hashable {
    private var bySubject: [ComparableName: [Certificate]] = [:]

    init(_ certificates: some Sequence<Certificate>) { append(contentsOf: certificates) }

    /// Certificates whose subject matches `name`; empty when none does.
    subscript(name: DistinguishedName) -> [Certificate] { bySubject[ComparableName(name)] ?? [] }

    func contains(_ certificate: Certificate) -> Bool { self[certificate.subject].contains(certificate) }

    mutating func append(contentsOf certificates: some Sequence<Certificate>) {
        for c in certificates { bySubject[ComparableName(c.subject), default: []].append(c) }
    }
}

/// swift-certificates' anchor store, finding anchors by name as ``NamedCertificates`` does.
struct NamedCertificateStore: CustomCertificateStore {
    var certificates: NamedCertificates

    init(_ certificates: [Certificate]) { self.certificates = NamedCertificates(certificates) }

    subscript(subject: DistinguishedName) -> [Certificate]? {
        get async {
            let found = certificates[subject]
            return found.isEmpty ? nil : found
        }
    }

    func contains(_ certificate: Certificate) async -> Bool { certificates.contains(certificate) }

    mutating func append(contentsOf certificates: some Sequence<Certificate>) { self.certificates.append(contentsOf: certificates) }
}
