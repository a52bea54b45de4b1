import Crypto
import SwiftASN1
import X509

/// The fields of a certificate read straight from its DER, without swift-certificates' key parsing.
///
/// swift-certificates refuses RSA-PSS and RSA-1024 keys at parse time. Pins and verdicts still need the
/// subject, the key type and size, and the SPKI hash of such certificates, so they are read here from the
/// DER structure alone.
package struct RawCertificate: Sendable, Hashable {
    /// The whole certificate DER.
    package let der: [UInt8]
    /// The DER of the SubjectPublicKeyInfo, exactly as the certificate carries it: what SPKI pins hash.
    package let subjectPublicKeyInfo: [UInt8]
    package let subject: DistinguishedName
    package let issuer: DistinguishedName
    package let serialNumber: [UInt8]
    package let keyAlgorithm: KeyAlgorithm
    package let signatureAlgorithmOID: ASN1ObjectIdentifier
    /// The DER of the signature AlgorithmIdentifier's parameters, nil when absent.
    package let signatureAlgorithmParameters: [UInt8]?

    /// Reads `der` as an X.509 certificate.
    package init(der: [UInt8]) throws(CertificateInputError) {
        do {
            let root = try DER.parse(der)
            let layout = try CertificateLayout(root)
            guard root.encodedBytes.count == der.count else {
                throw CertificateInputError.malformed(source: nil, reason: "trailing bytes after the certificate")
            }
            let fields = layout.tbsFields
            let serial = try ASN1IntegerBytes(derEncoded: fields[0])
            self.serialNumber = Array(serial.bytes)
            self.issuer = try DistinguishedName(derEncoded: fields[2])
            self.subject = try DistinguishedName(derEncoded: fields[4])
            self.subjectPublicKeyInfo = Array(fields[5].encodedBytes)
            self.keyAlgorithm = try KeyAlgorithm(spki: fields[5])
            self.signatureAlgorithmOID = try Self.algorithmOID(layout.signatureAlgorithm)
            self.signatureAlgorithmParameters = Self.algorithmParameters(layout.signatureAlgorithm)
            self.der = der
        } catch let error as CertificateInputError {
            throw error
        } catch {
            throw CertificateInputError.malformed(source: nil, reason: derProblem(error, in: der))
        }
    }

    /// The first extension the certificate carries twice. Read only to explain why swift-certificates refused it.
    package var repeatedExtension: ASN1ObjectIdentifier? {
        guard let extensions = extensionNodes else { return nil }
        var seen: Set<ASN1ObjectIdentifier> = []
        for ext in extensions {
            guard case .constructed(let parts) = ext.content, let oidNode = parts.first(where: { _ in true }),
                  let oid = try? ASN1ObjectIdentifier(derEncoded: oidNode) else { continue }
            if !seen.insert(oid).inserted { return oid }
        }
        return nil
    }

    /// The X.509 version as written (1, 2 or 3): the TBSCertificate's version field plus one, 1 when it is absent.
    package var version: Int {
        guard let root = try? DER.parse(der), case .constructed(let top) = root.content, let tbs = top.first(where: { _ in true }),
              case .constructed(let fields) = tbs.content, let first = fields.first(where: { _ in true }),
              first.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
              case .constructed(let inner) = first.content, let node = inner.first(where: { _ in true }),
              let value = try? Int(derEncoded: node)
        else { return 1 }
        return value + 1
    }

    /// The basicConstraints extension, read from the DER with swift-certificates' own decoder, so that it is known
    /// for certificates swift-certificates cannot parse whole (RSA-1024, RSA-PSS keys). nil when the certificate
    /// has no such extension or it cannot be decoded.
    package var basicConstraints: BasicConstraints? {
        guard let nodes = extensionNodes else { return nil }
        for node in nodes {
            guard let ext = try? Certificate.Extension(derEncoded: node), ext.oid == .X509ExtensionID.basicConstraints else { continue }
            return try? BasicConstraints(ext)
        }
        return nil
    }

    /// The DER nodes of the extensions ([3] EXPLICIT SEQUENCE OF Extension), nil when there are none.
    private var extensionNodes: ASN1NodeCollection? {
        guard let root = try? DER.parse(der), let layout = try? CertificateLayout(root),
              let wrapper = layout.tbsFields.last, wrapper.identifier == ASN1Identifier(tagWithNumber: 3, tagClass: .contextSpecific),
              case .constructed(let outer) = wrapper.content, let list = outer.first(where: { _ in true }),
              case .constructed(let extensions) = list.content
        else { return nil }
        return extensions
    }

    static func algorithmOID(_ node: ASN1Node) throws -> ASN1ObjectIdentifier {
        guard case .constructed(let children) = node.content, let oidNode = children.first(where: { _ in true }) else {
            throw CertificateInputError.malformed(source: nil, reason: "an AlgorithmIdentifier has no OID")
        }
        return try ASN1ObjectIdentifier(derEncoded: oidNode)
    }

    static func algorithmParameters(_ node: ASN1Node) -> [UInt8]? {
        guard case .constructed(let children) = node.content else { return nil }
        var parts = children.makeIterator()
        _ = parts.next()
        return parts.next().map { Array($0.encodedBytes) }
    }

    /// SHA-256 of the whole SubjectPublicKeyInfo DER, base64: the ATS / TrustKit / HPKP / OkHttp pin form.
    package var spkiSHA256Base64: String {
        Base64.encode(Array(SHA256.hash(data: subjectPublicKeyInfo)))
    }
}

/// Where the fields of a certificate sit in its DER: the three top-level parts, and the TBSCertificate's fields
/// without the optional version, so that `tbsFields` reads serial, signature, issuer, validity, subject,
/// subjectPublicKeyInfo, then any extras.
struct CertificateLayout {
    let tbs: ASN1Node
    let signatureAlgorithm: ASN1Node
    let signature: ASN1Node
    let tbsFields: [ASN1Node]

