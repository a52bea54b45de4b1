import SwiftASN1
import X509

/// The RFC 5280 certificate policy extensions as DER, for tests (swift-certificates has no types for them).
public enum PolicyExtension {
    public static let anyPolicy: ASN1ObjectIdentifier = [2, 5, 29, 32, 0]

    /// A test policy OID under an unassigned private arc.
    public static func oid(_ n: Int) -> ASN1ObjectIdentifier { try! ASN1ObjectIdentifier(elements: [1, 3, 6, 1, 4, 1, 65535, 1, UInt(n)]) }

    public static func policies(_ oids: [ASN1ObjectIdentifier], critical: Bool = false) -> Certificate.Extension {
        var s = DER.Serializer()
        try! s.appendConstructedNode(identifier: .sequence) { s in
            for oid in oids { try s.appendConstructedNode(identifier: .sequence) { try $0.serialize(oid) } }
        }
        return Certificate.Extension(oid: [2, 5, 29, 32], critical: critical, value: s.serializedBytes[...])
    }

    /// certificatePolicies with one policy and one qualifier of type `qualifier`, its value a UTF8String.
    public static func policyWithQualifier(_ policy: ASN1ObjectIdentifier, qualifier: ASN1ObjectIdentifier, critical: Bool) -> Certificate.Extension {
        var s = DER.Serializer()
        try! s.appendConstructedNode(identifier: .sequence) { s in
            try s.appendConstructedNode(identifier: .sequence) { s in
                try s.serialize(policy)
                try s.appendConstructedNode(identifier: .sequence) { s in
                    try s.appendConstructedNode(identifier: .sequence) { s in
                        try s.serialize(qualifier)
                        try s.serialize(ASN1UTF8String("https://ca.example.test/cps"))
                    }
                }
            }
        }
        return Certificate.Extension(oid: [2, 5, 29, 32], critical: critical, value: s.serializedBytes[...])
    }

    public static func mappings(_ pairs: [(ASN1ObjectIdentifier, ASN1ObjectIdentifier)], critical: Bool = true) -> Certificate.Extension {
        var s = DER.Serializer()
        try! s.appendConstructedNode(identifier: .sequence) { s in
            for (issuer, subject) in pairs {
                try s.appendConstructedNode(identifier: .sequence) { s in
                    try s.serialize(issuer)
                    try s.serialize(subject)
                }
            }
        }
        return Certificate.Extension(oid: [2, 5, 29, 33], critical: critical, value: s.serializedBytes[...])
    }

    public static func constraints(requireExplicit: Int? = nil, inhibitMapping: Int? = nil, critical: Bool = true) -> Certificate.Extension {
        var s = DER.Serializer()
        try! s.appendConstructedNode(identifier: .sequence) { s in
            for (tag, value) in [(0, requireExplicit), (1, inhibitMapping)] {
                guard let value else { continue }
                var integer = DER.Serializer()
                try integer.serialize(value)
                // [n] IMPLICIT INTEGER: the INTEGER's content octets under the context tag.
                s.appendPrimitiveNode(identifier: ASN1Identifier(tagWithNumber: UInt(tag), tagClass: .contextSpecific)) { $0 += integer.serializedBytes.dropFirst(2) }
            }
        }
        return Certificate.Extension(oid: [2, 5, 29, 36], critical: critical, value: s.serializedBytes[...])
    }

    public static func inhibitAny(_ skipCerts: Int, critical: Bool = true) -> Certificate.Extension {
        var s = DER.Serializer()
        try! s.serialize(skipCerts)
        return Certificate.Extension(oid: [2, 5, 29, 54], critical: critical, value: s.serializedBytes[...])
    }
}
