import Crypto
import SwiftASN1
import X509
import _CryptoExtras

/// Verifies a CRL's signature with swift-crypto: swift-certificates verifies signatures over certificates, CSRs and
/// (internally) OCSP responses only. The algorithms are those it accepts for certificates, SHA-1 excepted (refused
/// by design, as `SignatureStrengthRule` refuses it in certificates).
enum CRLSignature {
    enum Outcome: Equatable, Sendable {
        case valid
        case invalid
        case unsupported(String)
    }

    static func verify(_ crl: CertificateRevocationList, with key: Certificate.PublicKey) -> Outcome {
        let algorithm = crl.signatureAlgorithm
        let data = crl.tbsBytes
        switch algorithm.oid {
        case [1, 2, 840, 10045, 4, 3, 2], [1, 2, 840, 10045, 4, 3, 3], [1, 2, 840, 10045, 4, 3, 4]:
            guard algorithm.parameters == nil else {
                return .unsupported("an ECDSA AlgorithmIdentifier with parameters (RFC 5758 §3.2 forbids them)")
            }
            return ecdsa(crl.signature, data: data, key: key, oid: algorithm.oid) ? .valid : .invalid
        case [1, 2, 840, 113549, 1, 1, 11], [1, 2, 840, 113549, 1, 1, 12], [1, 2, 840, 113549, 1, 1, 13]:
            guard algorithm.parameters == nil || algorithm.parameters == .null else {
                return .unsupported("an RSA AlgorithmIdentifier whose parameters are not NULL")
            }
            guard let rsa = _RSA.Signing.PublicKey(key) else { return .invalid }
            let signature = _RSA.Signing.RSASignature(rawRepresentation: crl.signature)
            let ok: Bool
            switch algorithm.oid {
            case [1, 2, 840, 113549, 1, 1, 11]: ok = rsa.isValidSignature(signature, for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
            case [1, 2, 840, 113549, 1, 1, 12]: ok = rsa.isValidSignature(signature, for: SHA384.hash(data: data), padding: .insecurePKCS1v1_5)
            default: ok = rsa.isValidSignature(signature, for: SHA512.hash(data: data), padding: .insecurePKCS1v1_5)
            }
            return ok ? .valid : .invalid
        case [1, 3, 101, 112]:
            guard let ed = Curve25519.Signing.PublicKey(key) else { return .invalid }
            return ed.isValidSignature(crl.signature, for: data) ? .valid : .invalid
        case [1, 2, 840, 113549, 1, 1, 5], [1, 2, 840, 10045, 4, 1]:
            return .unsupported("SHA-1, which is refused by design")
        default:
            return .unsupported("the signature algorithm \(algorithm.oid), which is not supported")
        }
    }

    private static func ecdsa(_ signature: [UInt8], data: ArraySlice<UInt8>, key: Certificate.PublicKey, oid: ASN1ObjectIdentifier) -> Bool {
        func digest<H: HashFunction>(_: H.Type) -> H.Digest { H.hash(data: data) }
        let hash: any Digest
        switch oid {
        case [1, 2, 840, 10045, 4, 3, 2]: hash = digest(SHA256.self)
        case [1, 2, 840, 10045, 4, 3, 3]: hash = digest(SHA384.self)
        default: hash = digest(SHA512.self)
        }
        if let k = P256.Signing.PublicKey(key), let s = try? P256.Signing.ECDSASignature(derRepresentation: signature) {
            return k.isValidSignature(s, for: hash)
        }
        if let k = P384.Signing.PublicKey(key), let s = try? P384.Signing.ECDSASignature(derRepresentation: signature) {
            return k.isValidSignature(s, for: hash)
        }
        if let k = P521.Signing.PublicKey(key), let s = try? P521.Signing.ECDSASignature(derRepresentation: signature) {
            return k.isValidSignature(s, for: hash)
        }
        return false
    }
}
