import TestSupport
import Crypto
import Foundation
import X509

@testable import TransportTrust

/// Shared helpers for the pinning tests.
enum PinningFixtures {
    static func sha256Pin(_ cert: TestCert) -> Pin { .spkiSHA256(Array(SHA256.hash(data: spki(cert)))) }
    static func spki(_ cert: TestCert) -> [UInt8] { cert.input.raw?.subjectPublicKeyInfo ?? [] }
    static func hash(_ cert: TestCert) -> String { Base64.encode(Array(SHA256.hash(data: spki(cert)))) }
    static func sha1Pin(_ cert: TestCert) -> Pin { .spkiSHA1(Array(Insecure.SHA1.hash(data: spki(cert)))) }
    /// A well-formed SHA-256 pin that matches nothing.
    static let unrelated = Pin.spkiSHA256(Array(repeating: 0xAB, count: 32))
    static let unrelated2 = Pin.spkiSHA256(Array(repeating: 0xCD, count: 32))
    static let engine = TrustEngine(cacheCapacity: 0)
}

/// Collects reports instead of sending them.
actor RecordingReporter: PinFailureReporting {
    var received: [(PinFailureReport, [String])] = []
    func report(_ report: PinFailureReport, to uris: [String]) async { received.append((report, uris)) }
    var count: Int { received.count }
}

extension PinningFixtures {
    /// A self-signed server certificate for www.example.com that no CA issued.
    static func selfSignedLeaf(dns: String = "www.example.com") -> TestCert {
        PKI.issue(subject: PKI.name(dns), key: .p256(), issuer: nil, extensions: [
            try! Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
            try! Certificate.Extension(KeyUsage(digitalSignature: true), critical: true),
            try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: false),
            try! Certificate.Extension(SubjectAlternativeNames([.dnsName(dns)]), critical: false),
        ])
    }
}