    init(_ root: ASN1Node) throws(CertificateInputError) {
        guard case .constructed(let top) = root.content, root.identifier == .sequence else {
            throw .malformed(source: nil, reason: "a certificate must be a DER SEQUENCE")
        }
        var parts = top.makeIterator()
        guard let tbs = parts.next(), let signatureAlgorithm = parts.next(), let signature = parts.next(),
              case .constructed(let children) = tbs.content
        else {
            throw .malformed(source: nil, reason: "the certificate has fewer than three parts")
        }
        var fields = Array(children)
        // version is [0] EXPLICIT and optional
        if fields.first?.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) { fields.removeFirst() }
        guard fields.count >= 6 else { throw .malformed(source: nil, reason: "the TBSCertificate is missing fields") }
        (self.tbs, self.signatureAlgorithm, self.signature, self.tbsFields) = (tbs, signatureAlgorithm, signature, fields)
    }
}

/// A certificate's public key type and size, read from its SubjectPublicKeyInfo.
package enum KeyAlgorithm: Sendable, Hashable, CustomStringConvertible {
    case rsa(bits: Int)
    case rsaPSS(bits: Int)
    case ecdsa(curve: String, bits: Int)
    case ed25519
    case ed448
    case other(oid: String)

    init(spki: ASN1Node) throws {
        guard case .constructed(let parts) = spki.content else {
            throw CertificateInputError.malformed(source: nil, reason: "SubjectPublicKeyInfo is not a SEQUENCE")
        }
        var it = parts.makeIterator()
        guard let algNode = it.next(), let keyNode = it.next(),
            case .constructed(let algParts) = algNode.content
        else {
            throw CertificateInputError.malformed(source: nil, reason: "SubjectPublicKeyInfo is incomplete")
        }
        var algIt = algParts.makeIterator()
        guard let oidNode = algIt.next() else {
            throw CertificateInputError.malformed(source: nil, reason: "SubjectPublicKeyInfo has no algorithm")
        }
        let oid = try ASN1ObjectIdentifier(derEncoded: oidNode)
        let params = algIt.next()
        switch oid {
        case .AlgorithmIdentifier.rsaEncryption:
            self = .rsa(bits: Self.rsaModulusBits(keyNode))
        case Self.rsaPSSOID:
            self = .rsaPSS(bits: Self.rsaModulusBits(keyNode))
        case .AlgorithmIdentifier.idEcPublicKey:
            let curve = params.flatMap { try? ASN1ObjectIdentifier(derEncoded: $0) }
            switch curve {
            case .NamedCurves.secp256r1?: self = .ecdsa(curve: "P-256", bits: 256)
            case .NamedCurves.secp384r1?: self = .ecdsa(curve: "P-384", bits: 384)
            case .NamedCurves.secp521r1?: self = .ecdsa(curve: "P-521", bits: 521)
            case Self.secp192r1?: self = .ecdsa(curve: "P-192", bits: 192)
            case Self.secp224r1?: self = .ecdsa(curve: "P-224", bits: 224)
            case let other?: self = .ecdsa(curve: other.description, bits: 0)
            case nil: self = .ecdsa(curve: "explicit parameters", bits: 0)
            }
        case Self.ed25519OID:
            self = .ed25519
        case Self.ed448OID:
            self = .ed448
        default:
            self = .other(oid: oid.description)
        }
    }

    static let rsaPSSOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 10]
    static let ed25519OID: ASN1ObjectIdentifier = [1, 3, 101, 112]
    static let ed448OID: ASN1ObjectIdentifier = [1, 3, 101, 113]
    static let secp192r1: ASN1ObjectIdentifier = [1, 2, 840, 10045, 3, 1, 1]
    static let secp224r1: ASN1ObjectIdentifier = [1, 3, 132, 0, 33]

    private static func rsaModulusBits(_ keyNode: ASN1Node) -> Int {
        guard let bits = try? ASN1BitString(derEncoded: keyNode),
            let key = try? DER.parse(Array(bits.bytes)),
            case .constructed(let parts) = key.content,
            let modulusNode = parts.first(where: { _ in true }),
            let modulus = try? ASN1IntegerBytes(derEncoded: modulusNode)
        else { return 0 }
        let bytes = modulus.bytes.drop(while: { $0 == 0 })
        guard let first = bytes.first else { return 0 }
        return (bytes.count - 1) * 8 + (8 - first.leadingZeroBitCount)
    }

    /// The key size in bits, where one applies.
    package var bits: Int? {
        switch self {
        case .rsa(let b), .rsaPSS(let b): return b
        case .ecdsa(_, let b): return b
        case .ed25519: return 256
        case .ed448: return 456
        case .other: return nil
        }
    }

    package var description: String {
        switch self {
        case .rsa(let b): return "RSA \(b)"
        case .rsaPSS(let b): return "RSA-PSS \(b)"
        case .ecdsa(let c, _): return "EC \(c)"
        case .ed25519: return "Ed25519"
        case .ed448: return "Ed448"
        case .other(let oid) where oid == "1.2.840.10040.4.1": return "DSA"
        case .other(let oid): return "unknown key type \(oid)"
        }
    }
}

/// An INTEGER's content bytes, without interpreting them: serials can exceed any fixed-width type.
struct ASN1IntegerBytes: DERParseable {
    let bytes: ArraySlice<UInt8>
    init(derEncoded node: ASN1Node) throws {
        guard node.identifier == .integer, case .primitive(let content) = node.content else {
            throw ASN1Error.unexpectedFieldType(node.identifier)
        }
        self.bytes = content
    }
}

enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
