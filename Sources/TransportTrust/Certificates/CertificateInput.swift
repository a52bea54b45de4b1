import Foundation
import SwiftASN1
import X509

/// Why certificate input could not be read. Each case says where and how to fix it.
public enum CertificateInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be read, with the system's reason.
    case unreadableFile(path: String, reason: String)
    /// The input holds no certificate.
    case empty(source: String)
    /// The bytes are not a certificate, with what is wrong.
    case malformed(source: String?, reason: String)
    /// One PEM block is broken: which one, on which line, and why.
    case badPEMBlock(source: String, block: Int, line: Int, reason: String)
    /// A PKCS#7 (CMS) bundle, as Windows and many CAs export a chain (`.p7b`, `.p7c`), PEM or DER.
    case pkcs7(source: String)
    /// More certificates in one input than ``CertificateLoader/maximumCertificates``.
    case tooManyCertificates(source: String, limit: Int)

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason):
            return "cannot read '\(path)': \(reason). Check the path and its permissions."
        case .empty(let source):
            return "\(source) holds no certificate. Give a PEM file with '-----BEGIN CERTIFICATE-----' blocks or a DER certificate."
        case .malformed(let source, let reason):
            let place = source.map { "\($0): " } ?? ""
            return "\(place)not a valid X.509 certificate (\(reason)). Re-export it as PEM or DER."
        case .badPEMBlock(let source, let block, let line, let reason):
            return "\(source):\(line): PEM block \(block + 1) is not a valid certificate (\(reason)). Re-export it, or remove the block."
        case .pkcs7(let source):
            return "\(source) is a PKCS#7 bundle (.p7b), not PEM or DER certificates. Convert it with 'openssl pkcs7 -print_certs -in \(source) -out chain.pem' and give chain.pem."
        case .tooManyCertificates(let source, let limit):
            return "\(source) holds more than \(limit) certificates, more than any chain or root bundle; it is refused unread. Split it, or give only the certificates needed."
        }
    }

    func placed(in source: String) -> CertificateInputError {
        if case .malformed(nil, let reason) = self { return .malformed(source: source, reason: reason) }
        return self
    }
}

/// swift-asn1's and swift-certificates' error text, without the source location they end it with
/// ("SwiftASN1/DER.swift:45"): it says where their code stopped, which means nothing to the reader of a verdict.
func dependencyErrorText(_ error: any Error) -> String {
    let text = "\(error)"
    guard error is ASN1Error || error is CertificateError, let space = text.lastIndex(of: " ") else { return text }
    let location = text[text.index(after: space)...]
    guard let colon = location.lastIndex(of: ":"), location[..<colon].hasSuffix(".swift") else { return text }
    let line = location[location.index(after: colon)...]
    return !line.isEmpty && line.allSatisfy(\.isASCII) && line.allSatisfy(\.isNumber) ? String(text[..<space]) : text
}

/// One certificate as it was given: its DER, and swift-certificates' parse of it when that succeeds.
public struct InputCertificate: Sendable, Hashable {
    /// One reference for all the fields: verdicts and caches copy certificates on every evaluation, and a
    /// copy is then one retain instead of one per field.
    private final class Storage: Sendable {
        let der: [UInt8]
        let certificate: Certificate?
        let parseFailure: String?
        let fallback: RawCertificate?

        init(der: [UInt8], certificate: Certificate?, parseFailure: String?, fallback: RawCertificate?) {
            self.der = der
            self.certificate = certificate
            self.parseFailure = parseFailure
            self.fallback = fallback
        }
    }

    private let storage: Storage

    /// The certificate's DER, exactly as given.
    public var der: [UInt8] { storage.der }
    /// nil when swift-certificates cannot parse the certificate (RSA-PSS, RSA-1024, unknown key types).
    public var certificate: Certificate? { storage.certificate }
    /// Why swift-certificates refused it.
    public var parseFailure: String? { storage.parseFailure }
    /// Fields read from the DER alone; kept only when swift-certificates could not parse it.
    private var fallback: RawCertificate? { storage.fallback }

    /// Parses `der`. Fails only when it is not a certificate at all; a certificate swift-certificates cannot
    /// use is kept, with ``parseFailure`` saying why, so that it can be named in a verdict.
    public init(der: [UInt8]) throws(CertificateInputError) {
        do {
            let root = try DER.parse(der)
            try Self.requireStrictEncoding(root)
            let certificate: Certificate
            do { certificate = try Certificate(derEncoded: root) } catch {
                guard let withoutIDs = UniqueIdentifiers.certificate(root, der: der) else { throw error }
                certificate = withoutIDs
            }
            storage = Storage(der: der, certificate: certificate, parseFailure: nil, fallback: nil)
        } catch {
            storage = Storage(der: der, certificate: nil, parseFailure: derProblem(error, in: der), fallback: try RawCertificate(der: der))
        }
    }

