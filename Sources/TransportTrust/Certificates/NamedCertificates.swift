import X509

/// Certificates found by subject name as RFC 5280 §7.1 compares names (``ComparableName``), where
/// swift-certificates' own store compares them byte for byte: an issuer name re-encoded (PrintableString to
/// UTF8String, other case or spacing) still finds its issuer.
struct NamedCertificates: Sendable, Hashable {
    private var bySubject: [ComparableName: [Certificate]] = [:]
    /// The same certificates by ``ComparableName/preparedHash``, where their prepared subject has one: a printable-ASCII
    /// name is looked up here without being prepared, which cost a cold evaluation 1.5% in the anchors' lookup.
    private var byPreparedHash: [Int: [Certificate]] = [:]

    init(_ certificates: some Sequence<Certificate>) { append(contentsOf: certificates) }

    /// Certificates whose subject matches `name`, in the order added; empty when none does.
    subscript(name: DistinguishedName) -> [Certificate] {
        if let hash = ComparableName.foldedHash(name) {
            // Every match has this hash; a certificate of another name with the same hash is dropped here. Usually
            // all match, and the stored array is returned as it is: a filtered one was an allocation and a copy
            // of each certificate on every evaluation.
            let named = byPreparedHash[hash] ?? []
            if named.indices.allSatisfy({ ComparableName.matches(named[$0].subject, name) }) { return named }
            return named.filter { ComparableName.matches($0.subject, name) }
        }
        return bySubject[ComparableName(name)] ?? []
    }

    func contains(_ certificate: Certificate) -> Bool { self[certificate.subject].contains(certificate) }

    mutating func append(contentsOf certificates: some Sequence<Certificate>) {
        for c in certificates {
            let name = ComparableName(c.subject)
            bySubject[name, default: []].append(c)
            if let hash = name.preparedHash { byPreparedHash[hash, default: []].append(c) }
        }
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
