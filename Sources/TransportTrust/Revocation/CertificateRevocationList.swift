import Foundation
import SwiftASN1
import X509

/// An X.509 certificate revocation list (RFC 5280 §5), read strictly with swift-asn1: swift-certificates 1.21.1 has
/// no CRL type.
///
/// Memory stays near the size of the CRL itself: the DER is kept once, and the revoked entries are an index of
/// fixed-size records sorted by serial number that point into it, so a lookup is a binary search and no entry is
/// copied. The parse is bounded by ``maximumBytes``.
public struct CertificateRevocationList: Sendable {
    /// The largest CRL read, DER: larger ones are refused before parsing, since swift-asn1 parses the whole tree at
    /// once (about 100 bytes per element). 64 MiB holds well over a million entries.
    public static let maximumBytes = 64 << 20

    /// The DER of the whole CertificateList.
    public let derEncoded: [UInt8]
    let tbsRange: Range<Int>
    let signatureAlgorithm: CRLSignatureAlgorithm
    let signature: [UInt8]
    /// The CA that issued the list.
    public let issuer: DistinguishedName
    /// When the list was issued.
    public let thisUpdate: Date
    /// When the next list is due; nil when the list does not say.
    public let nextUpdate: Date?
    /// cRLNumber (§5.2.3), as unsigned big-endian bytes without leading zeros.
    let number: ArraySlice<UInt8>?
    /// deltaCRLIndicator's BaseCRLNumber (§5.2.4): set on a delta CRL.
    let deltaBase: ArraySlice<UInt8>?
    let issuingDistributionPoint: IssuingDistributionPoint?
    /// authorityKeyIdentifier's keyIdentifier (§5.2.1), to choose among signers of one name.
    let authorityKeyID: ArraySlice<UInt8>?
    /// Set when the CRL is well formed but may not be used (an unknown critical extension): RFC 5280 §5.2 and §5.3
    /// forbid deciding any status with it.
    let unusable: String?
    let entries: RevokedEntries

    /// The number of revoked entries.
    public var revokedCount: Int { entries.count }

    /// Whether an entry lists `serialNumber`, under any certificate issuer; whether it applies to a given certificate is
    /// for the trust engine to decide (RFC 5280 §6.3).
    public func lists(_ serialNumber: Certificate.SerialNumber) -> Bool { !entries.entries(for: serialNumber.bytes).isEmpty }
    /// Whether this is a delta CRL, holding only changes since a base CRL.
    public var isDelta: Bool { deltaBase != nil }

    /// One revoked entry as the index holds it, for invariants that check lookups against the list (the fuzz targets).
    package struct RevokedEntry: Equatable, Sendable {
        /// Unsigned big-endian, without leading zeros.
        package var serial: [UInt8]
        /// The certificateIssuer the entry is under in an indirect CRL; nil for the CRL's own issuer.
        package var certificateIssuer: [GeneralName]?
        /// The reasonCode (RFC 5280 §5.3.1), nil when the entry has none.
        package var reason: UInt8?
    }

    /// Every revoked entry with a non-negative serial, in serial order.
    package var revokedEntries: [RevokedEntry] {
        entries.records.map { entry in
            let start = Int(entry.serialStart)
            return RevokedEntry(serial: Array(entries.der[start..<(start + Int(entry.serialCount))]),
                                certificateIssuer: entry.issuer == 0 ? nil : entries.issuers[Int(entry.issuer)],
                                reason: entry.reason == RevokedEntries.noReason ? nil : entry.reason)
        }
    }

    /// Reads a CRL from DER, or from PEM (`-----BEGIN X509 CRL-----`; the first such block).
    public init(bytes: [UInt8]) throws(CRLFormatError) {
        guard bytes.count <= Self.maximumBytes else {
            throw CRLFormatError("it is \(bytes.count / (1 << 20)) MiB, over the \(Self.maximumBytes >> 20) MiB a CRL may have here")
        }
        if let first = bytes.first, first != 0x30 {
            try self.init(derEncoded: try Self.pemBody(bytes))
        } else {
            try self.init(derEncoded: bytes)
        }
    }

