import TestSupport
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

@Suite struct DistrustListTests {
    let pki = PKI.chain()

    func read(_ text: String) throws -> DistrustList { try DistrustList(source: "distrust.txt", contents: Array(text.utf8)) }

    func error(_ text: String) -> DistrustListError? {
        do { _ = try read(text); return nil } catch { return error as? DistrustListError }
    }

    @Test func readsCertificatesKeysAndComments() throws {
        let spki = try #require(pki.root.input.raw?.subjectPublicKeyInfo)
        let publicKey = PEMDocument(type: "PUBLIC KEY", derBytes: spki).pemString
        let list = try read("""
            # the old intermediate
            \(pki.intermediate.pem)
            sha256/\(try #require(pki.leaf.input.spkiSHA256Base64))

            \(publicKey)
            """)
        #expect(list.certificates == [Array(SHA256.hash(data: pki.intermediate.der))])
        #expect(list.keys == [Array(SHA256.hash(data: spki)), Array(SHA256.hash(data: try #require(pki.leaf.input.raw?.subjectPublicKeyInfo)))])
        #expect(list.count == 3)
        #expect(list.description == "distrust.txt (1 certificate, 2 keys)")
    }

    @Test func readsOneDERCertificate() throws {
        let list = try DistrustList(source: "ca.der", contents: pki.intermediate.der)
        #expect(list.certificates == [Array(SHA256.hash(data: pki.intermediate.der))])
    }

    @Test func namesTheLineOfWhatItCannotRead() {
        #expect(error("# fine\nnot a hash")?.description == "distrust.txt line 2: 'not a hash' is neither a PEM block nor a key hash; write keys as sha256/BASE64 (the SHA-256 of the SubjectPublicKeyInfo)")
        #expect(error("\n\nsha256/AAAA")?.line == 3)
        #expect(error("sha256/!!!")?.reason.contains("not valid base64") == true)
        #expect(error("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")?.reason.contains("'PRIVATE KEY' block") == true)
        #expect(error("-----BEGIN CERTIFICATE-----\nAAAA\n")?.reason.contains("no END line") == true)
        #expect(error("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")?.line == 1)
    }

    @Test func anEmptyListIsAnError() {
        #expect(error("# nothing here\n\n")?.reason == "it lists no certificate and no key")
        #expect(error("")?.reason == "it lists no certificate and no key")
    }

    @Test func bytesThatAreNeitherTextNorDERAreAnError() {
        #expect(throws: DistrustListError.self) { try DistrustList(source: "x", contents: [0xFF, 0xFE, 0x00]) }
    }
}
