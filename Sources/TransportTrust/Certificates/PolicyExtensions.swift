import SwiftASN1
import X509

/// The RFC 5280 certificate policy extensions of one certificate, read strictly with swift-asn1: swift-certificates
/// 1.21.1 has no types for them. Each absent extension is nil.
struct PolicyExtensions: Sendable {
    static let certificatePoliciesOID: ASN1ObjectIdentifier = [2, 5, 29, 32]
    static let policyMappingsOID: ASN1ObjectIdentifier = [2, 5, 29, 33]
    static let policyConstraintsOID: ASN1ObjectIdentifier = [2, 5, 29, 36]
    static let inhibitAnyPolicyOID: ASN1ObjectIdentifier = [2, 5, 29, 54]
    static let anyPolicy: ASN1ObjectIdentifier = [2, 5, 29, 32, 0]

    /// certificatePolicies (§4.2.1.4): the policy OIDs, in order; qualifiers are checked for shape and dropped.
    var policies: [ASN1ObjectIdentifier]?
    /// The policyQualifierIds of certificatePolicies, in order, for a profile that refuses qualifiers it cannot read.
    var qualifierIDs: [ASN1ObjectIdentifier] = []
    /// The two qualifiers RFC 5280 §4.2.1.4 defines: the CPS pointer and the user notice.
    static let knownQualifiers: Set<ASN1ObjectIdentifier> = [[1, 3, 6, 1, 5, 5, 7, 2, 1], [1, 3, 6, 1, 5, 5, 7, 2, 2]]
    /// policyMappings (§4.2.1.5): issuerDomainPolicy and subjectDomainPolicy pairs, in order.
    var mappings: [(issuer: ASN1ObjectIdentifier, subject: ASN1ObjectIdentifier)]?
    /// policyConstraints (§4.2.1.11); SkipCerts beyond any path length are clamped.
    var requireExplicitPolicy: Int?
    var inhibitPolicyMapping: Int?
    var hasPolicyConstraints = false
    /// inhibitAnyPolicy (§4.2.1.14).
    var inhibitAnyPolicy: Int?

    /// An extension that does not follow its RFC 5280 syntax.
    struct Malformed: Error, Sendable {
        var extensionName: String
        var reason: String
    }

    /// Beyond any path length: every larger SkipCerts means the same.
    static let skipCertsCeiling = 1 << 24

    init(_ cert: Certificate) throws(Malformed) { try self.init(cert.extensions) }

    init(_ extensions: Certificate.Extensions) throws(Malformed) {
        if let ext = extensions[oid: Self.certificatePoliciesOID] {
            (policies, qualifierIDs) = try Self.read("certificatePolicies", ext) { try Self.certificatePolicies($0) }
        }
        if let ext = extensions[oid: Self.policyMappingsOID] {
            mappings = try Self.read("policyMappings", ext) { try Self.policyMappings($0) }
        }
        if let ext = extensions[oid: Self.policyConstraintsOID] {
            hasPolicyConstraints = true
            (requireExplicitPolicy, inhibitPolicyMapping) = try Self.read("policyConstraints", ext) { try Self.policyConstraints($0) }
        }
        if let ext = extensions[oid: Self.inhibitAnyPolicyOID] {
            inhibitAnyPolicy = try Self.read("inhibitAnyPolicy", ext) { root in
                guard root.identifier == .integer else { throw Malformed(extensionName: "", reason: "it is not an INTEGER") }
                return try Self.skipCerts(root)
            }
        }
    }

    private struct Reason: Error { var text: String }

    /// Parses an extension's value as one DER element and reads it; any fault names the extension.
    private static func read<T>(_ name: String, _ ext: Certificate.Extension, _ body: (ASN1Node) throws -> T) throws(Malformed) -> T {
        let root: ASN1Node
        do { root = try DER.parse(ext.value) } catch {
            throw Malformed(extensionName: name, reason: "its value is not one well-formed DER element")
        }
        do { return try body(root) } catch let error as Malformed {
            throw Malformed(extensionName: name, reason: error.reason)
        } catch {
            throw Malformed(extensionName: name, reason: "an element has the wrong type or encoding")
        }
    }

