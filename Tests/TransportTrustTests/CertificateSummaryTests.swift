import TestSupport
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

@Suite struct CertificateSummaryTests {
    @Test func describesEveryField() throws {
        let root = PKI.root(key: .rsa2048(0))
        let serial = Certificate.SerialNumber(bytes: [0x01, 0x23, 0x45, 0x67, 0x89, 0xab])
        let leaf = root.leaf("www.example.com", dns: ["www.example.com", "example.com"], ips: [[192, 0, 2, 1], [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]],
                             key: .p256(), serial: serial)
        let summary = CertificateSummary(leaf.input)
        #expect(summary.subject == "CN=www.example.com,O=Transport Trust Tests")
        #expect(summary.issuer == "CN=Test Root CA,O=Transport Trust Tests")
        #expect(summary.serialNumber == "01:23:45:67:89:ab")
        #expect(summary.notValidBefore == PKI.notBefore)
        #expect(summary.notValidAfter == PKI.notAfter)
        #expect(summary.keyType == "EC P-256")
        #expect(summary.keySize == 256)
        #expect(summary.signatureAlgorithm == "sha256WithRSAEncryption")
        #expect(summary.subjectAlternativeNames == ["DNS:www.example.com", "DNS:example.com", "IP:192.0.2.1", "IP:2001:db8::1"])
        #expect(!summary.isCertificateAuthority)

        let rootSummary = CertificateSummary(root.input)
        #expect(rootSummary.isCertificateAuthority)
        #expect(rootSummary.keyType == "RSA 2048")
        #expect(rootSummary.keySize == 2048)
        #expect(rootSummary.subjectAlternativeNames == [])
    }

    @Test func spkiHashIsSHA256OfTheWholeSubjectPublicKeyInfo() throws {
        for key in [TestKey.p256(), TestKey.p384(), TestKey.rsa2048(1)] {
            let cert = PKI.root(key: key)
            var serializer = DER.Serializer()
            try serializer.serialize(cert.certificate.publicKey)
            let expected = Data(SHA256.hash(data: serializer.serializedBytes)).base64EncodedString()
            #expect(CertificateSummary(cert.input).spkiSHA256 == expected)
            #expect(cert.input.spkiSHA256Base64 == expected)
            #expect(cert.input.raw?.subjectPublicKeyInfo == serializer.serializedBytes)
        }
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func spkiHashMatchesOpenSSL() throws {
        let cert = PKI.root(key: .rsa2048(2))
        let tool = try OpenSSLTool()
        try tool.dir.write("c.pem", cert.pem)
        try tool.run(["x509", "-in", "c.pem", "-pubkey", "-noout", "-out", "pub.pem"])
        try tool.run(["pkey", "-pubin", "-in", "pub.pem", "-outform", "DER", "-out", "pub.der"])
        let spki = try Data(contentsOf: URL(fileURLWithPath: tool.dir.file("pub.der")))
        #expect(CertificateSummary(cert.input).spkiSHA256 == Data(SHA256.hash(data: spki)).base64EncodedString())
    }

    @Test func rawCertificateReadsTheDERFields() throws {
        let root = PKI.root()
        let leaf = root.leaf(key: .p384(), serial: Certificate.SerialNumber(bytes: [0x7f, 0x00, 0x01]))
        let raw = try RawCertificate(der: leaf.der)
        #expect(raw.serialNumber == [0x7f, 0x00, 0x01])
        #expect(raw.subject == leaf.subject)
        #expect(raw.issuer == root.subject)
        #expect(raw.keyAlgorithm == .ecdsa(curve: "P-384", bits: 384))
        #expect(SignatureNames.name(of: raw.signatureAlgorithmOID) == "ecdsaWithSHA256")
        #expect(throws: CertificateInputError.self) { try RawCertificate(der: Array(leaf.der.dropLast())) }
        #expect(throws: CertificateInputError.self) { try RawCertificate(der: [0x30, 0x00]) }
    }
}