    /// Reads a CRL from DER.
    public init(derEncoded der: [UInt8]) throws(CRLFormatError) {
        guard der.count <= Self.maximumBytes else {
            throw CRLFormatError("it is \(der.count / (1 << 20)) MiB, over the \(Self.maximumBytes >> 20) MiB a CRL may have here")
        }
        do {
            self = try Self.parse(der)
        } catch let error as CRLFormatError {
            throw error
        } catch {
            throw CRLFormatError("it is not a DER CertificateList (RFC 5280 §5.1): \(derProblem(error, in: der))")
        }
    }

    private static func pemBody(_ bytes: [UInt8]) throws(CRLFormatError) -> [UInt8] {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CRLFormatError("it is neither DER (a SEQUENCE) nor PEM text")
        }
        let documents: [PEMDocument]
        do { documents = try PEMDocument.parseMultiple(pemString: text) } catch {
            throw CRLFormatError("it is neither DER nor readable PEM (\(derProblem(error, in: nil)))")
        }
        guard let crl = documents.first(where: { $0.discriminator == "X509 CRL" }) else {
            let found = documents.map(\.discriminator)
            throw CRLFormatError(found.isEmpty ? "it holds no PEM block" : "it holds no 'X509 CRL' PEM block (found: \(found.joined(separator: ", ")))")
        }
        return crl.derBytes
    }

    private init(der: [UInt8], tbsRange: Range<Int>, signatureAlgorithm: CRLSignatureAlgorithm, signature: [UInt8], tbs: TBS) {
        self.derEncoded = der
        self.tbsRange = tbsRange
        self.signatureAlgorithm = signatureAlgorithm
        self.signature = signature
        issuer = tbs.issuer
        thisUpdate = tbs.thisUpdate
        nextUpdate = tbs.nextUpdate
        number = tbs.number
        deltaBase = tbs.deltaBase
        issuingDistributionPoint = tbs.idp
        authorityKeyID = tbs.authorityKeyID
        unusable = tbs.unusable
        entries = tbs.entries
    }

    private struct TBS {
        var issuer: DistinguishedName
        var thisUpdate: Date
        var nextUpdate: Date?
        var number: ArraySlice<UInt8>?
        var deltaBase: ArraySlice<UInt8>?
        var idp: IssuingDistributionPoint?
        var authorityKeyID: ArraySlice<UInt8>?
        var unusable: String?
        var entries: RevokedEntries
    }

    private static func parse(_ der: [UInt8]) throws -> CertificateRevocationList {
        let root = try DER.parse(der)
        return try DER.sequence(root, identifier: .sequence) { nodes in
            guard let tbsNode = nodes.next() else { throw CRLFormatError("it has no tbsCertList") }
            let outerAlgorithm = try CRLSignatureAlgorithm(derEncoded: &nodes)
            let bits = try ASN1BitString(derEncoded: &nodes)
            guard bits.paddingBits == 0 else { throw CRLFormatError("its signature BIT STRING has unused bits") }
            let (tbs, innerAlgorithm) = try parseTBS(tbsNode, der: der)
            guard innerAlgorithm.encoded == outerAlgorithm.encoded else {
                throw CRLFormatError("its signatureAlgorithm differs from the signature field of its tbsCertList (RFC 5280 §5.1.1.2)")
            }
            let range = tbsNode.encodedBytes.startIndex..<tbsNode.encodedBytes.endIndex
            return CertificateRevocationList(der: der, tbsRange: range, signatureAlgorithm: outerAlgorithm, signature: Array(bits.bytes), tbs: tbs)
        }
    }

    private static func parseTBS(_ node: ASN1Node, der: [UInt8]) throws -> (TBS, CRLSignatureAlgorithm) {
        try DER.sequence(node, identifier: .sequence) { nodes in
            let version = try Int(derEncoded: &nodes, withIdentifier: .integer, optional: true)
            if let version, version != 1 { throw CRLFormatError("its version is \(version + 1); a CRL is v1 or v2") }
            let algorithm = try CRLSignatureAlgorithm(derEncoded: &nodes)
            guard let issuerNode = nodes.next() else { throw CRLFormatError("it has no issuer") }
            let issuer = try DistinguishedName(derEncoded: issuerNode)
            let thisUpdate = try CRLTime.read(&nodes, optional: false)
            guard let thisUpdate else { throw CRLFormatError("it has no thisUpdate") }
            let nextUpdate = try CRLTime.read(&nodes, optional: true)
            var revoked: ASN1Node?
            var peek = nodes
            if let next = peek.next(), next.identifier == .sequence { revoked = next; nodes = peek }
            var extensions = Certificate.Extensions()
            if let wrapper = DER.optionalExplicitNode(&nodes, tag: 0) {
                guard version != nil else { throw CRLFormatError("it is v1 but has extensions, which only v2 may have") }
                guard case .constructed(let inner) = wrapper.content, let list = inner.first(where: { _ in true }) else {
                    throw CRLFormatError("its crlExtensions are empty")
                }
                extensions = try Certificate.Extensions(DER.sequence(of: Certificate.Extension.self, identifier: .sequence, rootNode: list))
                guard !extensions.isEmpty else { throw CRLFormatError("its crlExtensions are empty") }
            }
            var tbs = TBS(issuer: issuer, thisUpdate: thisUpdate, nextUpdate: nextUpdate, entries: RevokedEntries(der: der))
            if nextUpdate == nil {
                // Without it a CRL never goes out of date: a years-old one would hide every later revocation.
                tbs.unusable = "it has no nextUpdate, which RFC 5280 §5.1.2.5 requires, so whether it is current cannot be judged"
            }
            try readExtensions(extensions, into: &tbs)
            if let revoked {
                tbs.entries = try RevokedEntries.read(revoked, der: der, crlIssuer: issuer, indirect: tbs.idp?.indirectCRL ?? false,
                                                      version: version, unusable: &tbs.unusable)
            }
            return (tbs, algorithm)
        }
    }

    static let cRLNumberOID: ASN1ObjectIdentifier = [2, 5, 29, 20]
    static let deltaCRLIndicatorOID: ASN1ObjectIdentifier = [2, 5, 29, 27]
    static let authorityKeyIdentifierOID: ASN1ObjectIdentifier = [2, 5, 29, 35]

    private static func readExtensions(_ extensions: Certificate.Extensions, into tbs: inout TBS) throws {
        for ext in extensions {
            switch ext.oid {
            case cRLNumberOID:
                tbs.number = try crlInteger(ext, "cRLNumber")
                if ext.critical { tbs.unusable = tbs.unusable ?? "its cRLNumber is critical, which RFC 5280 §5.2.3 forbids" }
            case deltaCRLIndicatorOID:
                guard ext.critical else { throw CRLFormatError("its deltaCRLIndicator is not critical (RFC 5280 §5.2.4)") }
                tbs.deltaBase = try crlInteger(ext, "deltaCRLIndicator")
            case IssuingDistributionPoint.oid:
                guard ext.critical else { throw CRLFormatError("its issuingDistributionPoint is not critical (RFC 5280 §5.2.5)") }
                do { tbs.idp = try IssuingDistributionPoint(derEncoded: try DER.parse(ext.value)) } catch let error as CRLFormatError {
                    throw error
                } catch { throw CRLFormatError("its issuingDistributionPoint is malformed") }
            case authorityKeyIdentifierOID:
                tbs.authorityKeyID = (try? AuthorityKeyIdentifier(ext))?.keyIdentifier
                if ext.critical { tbs.unusable = tbs.unusable ?? "its authorityKeyIdentifier is critical, which RFC 5280 §5.2.1 forbids" }
            default:
                // issuerAltName, freshestCRL and authorityInfoAccess are informative; a critical extension not named above
                // cannot be processed here, and RFC 5280 §5.2 forbids using the CRL then.
                if ext.critical {
                    tbs.unusable = tbs.unusable ?? "it has a critical extension that is not processed here (\(ext.oid)), so RFC 5280 §5.2 forbids using it"
                }
            }
        }
        if tbs.number == nil {
            // Conforming CRL issuers MUST include it, and delta CRLs are ordered by it.
            tbs.unusable = tbs.unusable ?? "it has no cRLNumber, which RFC 5280 §5.2.3 requires"
        }
    }

    /// A CRLNumber or BaseCRLNumber: a non-negative INTEGER (RFC 5280 §5.2.3 allows up to 20 octets).
    private static func crlInteger(_ ext: Certificate.Extension, _ name: String) throws -> ArraySlice<UInt8> {
        do {
            let bytes = try ArraySlice<UInt8>(derEncoded: try DER.parse(ext.value))
            guard bytes.count <= 20 else { throw CRLFormatError("its \(name) is longer than the 20 octets RFC 5280 §5.2.3 allows") }
            return bytes.drop { $0 == 0 }
        } catch let error as CRLFormatError { throw error } catch {
            throw CRLFormatError("its \(name) is not a non-negative INTEGER")
        }
    }

    /// The signed part, as the signature covers it.
    var tbsBytes: ArraySlice<UInt8> { derEncoded[tbsRange] }
}

