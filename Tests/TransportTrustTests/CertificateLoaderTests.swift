import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

@Suite struct CertificateLoaderTests {
    let pki = PKI.chain()
    var root: TestCert { pki.root }
    var intermediate: TestCert { pki.intermediate }
    var leaf: TestCert { pki.leaf }

    @Test func readsEveryCertificateOfAPEMFileInOrder() throws {
        let text = "subject=leaf\n" + leaf.pem + "\n-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n" + intermediate.pem
        let certs = try CertificateLoader.certificates(from: Array(text.utf8), source: "chain.pem")
        #expect(certs.map(\.der) == [leaf.der, intermediate.der])
        #expect(certs.allSatisfy { $0.certificate != nil && $0.parseFailure == nil })
    }

    /// A file of more certificates than any chain or bundle is refused before one is parsed, PEM or DER alike.
    @Test func moreCertificatesThanTheLimitAreRefusedUnread() throws {
        let count = CertificateLoader.maximumCertificates + 1
        let pem = Array(String(repeating: leaf.pem, count: count).utf8)
        #expect(throws: CertificateInputError.tooManyCertificates(source: "many.pem", limit: CertificateLoader.maximumCertificates)) {
            try CertificateLoader.certificates(from: pem, source: "many.pem")
        }
        var der: [UInt8] = []
        der.reserveCapacity(leaf.der.count * count)
        for _ in 0..<count { der.append(contentsOf: leaf.der) }
        #expect(throws: CertificateInputError.tooManyCertificates(source: "many.der", limit: CertificateLoader.maximumCertificates)) {
            try CertificateLoader.certificates(from: der, source: "many.der")
        }
        #expect("\(CertificateInputError.tooManyCertificates(source: "many.pem", limit: 10_000))".contains("holds more than 10000 certificates"))
    }

    @Test func readsPEMWithCRLFLineEndings() throws {
        let text = (leaf.pem + intermediate.pem).replacingOccurrences(of: "\n", with: "\r\n")
        let certs = try CertificateLoader.certificates(from: Array(text.utf8), source: "crlf.pem")
        #expect(certs.map(\.der) == [leaf.der, intermediate.der])
    }

    @Test func readsASingleDERCertificate() throws {
        let certs = try CertificateLoader.certificates(from: leaf.der, source: "leaf.der")
        #expect(certs.map(\.der) == [leaf.der])
    }

    /// `cat leaf.der intermediate.der > chain.der`: read as the chain it is, not refused as trailing data.
    @Test func readsDERCertificatesBackToBack() throws {
        let certs = try CertificateLoader.certificates(from: leaf.der + intermediate.der + root.der, source: "chain.der")
        #expect(certs.map(\.der) == [leaf.der, intermediate.der, root.der])
    }

    @Test func aDERConcatenationNamesTheElementThatIsNoCertificate() {
        let notACertificate: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x05]  // SEQUENCE { INTEGER 5 }
        do {
            _ = try CertificateLoader.certificates(from: leaf.der + notACertificate, source: "chain.der")
            Issue.record("a concatenation with a bad element was read")
        } catch {
            guard case .malformed(let source, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(source == "chain.der (DER certificate 2 of 2)")
        }
    }

    /// The concatenation is cut by headers alone; a header it cannot follow leaves the input one malformed
    /// certificate, refused with the parser's reason, never read in part.
    @Test func aDERConcatenationWithAnUnfollowableHeaderIsNotSplit() {
        let cases: [(String, [UInt8])] = [
            ("cut short", leaf.der + Array(intermediate.der.dropLast())),
            ("indefinite length", leaf.der + [0x30, 0x80, 0x02, 0x01, 0x05, 0x00, 0x00]),
            ("five length octets", leaf.der + [0x30, 0x85, 0x00, 0x00, 0x00, 0x00, 0x01, 0x05]),
            ("high tag number", leaf.der + [0x3F, 0x81, 0x01, 0x00]),
            ("a lone tag byte", leaf.der + [0x30]),
        ]
        for (name, bytes) in cases {
            #expect(CertificateLoader.derConcatenation(bytes) == nil, "\(name)")
            #expect(throws: CertificateInputError.self, "\(name)") { try CertificateLoader.certificates(from: bytes, source: "chain.der") }
        }
        let split = CertificateLoader.derConcatenation(leaf.der + intermediate.der)
        #expect(split?.map { Array($0) } == [leaf.der, intermediate.der])
    }

    /// A .p7b as CAs and Windows export chains: what it is, and the command that converts it.
    @Test(.enabled(if: OpenSSLCommand.isAvailable))
    func aPKCS7BundleSaysHowToConvertIt() throws {
        let dir = try TemporaryDirectory()
        _ = try dir.write("chain.pem", leaf.pem + intermediate.pem)
        try OpenSSLCommand.run(["crl2pkcs7", "-nocrl", "-certfile", "chain.pem", "-out", "chain.p7b"], in: dir.url)
        try OpenSSLCommand.run(["crl2pkcs7", "-nocrl", "-certfile", "chain.pem", "-outform", "DER", "-out", "chain.p7b.der"], in: dir.url)
        for name in ["chain.p7b", "chain.p7b.der"] {
            let path = dir.file(name)
            #expect(throws: CertificateInputError.pkcs7(source: path)) { try CertificateLoader.certificates(atPath: path) }
            let message = CertificateInputError.pkcs7(source: path).description
            #expect(message.contains("is a PKCS#7 bundle") && message.contains("openssl pkcs7 -print_certs -in \(path) -out chain.pem"), "\(message)")
        }
    }

    @Test func readsFiles() throws {
        let dir = try TemporaryDirectory()
        let pem = try dir.write("chain.pem", leaf.pem + intermediate.pem)
        let der = try dir.write("root.der", bytes: root.der)
        #expect(try CertificateLoader.certificates(atPath: pem).map(\.der) == [leaf.der, intermediate.der])
        #expect(try CertificateLoader.certificates(atPath: der).map(\.der) == [root.der])
    }

    @Test func garbagePEMNamesTheBlockAndLine() {
        let text = leaf.pem + "\n-----BEGIN CERTIFICATE-----\n!!!! this is not base64 ????\n-----END CERTIFICATE-----\n"
        let beginLine = text.components(separatedBy: "\n").firstIndex(of: "!!!! this is not base64 ????")!
        #expect(throws: CertificateInputError.badPEMBlock(source: "bad.pem", block: 1, line: beginLine + 1, reason: "it holds '!', which is not base64")) {
            try CertificateLoader.certificates(from: Array(text.utf8), source: "bad.pem")
        }
        // Base64 characters that do not make whole base64 (no padding) are named by the block's BEGIN line.
        let unpadded = leaf.pem + "\n-----BEGIN CERTIFICATE-----\nQUJDRA\n-----END CERTIFICATE-----\n"
        #expect(throws: CertificateInputError.badPEMBlock(source: "bad.pem", block: 1, line: beginLine, reason: "its base64 does not decode")) {
            try CertificateLoader.certificates(from: Array(unpadded.utf8), source: "bad.pem")
        }
        let message = CertificateInputError.badPEMBlock(source: "bad.pem", block: 1, line: beginLine, reason: "its base64 does not decode").description
        #expect(message.contains("bad.pem:\(beginLine): PEM block 2"))
        #expect(message.contains("Re-export it, or remove the block"))
    }

    /// A stray character in a certificate's base64 is damage: it is named with its line, not skipped.
    @Test func aStrayCharacterInsideTheBase64IsNamedWithItsLine() {
        var lines = leaf.pem.components(separatedBy: "\n")
        lines[3].insert("<", at: lines[3].index(lines[3].startIndex, offsetBy: 10))
        #expect(throws: CertificateInputError.badPEMBlock(source: "chain.pem", block: 0, line: 4, reason: "it holds '<', which is not base64")) {
            try CertificateLoader.certificates(from: Array(lines.joined(separator: "\n").utf8), source: "chain.pem")
        }
        var control = leaf.pem.components(separatedBy: "\n")
        control[3] = "  " + control[3] + " \r"
        #expect(throws: Never.self, "blanks around and inside a line are not damage") {
            try CertificateLoader.certificates(from: Array(control.joined(separator: "\n").utf8), source: "chain.pem")
        }
        #expect(throws: CertificateInputError.badPEMBlock(source: "chain.pem", block: 0, line: 2, reason: "it holds a non-ASCII character, which is not base64")) {
            try CertificateLoader.certificates(from: Array(leaf.pem.utf8).prefix(28) + [0xFF] + Array(leaf.pem.utf8).dropFirst(28), source: "chain.pem")
        }
    }

    @Test func aBlockCutOffByTheNextBEGINIsRefused() {
        let lines = leaf.pem.components(separatedBy: "\n")
        let text = lines[0...2].joined(separator: "\n") + "\n" + leaf.pem + intermediate.pem
        #expect(throws: CertificateInputError.badPEMBlock(source: "chain.pem", block: 0, line: 1, reason: "it has no END line before the BEGIN line on line 4")) {
            try CertificateLoader.certificates(from: Array(text.utf8), source: "chain.pem")
        }
    }

    @Test(arguments: ["-----END CERTIFICATE&-----", "-----END CERTIFICATE-xyz", "-----END PRIVATE KEY-----"])
    func aDamagedENDLineIsNotAnEnd(endLine: String) {
        var lines = leaf.pem.components(separatedBy: "\n")
        let at = lines.firstIndex(of: "-----END CERTIFICATE-----") ?? 0
        lines[at] = endLine
        #expect(throws: CertificateInputError.badPEMBlock(source: "chain.pem", block: 0, line: at + 1,
                                                         reason: "its END line is '\(endLine)', not '-----END CERTIFICATE-----'")) {
            try CertificateLoader.certificates(from: Array(lines.joined(separator: "\n").utf8), source: "chain.pem")
        }
    }

    /// Labels are compared as bytes: a block whose label is not UTF-8 is still closed by its own END line, and
    /// skipped as not a certificate, however its label would read as text.
    @Test func aBlockWithANonUTF8LabelIsClosedAndSkipped() throws {
        let odd: [UInt8] = Array("-----BEGIN X".utf8) + [0xFF, 0xFE] + Array("-----\nAAAA\n-----END X".utf8) + [0xFF, 0xFE] + Array("-----\n".utf8)
        let read = try CertificateLoader.certificates(from: odd + Array(leaf.pem.utf8), source: "chain.pem")
        #expect(read.map(\.der) == [leaf.der])
        // Another non-UTF-8 byte in the END line reads as the same replacement character, but is not the same label.
        let mismatched: [UInt8] = Array("-----BEGIN X".utf8) + [0xFF] + Array("-----\nAAAA\n-----END X".utf8) + [0xFE] + Array("-----\n".utf8)
        #expect(throws: CertificateInputError.self) {
            try CertificateLoader.certificates(from: mismatched + Array(leaf.pem.utf8), source: "chain.pem")
        }
    }

    @Test func validBase64ThatIsNotACertificateIsABadBlock() {
        let text = "-----BEGIN CERTIFICATE-----\n" + Data("hello, world".utf8).base64EncodedString() + "\n-----END CERTIFICATE-----\n"
        do {
            _ = try CertificateLoader.certificates(from: Array(text.utf8), source: "hello.pem")
            Issue.record("a block that is not a certificate was accepted")
        } catch {
            guard case .badPEMBlock(let source, let block, let line, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(source == "hello.pem")
            #expect(block == 0)
            #expect(line == 1)
        }
    }

    @Test func aBlockWithoutAnEndLineIsRefused() {
        let truncated = String(leaf.pem.split(separator: "\n").dropLast().joined(separator: "\n"))
        do {
            _ = try CertificateLoader.certificates(from: Array(truncated.utf8), source: "cut.pem")
            Issue.record("a PEM block without END was accepted")
        } catch {
            #expect(error.description.contains("no END line"), "\(error)")
            #expect(error.description.contains("cut.pem"))
        }
    }

    @Test func emptyInputSaysWhatToGive() {
        for bytes in [[UInt8](), Array(" \n\t\r\n".utf8), Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8)] {
            #expect(throws: CertificateInputError.empty(source: "empty.pem")) {
                try CertificateLoader.certificates(from: bytes, source: "empty.pem")
            }
        }
        #expect(CertificateInputError.empty(source: "empty.pem").description.contains("-----BEGIN CERTIFICATE-----"))
    }

    @Test func bytesThatAreNeitherPEMNorDER() {
        do {
            _ = try CertificateLoader.certificates(from: Array("just some text".utf8), source: "notes.txt")
            Issue.record("text was accepted as a certificate")
        } catch {
            guard case .malformed(let source, let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(source == "notes.txt")
            #expect(reason.contains("neither PEM text nor DER"))
            #expect(error.description.contains("Re-export it as PEM or DER"))
        }
    }

    @Test func truncatedDERIsMalformedAndPlaced() {
        for cut in [1, 10, leaf.der.count / 2, leaf.der.count - 1] {
            do {
                _ = try CertificateLoader.certificates(from: Array(leaf.der.prefix(cut)), source: "cut.der")
                Issue.record("a certificate truncated to \(cut) bytes was accepted")
            } catch {
                guard case .malformed(let source, _) = error else { Issue.record("unexpected \(error)"); continue }
                #expect(source == "cut.der")
            }
        }
        // Trailing bytes after a certificate are refused too.
        #expect(throws: CertificateInputError.self) { try CertificateLoader.certificates(from: leaf.der + [0x00], source: "long.der") }
    }

    @Test func anUnreadableFileSaysWhichAndHow() {
        let path = "/nonexistent/\(UUID().uuidString)/chain.pem"
        do {
            _ = try CertificateLoader.certificates(atPath: path)
            Issue.record("a missing file was read")
        } catch {
            guard case .unreadableFile(let p, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(p == path)
            #expect(error.description.contains("cannot read '\(path)'"))
            #expect(error.description.contains("Check the path"))
        }
    }

    @Test(.enabled(if: OpenSSLTool.isAvailable))
    func keepsACertificateSwiftCertificatesCannotParse() throws {
        let tool = try OpenSSLTool()
        try tool.run(["req", "-x509", "-newkey", "rsa:1024", "-nodes", "-keyout", "weak.key", "-out", "weak.pem", "-days", "30", "-subj", "/CN=Weak Self-Signed"])
        let input = try tool.load("weak")
        #expect(input.certificate == nil)
        #expect(input.parseFailure != nil)
        #expect(input.raw?.keyAlgorithm == .rsa(bits: 1024))
        #expect(input.raw?.subject.description == "CN=Weak Self-Signed")
        #expect(input.spkiSHA256Base64?.isEmpty == false)
    }

    @Test func equalityIsByDER() throws {
        let a = try InputCertificate(der: leaf.der)
        let b = try InputCertificate(leaf.certificate)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != intermediate.input)
    }
}
