import SwiftASN1

/// Says whether BoringSSL will read an RSA SubjectPublicKeyInfo, before swift-crypto is asked to.
///
/// swift-crypto 3.12.3's `_RSA.Signing.PublicKey(derRepresentation:)` frees its key once when BoringSSL refuses the DER
/// and again in `deinit`: a double free, reached by swift-certificates for every certificate with an RSA key. Found by
/// the `certificate` fuzz target. The checks below are BoringSSL's (`rsa_pub_decode`, `RSA_parse_public_key`):
/// NULL parameters, a DER RSAPublicKey of two non-negative minimal INTEGERs and nothing after it, and
/// `RSA_check_key`'s checks of a public key (``boringSSLChecksPass(modulus:exponent:)``).
package enum RSAKeyScreen {
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]
    /// RSA-PSS: swift-crypto replaces its parameters with NULL before parsing, so only the key is checked.
    static let rsaPSS: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 10]
    /// The two OIDs' DER (tag, length, content); `RSAKeyScreenTests` checks them against swift-asn1's encoding.
    static let rsaEncryptionDER: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    static let rsaPSSDER: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A]

    /// Whether swift-certificates may parse a certificate with this SubjectPublicKeyInfo: true for a key that is not
    /// RSA (swift-crypto's RSA parser never sees it), and for an RSA key BoringSSL reads.
    package static func isSafe(spki: ASN1Node) -> Bool { readsAsRSA(spki) ?? true }

    /// Whether `_RSA.Signing.PublicKey(derRepresentation:)` may be called on these bytes: only for an RSA
    /// SubjectPublicKeyInfo BoringSSL reads (anything else takes the double-free path).
    package static func isReadableRSA(spkiDER: [UInt8]) -> Bool {
        guard let node = try? DER.parse(spkiDER) else { return false }
        return readsAsRSA(node) ?? false
    }

    /// nil when the key is not RSA; else whether BoringSSL reads it.
    private static func readsAsRSA(_ spki: ASN1Node) -> Bool? {
        guard case .constructed(let parts) = spki.content else { return nil }
        var fields = parts.makeIterator()
        guard let algorithm = fields.next(), case .constructed(let algorithmParts) = algorithm.content else { return nil }
        var algorithmFields = algorithmParts.makeIterator()
        // By encoding: this runs on every certificate, and decoding the OID costs more than the comparison.
        guard let oidNode = algorithmFields.next() else { return nil }
        let isRSAEncryption = oidNode.encodedBytes.elementsEqual(rsaEncryptionDER)
        guard isRSAEncryption || oidNode.encodedBytes.elementsEqual(rsaPSSDER) else { return nil }
        if isRSAEncryption {
            guard let parameters = algorithmFields.next(), parameters.identifier == .null, algorithmFields.next() == nil,
                  case .primitive(let empty) = parameters.content, empty.isEmpty else { return false }
        }
        guard let key = fields.next(), key.identifier == .bitString, case .primitive(let bits) = key.content,
              bits.first == 0, fields.next() == nil,
              let rsaKey = try? DER.parse(bits.dropFirst()), case .constructed(let integers) = rsaKey.content,
              rsaKey.identifier == .sequence else { return false }
        var values = integers.makeIterator()
        guard let n = values.next().flatMap(unsignedInteger), let e = values.next().flatMap(unsignedInteger), values.next() == nil else {
            return false
        }
        return boringSSLChecksPass(modulus: n, exponent: e)
    }

    /// What BoringSSL's `RSA_check_key` asks of a public key (`rsa_check_public_key`): a modulus of 512 bits up to
    /// `OPENSSL_RSA_MAX_MODULUS_BITS` that is odd, and an odd exponent of 2 to 33 bits (so also below the modulus). Both
    /// are non-negative here. The largest modulus is 16,384 bits in swift-crypto 3.x's BoringSSL and 8,192 in 4.x's; both
    /// versions resolve (docs/DEPENDENCIES.md), so the smaller one applies: a larger key is refused here, never handed to
    /// a parser that may refuse it on the double-free path. Read from the bytes: building the key in BoringSSL to ask it
    /// cost 3% of a cold RSA evaluation. `RSAKeyScreenTests` checks this against `_RSA.Signing.PublicKey(n:e:)`.
    package static let largestModulusBits = 8_192

    package static func boringSSLChecksPass(modulus n: ArraySlice<UInt8>, exponent e: ArraySlice<UInt8>) -> Bool {
        let modulusBits = bitLength(n), exponentBits = bitLength(e)
        return (512...largestModulusBits).contains(modulusBits) && n.last.map { $0 & 1 == 1 } == true
            && (2...33).contains(exponentBits) && e.last.map { $0 & 1 == 1 } == true
    }

    /// The number of bits of a big-endian unsigned integer, leading zero bytes ignored.
    static func bitLength(_ bytes: ArraySlice<UInt8>) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (bytes.endIndex - first - 1) * 8 + (8 - bytes[first].leadingZeroBitCount)
    }

    /// An INTEGER's bytes when it is non-negative and minimally encoded, as BoringSSL's `BN_parse_asn1_unsigned` requires.
    private static func unsignedInteger(_ node: ASN1Node) -> ArraySlice<UInt8>? {
        guard node.identifier == .integer, case .primitive(let bytes) = node.content, let first = bytes.first, first & 0x80 == 0 else { return nil }
        if first == 0, bytes.count > 1, bytes[bytes.startIndex + 1] & 0x80 == 0 { return nil }
        return bytes
    }
}
