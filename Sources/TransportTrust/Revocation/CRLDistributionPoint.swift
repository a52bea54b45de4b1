import SwiftASN1
import X509

/// The reasons of RFC 5280 §5.3.1 as a set: bit `n` stands for CRLReason `n` (the ReasonFlags BIT STRING of §4.2.1.13
/// numbers its bits the same way, with bit 0 unused).
struct CRLReasons: OptionSet, Hashable, Sendable {
    let rawValue: UInt16

    /// keyCompromise through aACompromise: every reason a distribution point can be scoped to.
    static let all = CRLReasons(rawValue: 0b1_1111_1110)

    static func reason(_ code: Int) -> CRLReasons { CRLReasons(rawValue: 1 << UInt16(code)) }

    /// ReasonFlags, read from its BIT STRING (bit 0 is the most significant bit of the first byte).
    init(flags: ASN1BitString) {
        var value: UInt16 = 0
        for (index, byte) in flags.bytes.prefix(2).enumerated() {
            for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 { value |= 1 << UInt16(index * 8 + bit) }
        }
        rawValue = value & Self.all.rawValue
    }

    init(rawValue: UInt16) { self.rawValue = rawValue }

    static func name(_ code: Int) -> String {
        let names = ["unspecified", "keyCompromise", "cACompromise", "affiliationChanged", "superseded", "cessationOfOperation",
                     "certificateHold", "unused (7)", "removeFromCRL", "privilegeWithdrawn", "aACompromise"]
        return names.indices.contains(code) ? names[code] : "reason \(code)"
    }
}

/// A DistributionPointName (RFC 5280 §4.2.1.13): full names, or a name relative to the CRL issuer, which is kept as
/// the RDN to resolve once the issuer is known.
enum DistributionPointName: Hashable, Sendable {
    case fullName([GeneralName])
    case relativeToIssuer(RelativeDistinguishedName)

    /// The full names, resolving a relative name against `issuer`.
    func names(issuer: DistinguishedName) -> [GeneralName] {
        switch self {
        case .fullName(let names): return names
        case .relativeToIssuer(let rdn): return [.directoryName(DistinguishedName(Array(issuer) + [rdn]))]
        }
    }

    /// The node inside the explicit [0] tag of a DistributionPoint or IssuingDistributionPoint.
    init(wrapper: ASN1Node) throws {
        guard case .constructed(let inner) = wrapper.content else { throw CRLFormatError("a distributionPoint is not constructed") }
        var nodes = inner.makeIterator()
        guard let choice = nodes.next(), nodes.next() == nil else { throw CRLFormatError("a distributionPoint must hold exactly one name") }
        switch choice.identifier {
        case ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific):
            guard case .constructed(let names) = choice.content else { throw CRLFormatError("a fullName is not constructed") }
            let list = try names.map { try GeneralName(derEncoded: $0) }
            guard !list.isEmpty else { throw CRLFormatError("a fullName is empty") }
            self = .fullName(list)
        case ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific):
            self = .relativeToIssuer(try RelativeDistinguishedName(derEncoded: choice, withIdentifier: choice.identifier))
        default:
            throw CRLFormatError("a distributionPoint name is neither fullName [0] nor nameRelativeToCRLIssuer [1]")
        }
    }
}

/// One DistributionPoint of a certificate's cRLDistributionPoints extension (RFC 5280 §4.2.1.13).
struct CRLDistributionPoint: Hashable, Sendable {
    static let oid: ASN1ObjectIdentifier = [2, 5, 29, 31]

    var name: DistributionPointName?
    var reasons: CRLReasons?
    var crlIssuer: [GeneralName]?

    /// The distribution points a certificate names; empty when it has none. A malformed extension throws.
    static func all(in certificate: Certificate) throws -> [CRLDistributionPoint] {
        guard let ext = certificate.extensions[oid: oid] else { return [] }
        let root: ASN1Node
        do { root = try DER.parse(ext.value) } catch { throw CRLFormatError("its cRLDistributionPoints is not DER") }
        do {
            return try DER.sequence(of: CRLDistributionPoint.self, identifier: .sequence, rootNode: root)
        } catch let error as CRLFormatError {
            throw error
        } catch {
            throw CRLFormatError("its cRLDistributionPoints has an element of the wrong type or encoding")
        }
    }

    /// Whether the certificate names any distribution point, of any kind: under hard-fail it then needs a status,
    /// whether or not its CRL can be fetched here (https and ldap locations are not).
    static func isNamed(in certificate: Certificate) -> Bool {
        certificate.extensions[oid: oid] != nil
    }

