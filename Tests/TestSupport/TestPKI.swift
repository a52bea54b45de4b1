import Crypto
import Foundation
import SwiftASN1
import TransportTrust
import X509
import _CryptoExtras

// The certificates, keys and trusts the test targets generate (shared: test targets cannot import each other).

/// A private key the tests hold on to, so that they can issue certificates and sign OCSP responses with it.
public enum TestKey: @unchecked Sendable {
    case p256(P256.Signing.PrivateKey)
    case p384(P384.Signing.PrivateKey)
    case rsa(_RSA.Signing.PrivateKey)

    public static func p256() -> TestKey { .p256(P256.Signing.PrivateKey()) }
    public static func p384() -> TestKey { .p384(P384.Signing.PrivateKey()) }

    /// RSA key generation is slow in a debug build, so a few 2048-bit keys are made once and shared.
    public static func rsa2048(_ slot: Int = 0) -> TestKey { .rsa(rsaPool[slot % rsaPool.count]) }
    private static let rsaPool: [_RSA.Signing.PrivateKey] = (0..<3).map { _ in try! _RSA.Signing.PrivateKey(keySize: .bits2048) }

    public var certificateKey: Certificate.PrivateKey {
        switch self {
        case .p256(let k): return Certificate.PrivateKey(k)
        case .p384(let k): return Certificate.PrivateKey(k)
        case .rsa(let k): return Certificate.PrivateKey(k)
        }
    }

    public var publicKey: Certificate.PublicKey { certificateKey.publicKey }

    /// The private key as PEM, as servers, curl and openssl read it.
    public var pemString: String {
        switch self {
        case .p256(let k): return k.pemRepresentation
        case .p384(let k): return k.pemRepresentation
        case .rsa(let k): return k.pemRepresentation
        }
    }

    public var defaultSignatureAlgorithm: Certificate.SignatureAlgorithm {
        switch self {
        case .p256: return .ecdsaWithSHA256
        case .p384: return .ecdsaWithSHA384
        case .rsa: return .sha256WithRSAEncryption
        }
    }

    /// Signs `bytes` the way an OCSP responder would (ECDSA with SHA-256 or RSA PKCS#1 v1.5 with SHA-256).
    public func sign(_ bytes: [UInt8]) throws -> (algorithm: ASN1ObjectIdentifier, signature: [UInt8]) {
        switch self {
        case .p256(let k): return ([1, 2, 840, 10045, 4, 3, 2], Array(try k.signature(for: bytes).derRepresentation))
        case .p384(let k): return ([1, 2, 840, 10045, 4, 3, 3], Array(try k.signature(for: bytes).derRepresentation))
        case .rsa(let k):
            return ([1, 2, 840, 113549, 1, 1, 11], Array(try k.signature(for: bytes, padding: .insecurePKCS1v1_5).rawRepresentation))
        }
    }
}

/// One generated certificate with its private key.
public struct TestCert: @unchecked Sendable {
    public let certificate: Certificate
    public let key: TestKey

    /// A certificate the test built itself (a version 1 certificate, say), with the key it certifies.
    public init(certificate: Certificate, key: TestKey) {
        self.certificate = certificate
        self.key = key
    }

    public var subject: DistinguishedName { certificate.subject }
    public var der: [UInt8] {
        var s = DER.Serializer()
        try! s.serialize(certificate)
        return s.serializedBytes
    }
    public var input: InputCertificate { try! InputCertificate(der: der) }
    /// PEM, ending with a newline so that certificates can be concatenated into a bundle.
    public var pem: String { try! certificate.serializeAsPEM().pemString + "\n" }
    /// The label the engine uses in its messages.
    public var label: String { "'\(certificate.subject)'" }

    // MARK: Issuing

