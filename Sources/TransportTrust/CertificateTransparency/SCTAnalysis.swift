import Crypto
import Foundation
import _CryptoExtras
import X509

/// A leaf's embedded SCTs, each matched to its log and its signature checked over the `precert_entry`.
///
/// Nothing here depends on the time, so one analysis serves every later evaluation of the same leaf, issuer
/// and log list: it is what the validated-path cache keeps for CT.
struct SCTAnalysis: Sendable {
    enum Signature: Sendable, Hashable {
        case valid
        case invalid
        /// The signature was not checked, and why (an unknown log, an algorithm RFC 6962 does not allow).
        case unchecked(String)
    }

    struct Entry: Sendable {
        var sct: SignedCertificateTimestamp
        var log: CTLog?
        var signature: Signature
    }

    enum Contents: Sendable {
        case absent
        case unreadable(String)
        case present([Entry])
    }

    let contents: Contents
    /// The list the SCTs were matched against.
    let logList: [UInt8]

    /// Reads the leaf's SCTs and checks each signature whose log is in `list`. Costs one signature check per SCT
    /// from a trusted log, at most ``SCTListReader/maximumCount``.
    init(leaf: Certificate, issuer: Certificate, list: CTLogList) {
        logList = list.identity
        switch EmbeddedSCTs.read(from: leaf) {
        case .absent:
            contents = .absent
        case .unreadable(let reason):
            contents = .unreadable("its SCT list extension cannot be read: \(reason)")
        case .present(let scts):
            let signed: (tbs: [UInt8], issuerKeyHash: [UInt8])?
            do { signed = (try EmbeddedSCTs.precertificateTBS(of: leaf), try EmbeddedSCTs.issuerKeyHash(issuer)) } catch { signed = nil }
            contents = .present(scts.map { sct in
                if let problem = sct.problem { return Entry(sct: sct, log: nil, signature: .unchecked(problem)) }
                guard sct.isVersion1 else { return Entry(sct: sct, log: nil, signature: .unchecked("it is version \(Int(sct.version) + 1), not v1")) }
                guard let log = list.log(id: sct.logID) else { return Entry(sct: sct, log: nil, signature: .unchecked("its log is not in the list")) }
                guard log.isTrusted else { return Entry(sct: sct, log: log, signature: .unchecked("its log is \(log.state.rawValue)")) }
                guard let signed else {
                    return Entry(sct: sct, log: log, signature: .unchecked("the signed precertificate entry cannot be rebuilt from the certificate"))
                }
                let data = SCTEncoding.precertEntry(timestamp: sct.timestamp, issuerKeyHash: signed.issuerKeyHash, tbs: signed.tbs,
                                                    extensions: sct.extensions)
                return Entry(sct: sct, log: log, signature: Self.verify(sct, data: data, key: list.keys[log.logID] ?? .unusable))
            })
        }
    }

    /// The newest timestamp of a v1 SCT: from then on no SCT is in the future.
    var latestTimestamp: Date? {
        guard case .present(let entries) = contents else { return nil }
        return entries.filter(\.sct.isVersion1).map(\.sct.date).max()
    }

    /// ECDSA over NIST P-256, or RSASSA-PKCS1-v1_5 with a key of at least 2048 bits (RFC 6962 §2.1.4), each with
    /// SHA-1, SHA-256 or SHA-384. RFC 6962 allows only SHA-256; trustd's `oidForSigAlg` also takes SHA-1 and SHA-384
    /// for both key types and verifies with the log's key, and so do we (docs/APPLE-PARITY.md).
    static func verify(_ sct: SignedCertificateTimestamp, data: [UInt8], key: LogKey) -> Signature {
        switch sct.hashAlgorithm {
        case 2: return verify(sct, digest: Insecure.SHA1.hash(data: data), key: key)
        case 4: return verify(sct, digest: SHA256.hash(data: data), key: key)
        case 5: return verify(sct, digest: SHA384.hash(data: data), key: key)
        default: return .unchecked("its hash algorithm \(sct.hashAlgorithm) is none of SHA-1 (2), SHA-256 (4) and SHA-384 (5)")
        }
    }

    private static func verify<D: Digest>(_ sct: SignedCertificateTimestamp, digest: D, key: LogKey) -> Signature {
        switch sct.signatureAlgorithm {
        case 3:
            guard case .p256(let publicKey) = key else {
                return .unchecked("it is signed with ECDSA but the log's key is not a P-256 key")
            }
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: sct.signature) else { return .invalid }
            return publicKey.isValidSignature(signature, for: digest) ? .valid : .invalid
        case 1:
            guard case .rsa(let publicKey) = key else {
                return .unchecked("it is signed with RSA but the log's key is not an RSA key of at least 2048 bits")
            }
            let signature = _RSA.Signing.RSASignature(rawRepresentation: sct.signature)
            return publicKey.isValidSignature(signature, for: digest, padding: .insecurePKCS1v1_5) ? .valid : .invalid
        default:
            return .unchecked("its signature algorithm \(sct.signatureAlgorithm) is neither ECDSA (3) nor RSA (1)")
        }
    }
}
