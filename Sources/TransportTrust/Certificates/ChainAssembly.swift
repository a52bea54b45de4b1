import X509

extension UnverifiedCertificateChain {
    /// A chain of these certificates, leaf first, for rules to check outside swift-certificates' path builder.
    ///
    /// swift-certificates keeps `UnverifiedCertificateChain`'s initializer internal, and its one stored property is
    /// the array of certificates. Nil (so the caller fails closed) if that layout ever changes.
    static func assembled(_ certificates: [Certificate]) -> UnverifiedCertificateChain? {
        guard !certificates.isEmpty,
              MemoryLayout<UnverifiedCertificateChain>.size == MemoryLayout<[Certificate]>.size,
              MemoryLayout<UnverifiedCertificateChain>.alignment == MemoryLayout<[Certificate]>.alignment else { return nil }
        let chain = unsafeBitCast(certificates, to: UnverifiedCertificateChain.self)
        guard chain.count == certificates.count, certificates.indices.allSatisfy({ chain[$0].serialNumber == certificates[$0].serialNumber }) else { return nil }
        return chain
    }
}
