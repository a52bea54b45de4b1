import Foundation
import SwiftASN1
import X509

/// What a person or a report needs to know about one certificate of a chain.
public struct CertificateSummary: Sendable, Codable, Hashable {
    /// The subject's distinguished name, as text.
    public var subject: String
    /// The issuer's distinguished name, as text.
    public var issuer: String
    /// Hex, colon-separated.
    public var serialNumber: String
    /// The start of the validity period, when readable.
    public var notValidBefore: Date?
    /// The end of the validity period, when readable.
    public var notValidAfter: Date?
    /// For example "EC P-256" or "RSA 2048".
    public var keyType: String
    /// The key's size in bits, when known.
    public var keySize: Int?
    /// The signature algorithm's name, e.g. `ecdsaWithSHA256`.
    public var signatureAlgorithm: String
    /// The subjectAltName entries, each with its kind (`DNS:`, `IP:`, …).
    public var subjectAlternativeNames: [String]
    /// base64(SHA-256(SubjectPublicKeyInfo DER)), the pin form of ATS, TrustKit, HPKP and OkHttp.
    public var spkiSHA256: String
    /// Whether basicConstraints marks it a CA.
    public var isCertificateAuthority: Bool

    /// The summary of one certificate, read from its DER (parts swift-certificates cannot parse included).
    public init(_ input: InputCertificate) {
        let raw = input.raw
        self.subject = raw?.subject.text ?? input.certificate?.subject.text ?? "?"
        self.issuer = raw?.issuer.text ?? input.certificate?.issuer.text ?? "?"
        self.serialNumber = (raw?.serialNumber ?? []).map { String(format: "%02x", $0) }.joined(separator: ":")
        self.keyType = raw?.keyAlgorithm.description ?? "unknown"
        self.keySize = raw?.keyAlgorithm.bits
        self.signatureAlgorithm = raw.map { SignatureNames.name(of: $0.signatureAlgorithmOID) } ?? "unknown"
        self.spkiSHA256 = raw?.spkiSHA256Base64 ?? ""
        if let cert = input.certificate {
            self.notValidBefore = cert.notValidBefore
            self.notValidAfter = cert.notValidAfter
            self.subjectAlternativeNames = (try? cert.extensions.subjectAlternativeNames).map { names in
                names.map(SignatureNames.describe)
            } ?? []
            if case .isCertificateAuthority? = try? cert.extensions.basicConstraints {
                self.isCertificateAuthority = true
            } else {
                self.isCertificateAuthority = false
            }
        } else {
            self.notValidBefore = nil
            self.notValidAfter = nil
            self.subjectAlternativeNames = []
            self.isCertificateAuthority = false
        }
    }
}

enum SignatureNames {
    static let known: [ASN1ObjectIdentifier: String] = [
        [1, 2, 840, 113549, 1, 1, 4]: "md5WithRSAEncryption",
        [1, 2, 840, 113549, 1, 1, 5]: "sha1WithRSAEncryption",
        [1, 2, 840, 113549, 1, 1, 11]: "sha256WithRSAEncryption",
        [1, 2, 840, 113549, 1, 1, 12]: "sha384WithRSAEncryption",
        [1, 2, 840, 113549, 1, 1, 13]: "sha512WithRSAEncryption",
        [1, 2, 840, 113549, 1, 1, 14]: "sha224WithRSAEncryption",
        [1, 2, 840, 113549, 1, 1, 10]: "rsassaPss",
        [1, 2, 840, 10045, 4, 1]: "ecdsaWithSHA1",
        [1, 2, 840, 10045, 4, 3, 1]: "ecdsaWithSHA224",
        [1, 2, 840, 10045, 4, 3, 2]: "ecdsaWithSHA256",
        [1, 2, 840, 10045, 4, 3, 3]: "ecdsaWithSHA384",
        [1, 2, 840, 10045, 4, 3, 4]: "ecdsaWithSHA512",
        [1, 3, 101, 112]: "ed25519",
        [1, 3, 101, 113]: "ed448",
        [1, 2, 840, 10040, 4, 3]: "dsaWithSHA1",
        [2, 16, 840, 1, 101, 3, 4, 3, 1]: "dsaWithSHA224",
        [2, 16, 840, 1, 101, 3, 4, 3, 2]: "dsaWithSHA256",
    ]