    /// The URIs of the certificate's distribution points that are not fetched (not http), to name in a refusal.
    static func unfetchedURIs(of certificate: Certificate) -> [String] {
        guard let points = try? all(in: certificate) else { return [] }
        return points.flatMap { point -> [String] in
            guard case .fullName(let names) = point.name else { return [] }
            return names.compactMap { name in
                guard case .uniformResourceIdentifier(let uri) = name, !uri.lowercased().hasPrefix("http://") else { return nil }
                return uri
            }
        }
    }

    /// The http URIs of the certificate's distribution points, in order, for fetching.
    static func httpURIs(of certificate: Certificate) -> [String] {
        guard let points = try? all(in: certificate) else { return [] }
        return points.flatMap { point -> [String] in
            guard point.crlIssuer == nil, case .fullName(let names) = point.name else { return [] }
            return names.compactMap { name in
                guard case .uniformResourceIdentifier(let uri) = name, uri.lowercased().hasPrefix("http://") else { return nil }
                return uri
            }
        }
    }
}

extension CRLDistributionPoint: DERParseable {
    init(derEncoded node: ASN1Node) throws {
        self = try DER.sequence(node, identifier: .sequence) { nodes in
            var point = CRLDistributionPoint()
            if let wrapper = DER.optionalExplicitNode(&nodes, tag: 0) { point.name = try DistributionPointName(wrapper: wrapper) }
            if let flags = try DER.optionalImplicitlyTagged(&nodes, tag: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)) as ASN1BitString? {
                point.reasons = CRLReasons(flags: flags)
            }
            if let issuer = DER.optionalExplicitNode(&nodes, tag: 2) {
                guard case .constructed(let names) = issuer.content else { throw CRLFormatError("a cRLIssuer is not constructed") }
                point.crlIssuer = try names.map { try GeneralName(derEncoded: $0) }
            }
            guard point.name != nil || point.crlIssuer != nil else {
                throw CRLFormatError("a DistributionPoint has neither a distributionPoint nor a cRLIssuer (RFC 5280 §4.2.1.13)")
            }
            return point
        }
    }
}

/// A CRL's issuingDistributionPoint extension (RFC 5280 §5.2.5).
struct IssuingDistributionPoint: Hashable, Sendable {
    static let oid: ASN1ObjectIdentifier = [2, 5, 29, 28]

    var name: DistributionPointName?
    var onlyContainsUserCerts = false
    var onlyContainsCACerts = false
    var onlySomeReasons: CRLReasons?
    var indirectCRL = false
    var onlyContainsAttributeCerts = false

    private init() {}

    init(derEncoded node: ASN1Node) throws {
        self = try DER.sequence(node, identifier: .sequence) { nodes in
            var idp = IssuingDistributionPoint()
            if let wrapper = DER.optionalExplicitNode(&nodes, tag: 0) { idp.name = try DistributionPointName(wrapper: wrapper) }
            idp.onlyContainsUserCerts = try Self.flag(&nodes, 1)
            idp.onlyContainsCACerts = try Self.flag(&nodes, 2)
            if let flags = try DER.optionalImplicitlyTagged(&nodes, tag: ASN1Identifier(tagWithNumber: 3, tagClass: .contextSpecific)) as ASN1BitString? {
                idp.onlySomeReasons = CRLReasons(flags: flags)
            }
            idp.indirectCRL = try Self.flag(&nodes, 4)
            idp.onlyContainsAttributeCerts = try Self.flag(&nodes, 5)
            let only = [idp.onlyContainsUserCerts, idp.onlyContainsCACerts, idp.onlyContainsAttributeCerts].filter { $0 }.count
            guard only <= 1 else {
                throw CRLFormatError("its issuingDistributionPoint asserts more than one of onlyContainsUserCerts, onlyContainsCACerts and onlyContainsAttributeCerts (RFC 5280 §5.2.5)")
            }
            return idp
        }
    }

    /// A BOOLEAN DEFAULT FALSE: DER forbids encoding the default.
    private static func flag(_ nodes: inout ASN1NodeCollection.Iterator, _ tag: UInt) throws -> Bool {
        guard let value = try DER.optionalImplicitlyTagged(&nodes, tag: ASN1Identifier(tagWithNumber: tag, tagClass: .contextSpecific)) as Bool? else {
            return false
        }
        guard value else { throw CRLFormatError("its issuingDistributionPoint encodes a DEFAULT FALSE flag, which DER forbids") }
        return true
    }
}

extension DER {
    /// The node of an optional EXPLICIT (constructed) context tag, consumed when present.
    static func optionalExplicitNode(_ nodes: inout ASN1NodeCollection.Iterator, tag: UInt) -> ASN1Node? {
        var peek = nodes
        guard let node = peek.next(), node.identifier == ASN1Identifier(tagWithNumber: tag, tagClass: .contextSpecific) else { return nil }
        nodes = peek
        return node
    }
}

/// Why bytes are not a CRL, or a CRL part is malformed: a sentence that names the part.
public struct CRLFormatError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String
    init(_ description: String) { self.description = description }
}