extension Int {
    /// An optional INTEGER at the head of `nodes`.
    fileprivate init?(derEncoded nodes: inout ASN1NodeCollection.Iterator, withIdentifier identifier: ASN1Identifier, optional: Bool) throws {
        guard let value = try DER.optionalImplicitlyTagged(&nodes, tag: identifier) as Int? else { return nil }
        self = value
    }
}

/// RFC 5280's Time (§4.1.2.5): UTCTime or GeneralizedTime, to a Date.
enum CRLTime {
    static func read(_ nodes: inout ASN1NodeCollection.Iterator, optional: Bool) throws -> Date? {
        var peek = nodes
        guard let node = peek.next() else {
            if optional { return nil }
            throw CRLFormatError("a time is missing")
        }
        let date: Date
        switch node.identifier {
        case .utcTime:
            let t = try UTCTime(derEncoded: node)
            date = Self.date(t.year, t.month, t.day, t.hours, t.minutes, t.seconds)
        case .generalizedTime:
            let t = try GeneralizedTime(derEncoded: node)
            date = Self.date(t.year, t.month, t.day, t.hours, t.minutes, t.seconds)
        default:
            if optional { return nil }
            throw CRLFormatError("a time is neither UTCTime nor GeneralizedTime")
        }
        nodes = peek
        return date
    }

    /// Days from the civil date (H. Hinnant's algorithm), so that a million entries need no Calendar.
    static func date(_ year: Int, _ month: Int, _ day: Int, _ hours: Int, _ minutes: Int, _ seconds: Int) -> Date {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hours * 3_600 + minutes * 60 + seconds))
    }
}

/// The AlgorithmIdentifier of a CRL's signature: its OID and its encoding, which the outer and inner copies must share.
struct CRLSignatureAlgorithm: Sendable, Hashable {
    var oid: ASN1ObjectIdentifier
    /// The parameters' tag, nil when they are absent.
    var parameters: ASN1Identifier?
    var encoded: ArraySlice<UInt8>

    init(derEncoded nodes: inout ASN1NodeCollection.Iterator) throws {
        guard let node = nodes.next() else { throw CRLFormatError("a signature AlgorithmIdentifier is missing") }
        encoded = node.encodedBytes
        (oid, parameters) = try DER.sequence(node, identifier: .sequence) { fields in
            (try ASN1ObjectIdentifier(derEncoded: &fields), fields.next()?.identifier)
        }
    }
}