    /// Issues a CA certificate signed by this one.
    public func intermediate(
        _ cn: String,
        key: TestKey = .p256(),
        pathLength: Int? = nil,
        nameConstraints: NameConstraints? = nil,
        extendedKeyUsage: [ExtendedKeyUsage.Usage]? = nil,
        keyUsage: KeyUsage? = KeyUsage(keyCertSign: true, cRLSign: true),
        isCA: Bool = true,
        notValidBefore: Date = PKI.notBefore,
        notValidAfter: Date = PKI.notAfter,
        signatureAlgorithm: Certificate.SignatureAlgorithm? = nil,
        extra: [Certificate.Extension] = []
    ) -> TestCert {
        var exts: [Certificate.Extension] = []
        exts.append(try! Certificate.Extension(isCA ? BasicConstraints.isCertificateAuthority(maxPathLength: pathLength) : BasicConstraints.notCertificateAuthority, critical: true))
        if let keyUsage { exts.append(try! Certificate.Extension(keyUsage, critical: true)) }
        if let nameConstraints { exts.append(try! Certificate.Extension(nameConstraints, critical: true)) }
        if let extendedKeyUsage { exts.append(try! Certificate.Extension(try! ExtendedKeyUsage(extendedKeyUsage), critical: false)) }
        return PKI.issue(subject: PKI.name(cn), key: key, issuer: self, notValidBefore: notValidBefore,
                         notValidAfter: notValidAfter, signatureAlgorithm: signatureAlgorithm, extensions: exts + extra)
    }

    /// Issues a TLS server certificate signed by this one.
    public func leaf(
        _ cn: String = "leaf",
        dns: [String] = ["www.example.com"],
        ips: [[UInt8]] = [],
        sans: [GeneralName]? = nil,
        key: TestKey = .p256(),
        extendedKeyUsage: [ExtendedKeyUsage.Usage]? = [.serverAuth],
        keyUsage: KeyUsage? = KeyUsage(digitalSignature: true),
        notValidBefore: Date = PKI.notBefore,
        notValidAfter: Date = PKI.notAfter,
        signatureAlgorithm: Certificate.SignatureAlgorithm? = nil,
        serial: Certificate.SerialNumber = PKI.serial(),
        subject: DistinguishedName? = nil,
        extra: [Certificate.Extension] = []
    ) -> TestCert {
        var exts: [Certificate.Extension] = []
        exts.append(try! Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true))
        if let keyUsage { exts.append(try! Certificate.Extension(keyUsage, critical: true)) }
        if let extendedKeyUsage { exts.append(try! Certificate.Extension(try! ExtendedKeyUsage(extendedKeyUsage), critical: false)) }
        let names = sans ?? (dns.map { GeneralName.dnsName($0) } + ips.map { GeneralName.ipAddress(ASN1OctetString(contentBytes: $0[...])) })
        if !names.isEmpty {
            exts.append(try! Certificate.Extension(SubjectAlternativeNames(names), critical: false))
        }
        return PKI.issue(subject: subject ?? PKI.name(cn), key: key, issuer: self, serial: serial, notValidBefore: notValidBefore,
                         notValidAfter: notValidAfter, signatureAlgorithm: signatureAlgorithm, extensions: exts + extra)
    }
}