    /// Why a certificate whose signature or key is a BIT STRING with unused bits is refused.
    struct UnusedBits: Error, CustomStringConvertible {
        var field: String
        var bits: Int
        var description: String {
            let fix = field == "signature" ? "send the certificate exactly as its CA issued it" : "the certificate must be reissued"
            return "its \(field) is a BIT STRING with \(bits) unused bit\(bits == 1 ? "" : "s"), which DER does not allow here; \(fix)"
        }
    }

    /// Why a certificate whose outer signatureAlgorithm is not the one its signed part names is refused.
    struct AlgorithmMismatch: Error, CustomStringConvertible {
        var description: String {
            "its signatureAlgorithm differs from the signature algorithm inside its signed part, which RFC 5280 §4.1.1.2 requires to be the same; send the certificate exactly as its CA issued it"
        }
    }

    /// What swift-certificates does not check in the parts of a certificate that no signature covers. It ignores the
    /// unused-bits count of the signature (and of subjectPublicKey), and it never compares the outer
    /// signatureAlgorithm with the signed one. Either lets anyone make a second encoding of a valid certificate,
    /// with a new fingerprint, that still verifies. OpenSSL, BoringSSL and Go refuse both.
    private static func requireStrictEncoding(_ root: ASN1Node) throws {
        // A certificate without this shape is refused by swift-certificates, with its own reason. The fields are read
        // as CertificateLayout reads them, without collecting them into an array: this runs on every certificate.
        guard case .constructed(let top) = root.content, root.identifier == .sequence else { return }
        var parts = top.makeIterator()
        guard let tbs = parts.next(), let signatureAlgorithm = parts.next(), let signature = parts.next(),
              case .constructed(let children) = tbs.content else { return }
        var fields = children.makeIterator()
        var first = fields.next()
        if first?.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) { first = fields.next() }
        // serial, signature, issuer, validity, subject, subjectPublicKeyInfo
        guard first != nil, let innerAlgorithm = fields.next(), fields.next() != nil, fields.next() != nil, fields.next() != nil,
              let spkiNode = fields.next() else { return }
        try requireWholeBytes(signature, field: "signature")
        guard innerAlgorithm.encodedBytes.elementsEqual(signatureAlgorithm.encodedBytes) else { throw AlgorithmMismatch() }
        guard case .constructed(let spkiParts) = spkiNode.content else { return }
        var spki = spkiParts.makeIterator()
        guard spki.next() != nil, let key = spki.next() else { return }
        try requireWholeBytes(key, field: "subjectPublicKey")
        guard RSAKeyScreen.isSafe(spki: spkiNode) else { throw UnreadableRSAKey() }
    }

    /// Why a certificate whose RSA key BoringSSL cannot read is not handed to swift-certificates (``RSAKeyScreen``).
    struct UnreadableRSAKey: Error, CustomStringConvertible {
        var description: String {
            "its RSA public key is malformed (not a DER RSAPublicKey with NULL parameters, or not a valid modulus and exponent); the certificate must be reissued"
        }
    }

    private static func requireWholeBytes(_ node: ASN1Node, field: String) throws {
        guard node.identifier == .bitString, case .primitive(let content) = node.content,
              let unused = content.first, unused != 0 else { return }
        throw UnusedBits(field: field, bits: Int(unused))
    }

    /// A certificate swift-certificates already parsed, with its DER.
    public init(_ certificate: Certificate) throws(CertificateInputError) {
        var serializer = DER.Serializer()
        do { try serializer.serialize(certificate) } catch {
            throw .malformed(source: nil, reason: "cannot serialize: \(error)")
        }
        storage = Storage(der: serializer.serializedBytes, certificate: certificate, parseFailure: nil, fallback: nil)
    }

    /// Certificates are the same when their DER is; everything else is read from it.
    public static func == (a: InputCertificate, b: InputCertificate) -> Bool { a.storage === b.storage || a.der == b.der }

    public func hash(into h: inout Hasher) { DERKey.hashTail(of: der, into: &h) }

    /// The DER fields: SPKI bytes, key type and size. Read on demand, as they are off the hot path.
    package var raw: RawCertificate? { fallback ?? (try? RawCertificate(der: der)) }

    /// base64(SHA-256(SubjectPublicKeyInfo)).
    public var spkiSHA256Base64: String? { raw?.spkiSHA256Base64 }

    var subjectDescription: String {
        if let c = certificate { return c.subject.label }
        return raw.map(\.subject.label) ?? "an unreadable certificate"
    }
}

