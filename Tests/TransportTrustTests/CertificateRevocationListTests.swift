import Foundation
import SwiftASN1
import TestSupport
import Testing
import X509

@testable import TransportTrust

/// Reading CRLs: DER and PEM, every field, the entry index, and hostile inputs that must end in a clear reason.
@Suite struct CertificateRevocationListTests {
    let pki = PKI.chain()

    @Test func readsDERAndPEMAlike() throws {
        var builder = CRLBuilder(issuer: pki.intermediate)
        builder.entries = [.revoking(pki.leaf, reason: 1)]
        let der = try builder.signed(by: pki.intermediate.key)
        let fromDER = try CertificateRevocationList(bytes: der)
        let fromPEM = try CertificateRevocationList(bytes: Array(try builder.pem(by: pki.intermediate.key).utf8))
        #expect(fromDER.issuer == pki.intermediate.subject)
        #expect(fromDER.revokedCount == 1)
        #expect(fromDER.thisUpdate == builder.thisUpdate)
        #expect(fromDER.nextUpdate == builder.nextUpdate)
        #expect(!fromDER.isDelta)
        #expect(fromDER.unusable == nil)
        #expect(fromPEM.tbsBytes == fromDER.tbsBytes, "the same signed part (ECDSA signatures differ per signing)")
        #expect(CRLSignature.verify(fromPEM, with: pki.intermediate.certificate.publicKey) == .valid)
        let entry = try #require(fromDER.entries.entries(for: pki.leaf.certificate.serialNumber.bytes).first)
        #expect(entry.reason == 1)
    }

