internal import CNIOBoringSSL

/// What BoringSSL finds in a PKCS#12 bundle, read exactly as swift-nio-ssl reads it.
///
/// swift-nio-ssl 2.37.6's `NIOSSLPKCS12Bundle` traps (`fatalError`) when BoringSSL's `PKCS12_parse` succeeds without
/// a key and a certificate that matches it: a bundle with no key, with no certificate, or whose key matches none of
/// its certificates would end the process. So the bundle is first read by the same function of the same BoringSSL
/// (the CNIOBoringSSL module swift-nio-ssl builds), and only a bundle with a matching pair goes on to swift-nio-ssl.
enum PKCS12Screen {
    enum Finding: Equatable {
        /// Not PKCS#12, a wrong password, or a bag BoringSSL cannot read.
        case unreadable
        case noKey
        case noCertificate
        /// The key matches none of the bundle's certificates.
        case keyMatchesNoCertificate(certificates: Int)
        /// The only case swift-nio-ssl accepts without trapping.
        case keyAndMatchingCertificate
    }

    static func read(_ bytes: [UInt8], password: [UInt8]) -> Finding {
        defer { ERR_clear_error() }  // leave no error on this thread's queue for swift-nio-ssl to report later
        guard let p12 = bytes.withUnsafeBufferPointer({ buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }) else { return .unreadable }
        defer { PKCS12_free(p12) }

        var key: OpaquePointer?  // EVP_PKEY
        var certificate: OpaquePointer?  // X509
        var others: OpaquePointer?  // STACK_OF(X509): every certificate but the one matching the key
        // swift-nio-ssl passes the password as a C string, so a NUL ends it there too.
        var terminated = password + [0]
        defer { terminated.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        let parsed = terminated.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PKCS12_parse(p12, $0.baseAddress, &key, &certificate, &others) }
        }
        defer {
            EVP_PKEY_free(key)
            X509_free(certificate)
            if let others {
                while let next = OPENSSL_sk_pop(others) { X509_free(OpaquePointer(next)) }
                OPENSSL_sk_free(others)
            }
        }
        guard parsed == 1 else { return .unreadable }
        let otherCount = others.map { Int(OPENSSL_sk_num($0)) } ?? 0
        switch (key, certificate) {
        case (nil, _): return .noKey
        case (_, nil): return otherCount == 0 ? .noCertificate : .keyMatchesNoCertificate(certificates: otherCount)
        default: return .keyAndMatchingCertificate
        }
    }
}