/// Reads certificates from PEM or DER.
public enum CertificateLoader {
    /// The most certificates one input may hold. A chain has a handful and a root bundle a few hundred; reading tens of
    /// thousands takes minutes in a debug build, so more is refused before any is parsed.
    public static let maximumCertificates = 10_000
    private static let begin = Array("-----BEGIN ".utf8), end = Array("-----END ".utf8), dashes = Array("-----".utf8)
    private static let procType = Array("Proc-Type".utf8), dekInfo = Array("DEK-Info".utf8)
    /// The base64 alphabet, '=' and the blanks a line may carry.
    @inline(__always) private static func isBase64(_ b: UInt8) -> Bool {
        switch b {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2B, 0x2F, 0x3D, 0x20, 0x09, 0x0D: return true
        default: return false
        }
    }

    /// ASCII whitespace (and the CR of CRLF) trimmed off both ends.
    static func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }
        guard let first = line.firstIndex(where: { !isSpace($0) }), let last = line.lastIndex(where: { !isSpace($0) }) else { return [] }
        return line[first...last]
    }

    /// Reads every certificate in `bytes`, which may be DER (one certificate) or PEM (any number of blocks).
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - source: a name for the input, used in error messages.
    public static func certificates(from bytes: [UInt8], source: String) throws(CertificateInputError) -> [InputCertificate] {
        if ByteSearch.contains(begin, in: bytes) {
            return try pemCertificates(bytes, source: source)
        }
        guard !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
            throw .empty(source: source)
        }
        guard bytes.first == 0x30 else {
            throw .malformed(source: source, reason: "neither PEM text nor DER (DER starts with byte 0x30)")
        }
        let single: InputCertificate
        do { single = try InputCertificate(der: bytes) } catch {
            if let each = derConcatenation(bytes) {
                guard each.count <= maximumCertificates else { throw .tooManyCertificates(source: source, limit: maximumCertificates) }
                var result: [InputCertificate] = []
                for (i, der) in each.enumerated() {
                    do { result.append(try InputCertificate(der: Array(der))) } catch {
                        throw error.placed(in: "\(source) (DER certificate \(i + 1) of \(each.count))")
                    }
                }
                return result
            }
            if isPKCS7(bytes) { throw .pkcs7(source: source) }
            throw error.placed(in: source)
        }
        return [single]
    }

    /// The DER elements of `bytes` when it is more than one back to back (`cat leaf.der int.der`), else nil.
    /// Cut by their headers alone, so that the count is known before anything is parsed: swift-asn1 parses one element
    /// whole, and an input of many certificates would be read in full before the limit could refuse it. Each element
    /// is then parsed strictly on its own; a header this cannot follow (a tag over 30, an indefinite or over-long
    /// length, an element running past the end) is no concatenation.
    static func derConcatenation(_ bytes: [UInt8]) -> [ArraySlice<UInt8>]? {
        var elements: [ArraySlice<UInt8>] = []
        var start = 0
        while start < bytes.count {
            guard bytes[start] & 0x1F != 0x1F, start + 1 < bytes.count else { return nil }
            var index = start + 2
            var length = Int(bytes[start + 1])
            if length >= 0x80 {
                let octets = length & 0x7F
                guard (1...4).contains(octets), index + octets <= bytes.count else { return nil }
                length = bytes[index..<(index + octets)].reduce(0) { $0 << 8 | Int($1) }
                index += octets
            }
            guard length <= bytes.count - index else { return nil }
            elements.append(bytes[start..<(index + length)])
            start = index + length
        }
        return elements.count > 1 ? elements : nil
    }

    /// Whether `der` is a CMS ContentInfo of type signedData (RFC 5652 §3, §5.1): a PKCS#7 certificate bundle.
    static func isPKCS7(_ der: [UInt8]) -> Bool {
        guard let root = try? DER.parse(der), case .constructed(let fields) = root.content else { return false }
        var iterator = fields.makeIterator()
        guard let first = iterator.next(), let type = try? ASN1ObjectIdentifier(derEncoded: first) else { return false }
        return type == [1, 2, 840, 113549, 1, 7, 2]
    }

    /// Reads every certificate in the file at `path` (`-` is standard input).
    public static func certificates(atPath path: String) throws(CertificateInputError) -> [InputCertificate] {
        let data: Data
        do { data = try InputFile.read(path) } catch {
            throw .unreadableFile(path: InputFile.source(path), reason: error.reason)
        }
        return try certificates(from: Array(data), source: InputFile.source(path))
    }

    static func pemCertificates(_ bytes: [UInt8], source: String) throws(CertificateInputError) -> [InputCertificate] {
        var result: [InputCertificate] = []
        for block in try pemCertificateBlocks(bytes, source: source) { result.append(try certificate(of: block, source: source)) }
        return result
    }

    /// The certificate a decoded block holds; a block that is no certificate at all is a `badPEMBlock`, placed by its line.
    static func certificate(of block: PEMBlock, source: String) throws(CertificateInputError) -> InputCertificate {
        do { return try InputCertificate(der: block.der) } catch {
            var reason = "\(error)"
            if case .malformed(_, let r) = error { reason = r }
            throw .badPEMBlock(source: source, block: block.index, line: block.line, reason: reason)
        }
    }

    /// One certificate block of a PEM text, decoded: its DER, its index among the blocks and its BEGIN line.
    struct PEMBlock {
        var der: [UInt8]
        var index: Int
        var line: Int
    }

    /// The certificate blocks of a PEM text, decoded but not parsed, with the same refusals as ``pemCertificates``
    /// makes of the text itself. Membership in a root store needs no more than this.
    static func pemCertificateBlocks(_ bytes: [UInt8], source: String) throws(CertificateInputError) -> [PEMBlock] {
        // Read as UTF-8 bytes: splitting and trimming Characters cost a fifth of a whole limbo run.
        var result: [PEMBlock] = []
        var block: [UInt8] = []
        var blockLabel: ArraySlice<UInt8>?
        var blockStart = 0
        var notBase64: (line: Int, byte: UInt8)?
        var index = 0
        var sawPKCS7 = false
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (n, raw) in lines.enumerated() {
            let line = trimmed(raw)
            if line.starts(with: begin) && line.reversed().starts(with: dashes) && line.count >= begin.count + dashes.count {
                // The block before was cut off: its lines are not to be dropped in silence.
                if blockLabel != nil {
                    throw .badPEMBlock(source: source, block: index, line: blockStart, reason: "it has no END line before the BEGIN line on line \(n + 1)")
                }
                blockLabel = line.dropFirst(begin.count).dropLast(dashes.count)
                block = []
                blockStart = n + 1
                notBase64 = nil
            } else if line.starts(with: end), let labelBytes = blockLabel {
                let label = String(decoding: labelBytes, as: UTF8.self)
                // OpenSSL wants the BEGIN line's label back, between dashes; a damaged END line is not an end.
                guard line.elementsEqual(end + labelBytes + dashes) else {
                    let shown = String(decoding: line.prefix(80), as: UTF8.self)
                    throw .badPEMBlock(source: source, block: index, line: n + 1, reason: "its END line is '\(shown)', not '-----END \(label)-----'")
                }
                blockLabel = nil
                defer { index += 1 }
                // Keys, CRLs and the like may sit beside certificates; they are not ours to read here.
                guard label == "CERTIFICATE" || label == "TRUSTED CERTIFICATE" || label == "X509 CERTIFICATE" else {
                    sawPKCS7 = sawPKCS7 || label == "PKCS7" || label == "PKCS #7 SIGNED DATA" || label == "CMS"
                    continue
                }
                // A character outside base64 is damage, not decoration: OpenSSL and Go refuse the block too.
                if let (line, byte) = notBase64 {
                    let shown = byte >= 0x80 ? "a non-ASCII character"
                        : byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "the control byte 0x%02X", byte)
                    throw .badPEMBlock(source: source, block: index, line: line, reason: "it holds \(shown), which is not base64")
                }
                guard let der = Data(base64Encoded: Data(block), options: .ignoreUnknownCharacters), !der.isEmpty else {
                    throw .badPEMBlock(source: source, block: index, line: blockStart, reason: "its base64 does not decode")
                }
                guard result.count < maximumCertificates else { throw .tooManyCertificates(source: source, limit: maximumCertificates) }
                result.append(PEMBlock(der: Array(der), index: index, line: blockStart))
            } else if blockLabel != nil, !line.starts(with: procType), !line.starts(with: dekInfo) {
                if notBase64 == nil, let bad = line.first(where: { !isBase64($0) }) { notBase64 = (n + 1, bad) }
                block.append(contentsOf: line)
            }
        }
        if blockLabel != nil {
            throw .badPEMBlock(source: source, block: index, line: blockStart, reason: "it has no END line")
        }
        guard !result.isEmpty else { throw sawPKCS7 ? .pkcs7(source: source) : .empty(source: source) }
        return result
    }
}
