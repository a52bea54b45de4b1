import Crypto
import _CryptoExtras
import Foundation
import SwiftASN1
import X509

/// Builds leaf → intermediate → root chains in-process, so the benchmark needs no files and its peers can
/// be handed exactly the same DER.
struct BenchChain {
    var name: String
    var leaf: Certificate
    var intermediate: Certificate
    var root: Certificate

    enum KeyKind: String { case p256 = "ecdsa-p256", rsa2048 = "rsa-2048" }

    static let host = "bench.example.test"

    static func make(_ kind: KeyKind, leafName: String = host) throws -> BenchChain {
        try make(kind, leafName: leafName, rootKey: try privateKey(kind), intermediateKey: try privateKey(kind))
    }

    /// The same keys give the same issuers, so leaves made this way chain to one intermediate.
    static func make(_ kind: KeyKind, leafName: String, rootKey: Certificate.PrivateKey,
                     intermediateKey intKey: Certificate.PrivateKey) throws -> BenchChain {
        let root = try issue(subject: "Bench Root", issuer: "Bench Root", key: rootKey, signer: rootKey, ca: true, kind: kind)
        let intermediate = try issue(subject: "Bench Issuing CA", issuer: "Bench Root", key: intKey, signer: rootKey, ca: true, kind: kind)
        let leaf = try issue(subject: leafName, issuer: "Bench Issuing CA", key: try privateKey(kind), signer: intKey, ca: false, kind: kind)
        return BenchChain(name: kind.rawValue, leaf: leaf, intermediate: intermediate, root: root)
    }

    static func privateKey(_ kind: KeyKind) throws -> Certificate.PrivateKey {
        switch kind {
        case .p256: return Certificate.PrivateKey(P256.Signing.PrivateKey())
        case .rsa2048: return Certificate.PrivateKey(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        }
    }

    static func issue(subject: String, issuer: String, key: Certificate.PrivateKey, signer: Certificate.PrivateKey,
                      ca: Bool, kind: KeyKind) throws -> Certificate {
        let now = Date()
        // Key identifiers as public CAs issue them (RFC 5280 method 1); pyca's verifier requires the leaf's AKI.
        let keyID = { (k: Certificate.PublicKey) in ArraySlice(Insecure.SHA1.hash(data: Array(k.subjectPublicKeyInfoBytes))) }
        let extensions = try Certificate.Extensions {
            SubjectKeyIdentifier(keyIdentifier: keyID(key.publicKey))
            AuthorityKeyIdentifier(keyIdentifier: keyID(signer.publicKey))
            Critical(ca ? BasicConstraints.isCertificateAuthority(maxPathLength: nil) : .notCertificateAuthority)
            Critical(ca ? KeyUsage(keyCertSign: true, cRLSign: true) : KeyUsage(digitalSignature: true, keyEncipherment: kind == .rsa2048))
            if !ca {
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName(subject)])
            }
        }
        return try Certificate(
            version: .v3, serialNumber: .init(), publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86400 * 365),
            issuer: try DistinguishedName { CommonName(issuer) }, subject: try DistinguishedName { CommonName(subject) },
            signatureAlgorithm: kind == .p256 ? .ecdsaWithSHA256 : .sha256WithRSAEncryption,
            extensions: extensions, issuerPrivateKey: signer)
    }

    static func der(_ c: Certificate) throws -> [UInt8] {
        var s = DER.Serializer()
        try s.serialize(c)
        return s.serializedBytes
    }

    /// The chain ``write(to:)`` wrote for `kind` under `dir`.
    static func read(_ kind: KeyKind, from dir: URL) throws -> BenchChain {
        let folder = dir.appendingPathComponent(kind.rawValue)
        func load(_ file: String) throws -> Certificate {
            try Certificate(derEncoded: Array(Data(contentsOf: folder.appendingPathComponent("\(file).der"))))
        }
        return BenchChain(name: kind.rawValue, leaf: try load("leaf"), intermediate: try load("intermediate"), root: try load("root"))
    }

    /// Writes leaf.der, intermediate.der and root.der (and PEM) for the peer harnesses.
    func write(to dir: URL) throws {
        let folder = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (file, cert) in [("leaf", leaf), ("intermediate", intermediate), ("root", root)] {
            try Data(Self.der(cert)).write(to: folder.appendingPathComponent("\(file).der"))
            try cert.serializeAsPEM().pemString.write(to: folder.appendingPathComponent("\(file).pem"), atomically: true, encoding: .utf8)
        }
    }
}