    private static func fault(_ reason: String) -> Malformed { Malformed(extensionName: "", reason: reason) }

    /// The children of a SEQUENCE, of which there must be at least one when `nonEmpty`.
    private static func children(of node: ASN1Node, _ what: String, nonEmpty: Bool) throws -> [ASN1Node] {
        guard node.identifier == .sequence, case .constructed(let nodes) = node.content else { throw fault("\(what) is not a SEQUENCE") }
        let list = Array(nodes)
        if nonEmpty && list.isEmpty { throw fault("\(what) is empty, and RFC 5280 requires at least one element") }
        return list
    }

    static func certificatePolicies(_ root: ASN1Node) throws -> ([ASN1ObjectIdentifier], qualifiers: [ASN1ObjectIdentifier]) {
        var seen = Set<ASN1ObjectIdentifier>()
        var out: [ASN1ObjectIdentifier] = []
        var qualifiers: [ASN1ObjectIdentifier] = []
        for info in try children(of: root, "the list of policies", nonEmpty: true) {
            let parts = try children(of: info, "a PolicyInformation", nonEmpty: true)
            let oid = try ASN1ObjectIdentifier(derEncoded: parts[0])
            guard seen.insert(oid).inserted else { throw fault("it lists the policy \(oid) twice, and RFC 5280 §4.2.1.4 allows each once") }
            if parts.count > 2 { throw fault("the PolicyInformation of \(oid) has more than two fields") }
            if parts.count == 2 {
                for qualifier in try children(of: parts[1], "the qualifiers of \(oid)", nonEmpty: true) {
                    let fields = try children(of: qualifier, "a qualifier of \(oid)", nonEmpty: true)
                    qualifiers.append(try ASN1ObjectIdentifier(derEncoded: fields[0]))
                    if fields.count != 2 { throw fault("a qualifier of \(oid) is not an identifier and one value") }
                }
            }
            out.append(oid)
        }
        return (out, qualifiers)
    }

    static func policyMappings(_ root: ASN1Node) throws -> [(issuer: ASN1ObjectIdentifier, subject: ASN1ObjectIdentifier)] {
        try children(of: root, "the list of mappings", nonEmpty: true).map { pair in
            let parts = try children(of: pair, "a mapping", nonEmpty: true)
            guard parts.count == 2 else { throw fault("a mapping is not an issuerDomainPolicy and a subjectDomainPolicy") }
            return (try ASN1ObjectIdentifier(derEncoded: parts[0]), try ASN1ObjectIdentifier(derEncoded: parts[1]))
        }
    }

    static func policyConstraints(_ root: ASN1Node) throws -> (Int?, Int?) {
        let parts = try children(of: root, "the constraints", nonEmpty: false)
        if parts.isEmpty { throw fault("it is an empty SEQUENCE, which RFC 5280 §4.2.1.11 forbids") }
        var require: Int?
        var inhibit: Int?
        var lastTag = -1
        for part in parts {
            guard part.identifier.tagClass == .contextSpecific, part.identifier.tagNumber <= 1, Int(part.identifier.tagNumber) > lastTag else {
                throw fault("it holds an element other than requireExplicitPolicy [0] and inhibitPolicyMapping [1], in that order")
            }
            lastTag = Int(part.identifier.tagNumber)
            if lastTag == 0 { require = try skipCerts(part) } else { inhibit = try skipCerts(part) }
        }
        return (require, inhibit)
    }

    /// SkipCerts ::= INTEGER (0..MAX), as DER: minimal, non-negative.
    static func skipCerts(_ node: ASN1Node) throws -> Int {
        guard case .primitive(let bytes) = node.content, let first = bytes.first else { throw fault("a SkipCerts is not a primitive INTEGER") }
        if first & 0x80 != 0 { throw fault("a SkipCerts is negative") }
        if bytes.count > 1 && first == 0 && bytes[bytes.startIndex + 1] & 0x80 == 0 { throw fault("a SkipCerts is not in minimal DER form") }
        var value = 0
        for byte in bytes {
            if value >= skipCertsCeiling { return skipCertsCeiling }
            value = value << 8 | Int(byte)
        }
        return min(value, skipCertsCeiling)
    }
}
