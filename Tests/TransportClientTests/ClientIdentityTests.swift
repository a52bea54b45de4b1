import TestSupport
import Foundation
import Testing

@testable import TransportClient

@Suite(.enabled(if: opensslAvailable)) struct ClientIdentityTests {
    @Test func pkcs12WithTheRightAndTheWrongPassword() throws {
        let dir = try TemporaryDirectory()
        let leaf = PKI.root("Client CA").leaf("client", dns: [], extendedKeyUsage: [.clientAuth])
        try dir.write("c.pem", leaf.pem)
        try dir.write("k.pem", leaf.key.pemString)
        try openssl(["pkcs12", "-export", "-in", "c.pem", "-inkey", "k.pem", "-passout", "pass:right", "-out", "id.p12"], in: dir.path)
        let identity = try ClientIdentity(pkcs12File: dir.file("id.p12"), password: "right")
        #expect(try identity.certificateChain.first?.toDERBytes() == leaf.der)
        do {
            _ = try ClientIdentity(pkcs12File: dir.file("id.p12"), password: "wrong")
            Issue.record("a wrong password was accepted")
        } catch {
            #expect(error.description.contains("password is wrong"))
            #expect(error.description.contains("id.p12"))
        }
    }

    /// Found triaging the identity-pkcs12 fuzz target (Fuzz/Regressions/identity-pkcs12/certificates-only.p12): swift-nio-ssl
    /// traps on a bundle that holds no key, so it is refused before swift-nio-ssl reads it. A key in a plain key bag
    /// (not shrouded) still loads.
    @Test func aPKCS12BundleWithoutAKeyIsRefusedNotACrash() throws {
        let dir = try TemporaryDirectory()
        let leaf = PKI.root("Client CA").leaf("client", dns: [], extendedKeyUsage: [.clientAuth])
        try dir.write("c.pem", leaf.pem)
        try dir.write("k.pem", leaf.key.pemString)
        try openssl(["pkcs12", "-export", "-nokeys", "-in", "c.pem", "-passout", "pass:right", "-out", "certs.p12"], in: dir.path)
        do {
            _ = try ClientIdentity(pkcs12File: dir.file("certs.p12"), password: "right")
            Issue.record("a bundle without a key was accepted")
        } catch {
            #expect(error.description.contains("holds no private key"), "\(error)")
            #expect(error.description.contains("certs.p12"))
        }
        try openssl(["pkcs12", "-export", "-in", "c.pem", "-inkey", "k.pem", "-keypbe", "NONE", "-certpbe", "NONE", "-passout", "pass:right",
                     "-out", "plain.p12"], in: dir.path)
        #expect(try ClientIdentity(pkcs12File: dir.file("plain.p12"), password: "right").certificateChain.count == 1)
    }

    /// swift-nio-ssl 2.37.6 also traps when BoringSSL reads a key but no certificate of that key: a bundle whose key
    /// belongs to another certificate (Fuzz/Regressions/identity-pkcs12/key-matches-no-certificate.p12), and a
    /// key-only bundle. Both keys are shrouded (encrypted), so only the decrypted bundle shows the mismatch.
    @Test func aPKCS12BundleWhoseKeyMatchesNoCertificateIsRefusedNotACrash() throws {
        let dir = try TemporaryDirectory()
        let ca = PKI.root("Client CA")
        let leaf = ca.leaf("client", dns: [], extendedKeyUsage: [.clientAuth])
        try dir.write("c.pem", leaf.pem)
        try dir.write("other.pem", ca.key.pemString)
        try openssl(["pkcs12", "-export", "-nocerts", "-inkey", "other.pem", "-certfile", "c.pem", "-passout", "pass:right",
                     "-out", "mismatched.p12"], in: dir.path)
        try openssl(["pkcs12", "-export", "-nocerts", "-inkey", "other.pem", "-passout", "pass:right", "-out", "key-only.p12"], in: dir.path)
        let expected = [("mismatched.p12", "key in '\(dir.file("mismatched.p12"))' does not match its certificate;"), ("key-only.p12", "holds a private key but no certificate")]
        for (file, message) in expected {
            do {
                _ = try ClientIdentity(pkcs12File: dir.file(file), password: "right")
                Issue.record("\(file) was accepted")
            } catch {
                #expect(error.description.contains(message), "\(error)")
                #expect(error.description.contains(file), "\(error)")
                #expect(error.description.contains("openssl pkcs12 -export -in cert.pem -inkey key.pem"), "\(error)")
            }
            // The screen reads the bundle only with the right password; a wrong one is still reported as such.
            let wrong = #expect(throws: ClientIdentityError.self) { try ClientIdentity(pkcs12File: dir.file(file), password: "wrong") }
            #expect(wrong?.description.contains("password is wrong") == true, "\(String(describing: wrong))")
        }
    }

    @Test func pemIdentityAndUnreadableFiles() throws {
        let dir = try TemporaryDirectory()
        let leaf = PKI.root("Client CA").leaf("client", dns: [], extendedKeyUsage: [.clientAuth])
        let cert = try dir.write("c.pem", leaf.pem)
        let key = try dir.write("k.pem", leaf.key.pemString)
        #expect(try ClientIdentity(certificateFile: cert, keyFile: key).certificateChain.count == 1)
        #expect(throws: ClientIdentityError.self) { try ClientIdentity(certificateFile: dir.file("missing.pem"), keyFile: key) }
        let garbage = try dir.write("g.pem", "not a key")
        do {
            _ = try ClientIdentity(certificateFile: cert, keyFile: garbage)
            Issue.record("a file that holds no key was accepted as one")
        } catch {
            #expect(error.description.contains("'\(garbage)' is not a PEM private key"), "\(error)")
        }
    }

    /// BoringSSL would refuse the pair only when the first TLS context is made, at connection time.
    @Test func aKeyThatIsNotTheCertificatesIsRefusedWhenLoaded() throws {
        let dir = try TemporaryDirectory()
        let ca = PKI.root("Client CA")
        let leaf = ca.leaf("client", dns: [], extendedKeyUsage: [.clientAuth])
        let cert = try dir.write("c.pem", leaf.pem)
        let otherKey = try dir.write("other.pem", ca.key.pemString)
        do {
            _ = try ClientIdentity(certificateFile: cert, keyFile: otherKey)
            Issue.record("a key that does not match the certificate was accepted")
        } catch {
            #expect(error.description.contains("'\(otherKey)' is not the private key of the first certificate in '\(cert)'"), "\(error)")
            #expect(error.description.contains(leaf.label))
        }
    }
}
