import X509

/// A certificate's DER as a dictionary key. Hashing reads only the tail, which is signature bytes and so
/// already tells certificates apart; equality still compares every byte. Hashing all of it, byte by byte,
/// cost more than the rest of a cached evaluation.
struct DERKey: Hashable {
    let der: [UInt8]

    init(_ der: [UInt8]) { self.der = der }

    func hash(into h: inout Hasher) { Self.hashTail(of: der, into: &h) }

    static func hashTail(of der: [UInt8], into h: inout Hasher) {
        h.combine(der.count)
        der.suffix(32).withUnsafeBytes { h.combine(bytes: $0) }
    }
}

/// A parsed certificate as a dictionary key. `Certificate`'s own Hashable hashes and compares the public key
/// through its serialised form, which for an EC key costs a point conversion (a modular inversion) on every
/// hash: a tenth of a limbo run. The signed bytes and the signature identify a certificate exactly.
struct CertificateKey: Hashable {
    // Only what identifies the certificate: keeping the whole Certificate made every key a retain per field.
    let tbs: ArraySlice<UInt8>
    let signatureAlgorithm: Certificate.SignatureAlgorithm
    let signature: Certificate.Signature

    init(_ certificate: Certificate) {
        (tbs, signatureAlgorithm, signature) = (certificate.tbsCertificateBytes, certificate.signatureAlgorithm, certificate.signature)
    }

    /// `certificates[i]`'s key, its fields read by index rather than the certificate copied out.
    /// One statement per field: assigned as a tuple, the three reads shared one copy of the whole certificate.
    init<C: Collection<Certificate>>(_ certificates: C, _ i: C.Index) {
        tbs = certificates[i].tbsCertificateBytes
        signatureAlgorithm = certificates[i].signatureAlgorithm
        signature = certificates[i].signature
    }

    /// The same for a chain, not generic: through the Collection witness its subscript copies the certificate.
    init(_ chain: UnverifiedCertificateChain, _ i: Int) { self = Self.fields(of: chain, i) }

    private init(tbs: ArraySlice<UInt8>, signatureAlgorithm: Certificate.SignatureAlgorithm, signature: Certificate.Signature) {
        (self.tbs, self.signatureAlgorithm, self.signature) = (tbs, signatureAlgorithm, signature)
    }

    /// Read into locals in a plain function: the same reads assigning `self`'s fields copied the whole certificate.
    @inline(never)
    private static func fields(of chain: UnverifiedCertificateChain, _ i: Int) -> CertificateKey {
        let tbs = chain[i].tbsCertificateBytes
        let signatureAlgorithm = chain[i].signatureAlgorithm
        let signature = chain[i].signature
        return CertificateKey(tbs: tbs, signatureAlgorithm: signatureAlgorithm, signature: signature)
    }

    static func == (a: CertificateKey, b: CertificateKey) -> Bool {
        a.tbs == b.tbs && a.signatureAlgorithm == b.signatureAlgorithm && a.signature == b.signature
    }

    // The head holds the serial number, the tail the last extension; both tell certificates of one CA apart.
    func hash(into h: inout Hasher) { Self.hashTBS(tbs, into: &h) }

    /// The first 32 bytes reach past a serial of 20 octets (tag and length, version, serial); a cold evaluation
    /// hashes some twenty keys, so each byte hashed counts.
    static func hashTBS(_ tbs: ArraySlice<UInt8>, into h: inout Hasher) {
        h.combine(tbs.count)
        tbs.prefix(32).withUnsafeBytes { h.combine(bytes: $0) }
        tbs.suffix(16).withUnsafeBytes { h.combine(bytes: $0) }
    }
}
