import Crypto
import Foundation
import SwiftASN1
import X509

/// Builds DER OCSP responses (RFC 6960) for tests of the engine and of the client. swift-certificates keeps its OCSP types internal, so the
/// structure is written out here by hand.
public enum OCSPResponseBuilder {
    public enum Status {
        case good
        case revoked(at: Date)
        case unknown
    }

    /// A successful BasicOCSPResponse about `certificate`, signed by `signer` (the issuer itself, named by
    /// subject), valid from an hour before `time` to a day after it.
    public static func response(
        for certificate: TestCert,
        issuer: TestCert,
        status: Status,
        at time: Date = PKI.now,
        signer: TestKey? = nil
    ) throws -> [UInt8] {
        let certID = sequence(
            sequence(try serialize(ASN1ObjectIdentifier.sha1Digest), [0x05, 0x00]),  // SHA-1, as swift-certificates asks
            tlv(0x04, Array(Insecure.SHA1.hash(data: try serialize(issuer.certificate.subject)))),
            tlv(0x04, Array(Insecure.SHA1.hash(data: issuer.certificate.publicKey.subjectPublicKeyInfoBytes))),
            integer(Array(certificate.certificate.serialNumber.bytes))
        )
        let certStatus: [UInt8]
        switch status {
        case .good: certStatus = [0x80, 0x00]
        case .unknown: certStatus = [0x82, 0x00]
        case .revoked(let when): certStatus = tlv(0xA1, generalizedTime(when) + tlv(0xA0, [0x0A, 0x01, 0x01]))  // keyCompromise
        }
        let thisUpdate = time.addingTimeInterval(-3600)
        let single = sequence(certID, certStatus, generalizedTime(thisUpdate), tlv(0xA0, generalizedTime(time.addingTimeInterval(86400))))
        let responseData = sequence(
            tlv(0xA1, try serialize(issuer.certificate.subject)),  // responderID byName
            generalizedTime(thisUpdate),
            sequence(single)
        )
        let (algorithm, signature) = try (signer ?? issuer.key).sign(responseData)
        let basic = sequence(responseData, sequence(try serialize(algorithm)), tlv(0x03, [0x00] + signature))
        return sequence(
            [0x0A, 0x01, 0x00],  // successful
            tlv(0xA0, sequence(try serialize(ASN1ObjectIdentifier.ocspBasic), tlv(0x04, basic)))
        )
    }

    /// An OCSPResponse with an unsuccessful status and no body (tryLater).
    public static let tryLater: [UInt8] = [0x30, 0x03, 0x0A, 0x01, 0x03]

    static func serialize(_ value: some DERSerializable) throws -> [UInt8] {
        var s = DER.Serializer()
        try s.serialize(value)
        return s.serializedBytes
    }

    static func generalizedTime(_ date: Date) -> [UInt8] {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMddHHmmss'Z'"
        return tlv(0x18, Array(f.string(from: date).utf8))
    }

    /// An INTEGER from unsigned big-endian bytes, as swift-certificates keeps serial numbers.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var content = Array(magnitude.drop { $0 == 0 })
        if content.isEmpty || content[0] & 0x80 != 0 { content.insert(0, at: 0) }
        return tlv(0x02, content)
    }

    static func sequence(_ parts: [UInt8]...) -> [UInt8] { tlv(0x30, parts.flatMap { $0 }) }

    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out = [tag]
        let n = content.count
        if n < 0x80 {
            out.append(UInt8(n))
        } else {
            var bytes: [UInt8] = []
            var v = n
            while v > 0 { bytes.insert(UInt8(v & 0xFF), at: 0); v >>= 8 }
            out.append(0x80 | UInt8(bytes.count))
            out += bytes
        }
        return out + content
    }
}

extension ASN1ObjectIdentifier {
    public static let sha1Digest: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    public static let ocspBasic: ASN1ObjectIdentifier = [1, 3, 6, 1, 5, 5, 7, 48, 1, 1]
}