/// Builds test PKIs at run time.
public enum PKI {
    /// The validation time of the tests: an hour from when they started, on a whole second. Generated
    /// certificates are valid from 30 days before it to a year after it, so "now" is inside too.
    public static let now = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded(.down))
    public static let notBefore = now.addingTimeInterval(-30 * 86400)
    public static let notAfter = now.addingTimeInterval(365 * 86400)

    public static func name(_ cn: String, organization: String = "Transport Trust Tests") -> DistinguishedName {
        try! DistinguishedName {
            OrganizationName(organization)
            CommonName(cn)
        }
    }

    public static func host(_ text: String) -> PeerName { try! PeerName(text) }

    /// A random positive serial of 16 octets. (swift-certificates' default is 20 random octets, which is 21 once
    /// DER adds a sign byte, and the strict profile refuses serials longer than 20.)
    public static func serial() -> Certificate.SerialNumber {
        Certificate.SerialNumber(bytes: [UInt8.random(in: 0x01...0x7f)] + (0..<15).map { _ in UInt8.random(in: 0...255) })
    }

    /// A self-signed CA certificate.
    public static func root(
        _ cn: String = "Test Root CA",
        key: TestKey = .p256(),
        pathLength: Int? = nil,
        nameConstraints: NameConstraints? = nil,
        notValidBefore: Date = PKI.notBefore,
        notValidAfter: Date = PKI.notAfter,
        extra: [Certificate.Extension] = []
    ) -> TestCert {
        var exts: [Certificate.Extension] = [
            try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: pathLength), critical: true),
            try! Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
        ]
        if let nameConstraints { exts.append(try! Certificate.Extension(nameConstraints, critical: true)) }
        return issue(subject: name(cn), key: key, issuer: nil, notValidBefore: notValidBefore, notValidAfter: notValidAfter,
                     extensions: exts + extra)
    }

    /// Issues a certificate. `issuer` nil makes it self-signed. Key identifiers are added so that the chains
    /// look like real ones.
    public static func issue(
        subject: DistinguishedName,
        key: TestKey,
        issuer: TestCert?,
        issuerName: DistinguishedName? = nil,
        serial: Certificate.SerialNumber = PKI.serial(),
        notValidBefore: Date = PKI.notBefore,
        notValidAfter: Date = PKI.notAfter,
        signatureAlgorithm: Certificate.SignatureAlgorithm? = nil,
        keyIdentifiers: Bool = true,
        extensions: [Certificate.Extension]
    ) -> TestCert {
        let signer = issuer?.key ?? key
        var exts = extensions
        let ski = SubjectKeyIdentifier(hash: key.publicKey)
        let issuerSKI = issuer.map { SubjectKeyIdentifier(hash: $0.key.publicKey) } ?? ski
        if keyIdentifiers {
            exts.append(try! Certificate.Extension(ski, critical: false))
            exts.append(try! Certificate.Extension(AuthorityKeyIdentifier(keyIdentifier: issuerSKI.keyIdentifier), critical: false))
        }
        let signingKey = signer.certificateKey
        let cert = try! Certificate(
            version: .v3,
            serialNumber: serial,
            publicKey: key.publicKey,
            notValidBefore: notValidBefore,
            notValidAfter: notValidAfter,
            issuer: issuerName ?? issuer?.subject ?? subject,
            subject: subject,
            signatureAlgorithm: signatureAlgorithm ?? signer.defaultSignatureAlgorithm,
            extensions: try! Certificate.Extensions(exts),
            issuerPrivateKey: signingKey
        )
        return TestCert(certificate: cert, key: key)
    }

    /// A root, one intermediate and a leaf for www.example.com, all ECDSA P-256.
    public static func chain(key: @autoclosure () -> TestKey = .p256(), dns: [String] = ["www.example.com"]) -> (root: TestCert, intermediate: TestCert, leaf: TestCert) {
        let root = root(key: key())
        let intermediate = root.intermediate("Test Intermediate CA", key: key())
        let leaf = intermediate.leaf(dns: dns, key: key())
        return (root, intermediate, leaf)
    }

    public static func anchors(_ certs: TestCert...) -> TrustAnchors { TrustAnchors(custom: certs.map(\.input)) }

    public static func ssl(_ host: String?) -> TrustPolicy { .ssl(host: host.map { try! PeerName($0) }) }

    /// A trust over `chain` (presented order), anchored at `anchors`, validated at ``now``.
    public static func trust(
        _ chain: [TestCert],
        anchors: [TestCert],
        policy: TrustPolicy = PKI.ssl("www.example.com"),
        at time: Date = PKI.now,
        extra: [TestCert] = []
    ) -> ServerTrust {
        ServerTrust(certificates: chain.map(\.der), additionalIntermediates: extra.map(\.der),
                    anchors: TrustAnchors(custom: anchors.map(\.input)), policy: policy, validationTime: time)
    }

    /// Evaluates with an engine of its own that remembers nothing, so that every evaluation is cold.
    public static func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        await TrustEngine(cacheCapacity: 0).evaluate(trust)
    }
}

public extension TrustVerdict {
    var codes: [TrustFailureCode] { failures.map(\.code) }
    func failure(_ code: TrustFailureCode) -> TrustFailure? { failures.first { $0.code == code } }
    /// The DER of the built chain, leaf first, to compare with the certificates that should be on it.
    var chainDER: [[UInt8]] { chain.map(\.der) }
}
