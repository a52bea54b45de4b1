import Crypto
import Foundation
import TransportTrust
import X509

/// Shared helpers for the pinning tests, of the library and of the commands.
public enum PinningFixtures {
    public static func sha256Pin(_ cert: TestCert) -> Pin { .spkiSHA256(Array(SHA256.hash(data: spki(cert)))) }
    public static func spki(_ cert: TestCert) -> [UInt8] { cert.input.raw?.subjectPublicKeyInfo ?? [] }
    public static func hash(_ cert: TestCert) -> String { cert.input.raw?.spkiSHA256Base64 ?? "" }
    public static func sha1Pin(_ cert: TestCert) -> Pin { .spkiSHA1(Array(Insecure.SHA1.hash(data: spki(cert)))) }
    /// A well-formed SHA-256 pin that matches nothing.
    public static let unrelated = Pin.spkiSHA256(Array(repeating: 0xAB, count: 32))
    public static let unrelated2 = Pin.spkiSHA256(Array(repeating: 0xCD, count: 32))
    public static let engine = TrustEngine(cacheCapacity: 0)
}

extension PinningFixtures {
    /// A self-signed server certificate for www.example.com that no CA issued.
    public static func selfSignedLeaf(dns: String = "www.example.com") -> TestCert {
        PKI.issue(subject: PKI.name(dns), key: .p256(), issuer: nil, extensions: [
            try! Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
            try! Certificate.Extension(KeyUsage(digitalSignature: true), critical: true),
            try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: false),
            try! Certificate.Extension(SubjectAlternativeNames([.dnsName(dns)]), critical: false),
        ])
    }
}
