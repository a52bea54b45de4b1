import TestSupport
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

@Suite struct PinTests {
    /// ATS turns a malformed identity into an empty pin that must match nothing; an unreadable certificate has empty
    /// hashes. The two were equal, so the sentinel matched such a certificate (review-pins F8).
    @Test func anEmptyPinMatchesNoCertificateNotEvenAnUnreadableOne() {
        let unreadable = CertificateFingerprint(der: [0x30, 0x03, 0x02, 0x01, 0x00])
        #expect(unreadable.spkiSHA256.isEmpty && unreadable.subjectPublicKeyInfo.isEmpty)
        for pin in [Pin.spkiSHA256([]), .spkiSHA1([]), .publicKey([]), .certificate([])] {
            #expect(!pin.matches(unreadable), "\(pin)")
        }
        #expect(Pin.certificate(unreadable.der).matches(unreadable), "a whole DER still matches itself")
    }

    @Test func parsesEveryWrittenForm() throws {
        let bytes = Array(repeating: UInt8(7), count: 32)
        let b64 = Data(bytes).base64EncodedString()
        for text in ["sha256/\(b64)", "SHA256/\(b64)", "pin-sha256=\"\(b64)\"", b64, "  \(b64)\n"] {
            #expect(try Pin(parsing: text) == .spkiSHA256(bytes), "\(text)")
        }
        let sha1 = Array(repeating: UInt8(9), count: 20)
        let legacy = try Pin(parsing: "sha1/" + Data(sha1).base64EncodedString())
        #expect(legacy == .spkiSHA1(sha1))
        #expect(legacy.isLegacySHA1)
    }

    @Test func refusesWrongLengthsAndBadBase64WithAFix() {
        let short = Data(repeating: 1, count: 31).base64EncodedString()
        #expect(throws: PinConfigurationError.self) { try Pin(parsing: "sha256/" + short) }
        let shortError = #expect(throws: PinConfigurationError.self) { try Pin(parsing: short) }
        #expect(shortError?.code == .wrongHashLength)
        #expect(shortError?.description.contains("31 bytes") == true)
        let twenty = Data(repeating: 1, count: 20).base64EncodedString()
        #expect((#expect(throws: PinConfigurationError.self) { try Pin(parsing: twenty) })?.fix.contains("sha1/") == true)
        for text in ["sha256/not base64!", "sha256/"] {
            #expect((#expect(throws: PinConfigurationError.self) { try Pin(parsing: text) })?.code == .malformedPin, "\(text)")
        }
        let url = #expect(throws: PinConfigurationError.self) { try Pin(parsing: "sha256/AAAA-_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA") }
        #expect(url?.problem.contains("base64url") == true)
    }

    /// A prefix of another hash, or a hex hash, used to be "not valid base64" or "decodes to 48 bytes" with no hint.
    @Test func anotherHashsPrefixOrHexSaysSo() throws {
        let hash = Data(repeating: 0xAB, count: 32)
        let b64 = hash.base64EncodedString()
        #expect(try Pin(parsing: "SHA256/" + b64) == .spkiSHA256(Array(hash)))
        for (text, words) in [("sha384/" + b64, "is a SHA384 hash"), ("sha512/" + b64, "is a SHA512 hash"), ("sha-256/" + b64, "Write the prefix as sha256/")] {
            do { _ = try Pin(parsing: text); Issue.record("\(text) was read") } catch {
                #expect(error.code == .malformedPin)
                #expect((error.problem + " " + error.fix).contains(words), "\(error)")
            }
        }
        let hex = hash.map { String(format: "%02x", $0) }.joined()
        do { _ = try Pin(parsing: "sha256/" + hex); Issue.record("a hex hash was read") } catch {
            #expect(error.fix.contains("hex"), "\(error)")
        }
    }

    @Test func hashCoversTheWholeSPKINotJustTheKeyBits() throws {
        let cert = PKI.root()
        let pin = try Pin.spkiSHA256(of: cert.input)
        // The SPKI DER as swift-certificates serialises it, algorithm identifier included.
        let spkiFromX509 = try { () throws -> [UInt8] in
            var s = DER.Serializer()
            try s.serialize(cert.certificate.publicKey)
            return s.serializedBytes
        }()
        #expect(pin == .spkiSHA256(Array(SHA256.hash(data: spkiFromX509))))
        // The trap: hashing only the key bits gives a different value.
        #expect(pin != .spkiSHA256(Array(SHA256.hash(data: Array(cert.certificate.publicKey.subjectPublicKeyInfoBytes)))))
    }

    @Test func everyPinKindMatchesItsCertificateOnly() throws {
        let a = PKI.root("A"), b = PKI.root("B")
        let fa = CertificateFingerprint(der: a.der)
        for pin in [Pin.certificate(a.der), try Pin.publicKey(of: a.input), try Pin.spkiSHA256(of: a.input),
                    .spkiSHA1(Array(Insecure.SHA1.hash(data: PinningFixtures.spki(a))))] {
            #expect(pin.matches(fa), "\(pin)")
            #expect(!pin.matches(CertificateFingerprint(der: b.der)), "\(pin)")
        }
    }

    @Test func publicKeyPinSurvivesRenewalWithTheSameKey() throws {
        let key = TestKey.p256()
        let first = PKI.root("Same Key", key: key), second = PKI.root("Same Key", key: key)
        #expect(first.der != second.der)
        #expect(try Pin.spkiSHA256(of: first.input).matches(CertificateFingerprint(der: second.der)))
        #expect(!Pin.certificate(first.der).matches(CertificateFingerprint(der: second.der)))
    }

    @Test func certificateAndKeyPinsConvertToSPKIHashes() throws {
        let a = PKI.root()
        let expected = try Pin.spkiSHA256(of: a.input)
        #expect(Pin.certificate(a.der).asSPKISHA256 == expected)
        #expect(try Pin.publicKey(of: a.input).asSPKISHA256 == expected)
        #expect(Pin.spkiSHA1(Array(repeating: 0, count: 20)).asSPKISHA256 == nil)
        #expect(expected.description == "sha256/" + PinningFixtures.hash(a))
    }

    /// Every key type and size hashes, whether or not swift-certificates can parse the key; each hash is checked
    /// against openssl's own computation of base64(sha256(SPKI DER)).
    @Test(.enabled(if: OpenSSLTool.isAvailable), arguments: [
        ("rsa1024", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"]),
        ("rsa2048", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]),
        ("rsa3072", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:3072"]),
        ("p256", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]),
        ("p384", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]),
        ("p521", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521"]),
        ("ed25519", ["-algorithm", "ED25519"]),
        ("rsapss", ["-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:2048"]),
    ])
    func hashesEveryKeyType(name: String, genpkey: [String]) throws {
        let tool = try OpenSSLTool()
        try tool.newKey(name, genpkey)
        try tool.run(["req", "-new", "-x509", "-key", "\(name).key", "-subj", "/CN=\(name)", "-days", "30", "-out", "\(name).pem"])
        try tool.run(["x509", "-in", "\(name).pem", "-pubkey", "-noout", "-out", "\(name).pub"])
        try tool.run(["pkey", "-pubin", "-in", "\(name).pub", "-outform", "DER", "-out", "\(name).spki"])
        let spki = try #require(FileManager.default.contents(atPath: tool.dir.file("\(name).spki")))
        let expected = Data(SHA256.hash(data: spki)).base64EncodedString()
        let cert = try tool.load(name)
        #expect(try Pin.spkiSHA256(of: cert).base64 == expected)
        #expect(CertificateFingerprint(der: cert.der).sha256Pin == "sha256/" + expected)
    }
}