    /// SHA-1 signatures, refused as weak (Apple's SSL policy since iOS 13, and ATS).
    static let sha1: Set<ASN1ObjectIdentifier> = [sha1WithRSA, [1, 2, 840, 10045, 4, 1], [1, 2, 840, 10040, 4, 3]]

    /// The signature algorithms swift-certificates can parse; a certificate signed with any other is unusable to it.
    /// Of the SHA-1 ones, it parses only RSA.
    static let parseable: Set<ASN1ObjectIdentifier> = strong.union([sha1WithRSA])

    static let sha1WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 5]

    /// RSA PKCS#1 v1.5 signatures, whose AlgorithmIdentifier parameters are NULL (or, RFC 4055 §5 tolerates, absent).
    static let rsaPKCS1: Set<ASN1ObjectIdentifier> = [
        [1, 2, 840, 113549, 1, 1, 4], sha1WithRSA, [1, 2, 840, 113549, 1, 1, 11], [1, 2, 840, 113549, 1, 1, 12],
        [1, 2, 840, 113549, 1, 1, 13], [1, 2, 840, 113549, 1, 1, 14],
    ]

    /// Signature algorithms whose digest is SHA-256 or stronger (ATS, and Apple's SSL policy since iOS 13).
    static let strong: Set<ASN1ObjectIdentifier> = [
        [1, 2, 840, 113549, 1, 1, 11], [1, 2, 840, 113549, 1, 1, 12], [1, 2, 840, 113549, 1, 1, 13],
        [1, 2, 840, 10045, 4, 3, 2], [1, 2, 840, 10045, 4, 3, 3], [1, 2, 840, 10045, 4, 3, 4],
        [1, 3, 101, 112],
    ]

    static func name(of oid: ASN1ObjectIdentifier) -> String { known[oid] ?? oid.description }

    static func describe(_ name: GeneralName) -> String {
        switch name {
        case .dnsName(let d): return "DNS:\(d)"
        case .ipAddress(let bytes): return "IP:\(IPAddressText.format(Array(bytes.bytes)))"
        case .rfc822Name(let e): return "email:\(e)"
        case .uniformResourceIdentifier(let u): return "URI:\(u)"
        case .directoryName(let dn): return "DirName:\(dn)"
        default: return "\(name)"
        }
    }
}

/// RFC 5280's names for the extensions a verdict may mention.
enum ExtensionNames {
    static let known: [ASN1ObjectIdentifier: String] = [
        .X509ExtensionID.subjectAlternativeName: "subjectAltName",
        .X509ExtensionID.basicConstraints: "basicConstraints",
        .X509ExtensionID.keyUsage: "keyUsage",
        .X509ExtensionID.extendedKeyUsage: "extendedKeyUsage",
        .X509ExtensionID.nameConstraints: "nameConstraints",
        .X509ExtensionID.authorityKeyIdentifier: "authorityKeyIdentifier",
        .X509ExtensionID.subjectKeyIdentifier: "subjectKeyIdentifier",
        .X509ExtensionID.authorityInformationAccess: "authorityInfoAccess",
        [2, 5, 29, 32]: "certificatePolicies",
        [2, 5, 29, 31]: "cRLDistributionPoints",
        [2, 5, 29, 33]: "policyMappings",
        [2, 5, 29, 36]: "policyConstraints",
        [2, 5, 29, 54]: "inhibitAnyPolicy",
    ]

    /// "subjectAltName (2.5.29.17)", or the OID alone when it has no name here.
    static func describe(_ oid: ASN1ObjectIdentifier) -> String {
        known[oid].map { "\($0) (\(oid))" } ?? "\(oid)"
    }
}