    /// What the `crl` fuzz target checks lookups against: every entry, serial without leading zeros, in serial order.
    @Test func revokedEntriesListsEachEntryAsIndexed() throws {
        var builder = CRLBuilder(issuer: pki.intermediate)
        builder.entries = [CRLBuilder.Entry(serial: [0x00, 0x90], reason: 4), CRLBuilder.Entry(serial: [0x05])]
        let crl = try CertificateRevocationList(bytes: try builder.signed(by: pki.intermediate.key))
        #expect(crl.revokedEntries == [
            .init(serial: [0x05], certificateIssuer: nil, reason: nil),
            .init(serial: [0x90], certificateIssuer: nil, reason: 4),
        ])
        #expect(crl.revokedEntries.allSatisfy { crl.lists(Certificate.SerialNumber(bytes: $0.serial)) })
    }

    @Test func findsEverySerialAndNoOther() throws {
        var builder = CRLBuilder(issuer: pki.intermediate)
        let serials: [[UInt8]] = (1...300).map { i in [UInt8(i >> 8), UInt8(i & 0xFF)].drop { $0 == 0 }.map { $0 } }
        // A high first byte needs a leading zero in DER; certificates carry it the same way.
        let high: [UInt8] = [0x00, 0x80, 0x01]
        builder.entries = (serials.map { $0.first.map { $0 >= 0x80 } == true ? [0] + $0 : $0 } + [high]).shuffled().map { CRLBuilder.Entry(serial: $0) }
        let crl = try CertificateRevocationList(bytes: try builder.signed(by: pki.intermediate.key))
        #expect(crl.revokedCount == 301)
        for serial in serials { #expect(!crl.entries.entries(for: Certificate.SerialNumber(bytes: serial).bytes).isEmpty, "\(serial)") }
        #expect(!crl.entries.entries(for: Certificate.SerialNumber(bytes: [0x80, 0x01]).bytes).isEmpty)
        #expect(crl.entries.entries(for: Certificate.SerialNumber(bytes: [0x01, 0x2D]).bytes).isEmpty, "301 is not listed")
        #expect(crl.entries.entries(for: Certificate.SerialNumber(bytes: [0x02, 0x00, 0x00]).bytes).isEmpty)
    }

    @Test func aHugeSerialIsIndexedAndFound() throws {
        let huge = [UInt8(0x01)] + [UInt8](repeating: 0xAB, count: 4_000)
        var builder = CRLBuilder(issuer: pki.intermediate)
        builder.entries = [CRLBuilder.Entry(serial: huge), CRLBuilder.Entry(serial: [0x05])]
        let crl = try CertificateRevocationList(bytes: try builder.signed(by: pki.intermediate.key))
        #expect(crl.entries.entries(for: huge[...]).count == 1)
        #expect(crl.entries.entries(for: [0x05]).count == 1)
    }

    @Test func aNegativeSerialIsAboutNoCertificateAndDoesNotSpoilTheRest() throws {
        var builder = CRLBuilder(issuer: pki.intermediate)
        var negative = CRLBuilder.Entry(serial: [0xFF])  // DER 0xFF is -1
        negative.rawSerial = true
        builder.entries = [negative, CRLBuilder.Entry(serial: [0x05])]
        let crl = try CertificateRevocationList(bytes: try builder.signed(by: pki.intermediate.key))
        #expect(crl.revokedCount == 1)
        #expect(crl.lists(Certificate.SerialNumber(bytes: [0x05])))
        #expect(!crl.lists(Certificate.SerialNumber(bytes: [0x00, 0xFF])), "255 is not -1 (PKITS 4.4.14)")
    }

    @Test func anUnknownCriticalExtensionMakesItUnusableNotUnreadable() throws {
        var builder = CRLBuilder(issuer: pki.intermediate)
        builder.extensions = [Certificate.Extension(oid: [1, 2, 3, 4], critical: true, value: [0x05, 0x00])]
        let crl = try CertificateRevocationList(bytes: try builder.signed(by: pki.intermediate.key))
        #expect(crl.unusable?.contains("1.2.3.4") == true)

        var entry = CRLBuilder(issuer: pki.intermediate)
        entry.entries = [CRLBuilder.Entry(serial: [7], extensions: [Certificate.Extension(oid: [1, 2, 3, 5], critical: true, value: [0x05, 0x00])])]
        let withEntry = try CertificateRevocationList(bytes: try entry.signed(by: pki.intermediate.key))
        #expect(withEntry.unusable?.contains("an entry has a critical extension") == true)

        var known = CRLBuilder(issuer: pki.intermediate)
        known.extensions = [Certificate.Extension(oid: [1, 2, 3, 4], critical: false, value: [0x05, 0x00])]
        #expect(try CertificateRevocationList(bytes: try known.signed(by: pki.intermediate.key)).unusable == nil)
    }

    @Test func cRLNumberIsRequiredAndNotCritical() throws {
        var missing = CRLBuilder(issuer: pki.intermediate)
        missing.number = nil
        #expect(try CertificateRevocationList(bytes: try missing.signed(by: pki.intermediate.key)).unusable?.contains("cRLNumber") == true)
        var critical = CRLBuilder(issuer: pki.intermediate)
        critical.numberCritical = true
        #expect(try CertificateRevocationList(bytes: try critical.signed(by: pki.intermediate.key)).unusable?.contains("critical") == true)
    }

    @Test func readsTheDeltaIndicatorAndTheIssuingDistributionPoint() throws {
        var builder = CRLBuilder(issuer: pki.intermediate)
        builder.number = [9]
        builder.deltaBase = [7]
        builder.issuingDistributionPoint = CRLBuilder.issuingDistributionPoint(uris: ["http://crl.example/ca.crl"], onlyUser: true,
                                                                               onlySomeReasons: [1, 2])
        let crl = try CertificateRevocationList(bytes: try builder.signed(by: pki.intermediate.key))
        #expect(crl.isDelta)
        #expect(crl.deltaBase == [7])
        #expect(crl.number == [9])
        let idp = try #require(crl.issuingDistributionPoint)
        #expect(idp.onlyContainsUserCerts && !idp.onlyContainsCACerts && !idp.indirectCRL)
        #expect(idp.onlySomeReasons == [.reason(1), .reason(2)])
        #expect(idp.name == .fullName([.uniformResourceIdentifier("http://crl.example/ca.crl")]))
    }

    @Test func refusesADifferingSignatureAlgorithm() throws {
        var builder = CRLBuilder(issuer: pki.intermediate)
        let der = try builder.signed(by: pki.intermediate.key)
        // Re-sign claiming SHA-384 inside while the outer AlgorithmIdentifier still says SHA-256.
        builder.signatureAlgorithm = [1, 2, 840, 10045, 4, 3, 3]
        let other = try builder.signed(by: pki.intermediate.key)
        let crl = try CertificateRevocationList(bytes: der)
        let tbs = Array(try CertificateRevocationList(bytes: other).tbsBytes)
        let outer = Array(crl.derEncoded[crl.tbsRange.endIndex...])
        var s = DER.Serializer()
        s.appendConstructedNode(identifier: .sequence) { s in s.serializeRawBytes(tbs + outer) }
        #expect { try CertificateRevocationList(bytes: s.serializedBytes) } throws: { "\($0)".contains("§5.1.1.2") }
    }

    @Test(arguments: [1, 10, 100, 500])
    func truncationIsAClearError(_ cut: Int) throws {
        var builder = CRLBuilder(issuer: pki.intermediate)
        builder.entries = (0..<40).map { CRLBuilder.Entry(serial: [UInt8($0 + 1)]) }
        let der = try builder.signed(by: pki.intermediate.key)
        #expect { try CertificateRevocationList(bytes: Array(der.dropLast(cut))) } throws: { error in
            let text = "\(error)"
            return text.contains("CertificateList") && !text.contains(".swift")
        }
    }

    /// swift-asn1's text ("ASN1Error.truncatedASN1Field", "unexpectedFieldType: ASN1Identifier(…)") used to be the reason.
    @Test func aDERFaultIsSaidInWordsWithWhereItIs() throws {
        let der = try CRLBuilder(issuer: pki.intermediate).signed(by: pki.intermediate.key)
        let cases: [([UInt8], String)] = [
            (Array(der.dropLast(10)), "data ends 10 bytes early, at byte \(der.count - 10)"),
            (der + [0, 0, 0], "it starts with a DER element of \(der.count) bytes, then 3 more bytes follow"),
            ([], "it is empty"),
            (pki.leaf.der, "a field in it has a type (tag) other than the one that belongs there"),
        ]
        for (bytes, words) in cases {
            #expect { try CertificateRevocationList(derEncoded: bytes) } throws: { error in
                let text = "\(error)"
                return text.contains(words) && !text.contains("ASN1Error") && !text.contains("ASN1Identifier")
            }
        }
    }

    @Test func textThatIsNotACRLSaysWhatItHolds() throws {
        #expect { try CertificateRevocationList(bytes: Array(pki.leaf.pem.utf8)) } throws: { "\($0)".contains("no 'X509 CRL' PEM block (found: CERTIFICATE)") }
        #expect { try CertificateRevocationList(bytes: Array("hello".utf8)) } throws: { "\($0)".contains("PEM") }
        #expect { try CertificateRevocationList(bytes: [0xFF, 0xFE]) } throws: { "\($0)".contains("neither DER") }
    }

    /// 50 MB of one well-formed CRL (a large non-critical extension) is read; past the cap, bytes are refused unread.
    /// The CRL is put together from DER parts here: swift-asn1's serializer moves a nested 50 MB body byte by byte in a
    /// debug build, which would hold a cooperative thread for half a minute.
    @Test func aFiftyMegabyteCRLEndsWithAnAnswerAndALargerOneWithAReason() throws {
        func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
            let n = content.count
            let length: [UInt8] = n < 0x80 ? [UInt8(n)] : [0x84, UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
            return [tag] + length + content
        }
        // The parts of a small CRL made the usual way, then the large extension beside its cRLNumber.
        var small = CRLBuilder(issuer: pki.intermediate)
        small.entries = [.revoking(pki.leaf)]
        let template = try CertificateRevocationList(bytes: try small.signed(by: pki.intermediate.key))
        let tbs = try DER.parse(Array(template.tbsBytes))
        guard case .constructed(let fields) = tbs.content else { Issue.record("tbs"); return }
        let parts = fields.map { Array($0.encodedBytes) }
        let big = [UInt8](repeating: 0x41, count: 50_000_000)
        let ext = tlv(0x30, tlv(0x06, [0x2A, 0x03, 0x06]) + tlv(0x04, tlv(0x04, big)))
        let number = tlv(0x30, tlv(0x06, [0x55, 0x1D, 0x14]) + tlv(0x04, [0x02, 0x01, 0x01]))
        let signedPart = tlv(0x30, parts.dropLast().joined() + tlv(0xA0, tlv(0x30, number + ext)))
        let signature = try pki.intermediate.key.sign(signedPart).signature
        let whole = tlv(0x30, signedPart + Array(template.signatureAlgorithm.encoded) + tlv(0x03, [0x00] + signature))
        #expect(whole.count > 50_000_000)
        let crl = try CertificateRevocationList(bytes: whole)
        #expect(crl.revokedCount == 1)
        #expect(crl.lists(pki.leaf.certificate.serialNumber))
        #expect(CRLSignature.verify(crl, with: pki.intermediate.certificate.publicKey) == .valid)
        let tooBig = whole + [UInt8](repeating: 0, count: CertificateRevocationList.maximumBytes)
        #expect { try CertificateRevocationList(bytes: tooBig) } throws: { "\($0)".contains("MiB, over the 64 MiB") }
    }
}
