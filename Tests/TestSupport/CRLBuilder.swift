import Foundation
import SwiftASN1
import X509

/// Builds and signs X.509 CRLs (RFC 5280 §5) for tests, with swift-asn1's serializer. Every field can be set wrong on
/// purpose.
public struct CRLBuilder {
    public struct Entry {
        public var serial: [UInt8]
        /// Write `serial` as the INTEGER's content bytes unchanged (a negative serial), instead of as an unsigned number.
        public var rawSerial = false
        public var date: Date
        public var reason: UInt8?
        public var extensions: [Certificate.Extension]

        public init(serial: [UInt8], date: Date = PKI.now.addingTimeInterval(-7200), reason: UInt8? = nil, extensions: [Certificate.Extension] = []) {
            self.serial = serial
            self.date = date
            self.reason = reason
            self.extensions = extensions
        }

        /// An entry for `certificate`.
        public static func revoking(_ certificate: TestCert, reason: UInt8? = nil, extensions: [Certificate.Extension] = []) -> Entry {
            Entry(serial: Array(certificate.certificate.serialNumber.bytes), reason: reason, extensions: extensions)
        }
    }

    public var issuer: DistinguishedName
    public var thisUpdate = PKI.now.addingTimeInterval(-3600)
    public var nextUpdate: Date? = PKI.now.addingTimeInterval(86400)
    public var number: [UInt8]? = [1]
    public var numberCritical = false
    public var deltaBase: [UInt8]?
    /// The DER value of an issuingDistributionPoint extension (critical).
    public var issuingDistributionPoint: [UInt8]?
    public var entries: [Entry] = []
    public var extensions: [Certificate.Extension] = []
    public var signatureAlgorithm: ASN1ObjectIdentifier?

    public init(issuer: DistinguishedName) { self.issuer = issuer }
    public init(issuer: TestCert) { self.issuer = issuer.subject }

    /// The DER CRL, signed with `key`.
    public func signed(by key: TestKey) throws -> [UInt8] {
        var crlExtensions = extensions
        if let number { crlExtensions.append(Self.integerExtension([2, 5, 29, 20], number, critical: numberCritical)) }
        if let deltaBase { crlExtensions.append(Self.integerExtension([2, 5, 29, 27], deltaBase, critical: true)) }
        if let idp = issuingDistributionPoint {
            crlExtensions.append(Certificate.Extension(oid: [2, 5, 29, 28], critical: true, value: idp[...]))
        }
        var tbsSerializer = DER.Serializer()
        let algorithm = signatureAlgorithm ?? Self.algorithm(of: key)
        try tbsSerializer.appendConstructedNode(identifier: .sequence) { s in
            try s.serialize(1)  // v2
            try Self.algorithmIdentifier(algorithm, key: key, into: &s)
            try s.serialize(issuer)
            try Self.time(thisUpdate, into: &s)
            if let nextUpdate { try Self.time(nextUpdate, into: &s) }
            if !entries.isEmpty {
                try s.appendConstructedNode(identifier: .sequence) { s in
                    for entry in entries {
                        try s.appendConstructedNode(identifier: .sequence) { s in
                            if entry.rawSerial {
                                s.serializeRawBytes([0x02, UInt8(entry.serial.count)] + entry.serial)
                            } else {
                                try s.serialize(ArraySlice(entry.serial))
                            }
                            try Self.time(entry.date, into: &s)
                            var exts = entry.extensions
                            if let reason = entry.reason {
                                exts.insert(Certificate.Extension(oid: [2, 5, 29, 21], critical: false, value: [0x0A, 0x01, reason]), at: 0)
                            }
                            if !exts.isEmpty { try s.serializeSequenceOf(exts) }
                        }
                    }
                }
            }
            if !crlExtensions.isEmpty {
                try s.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { s in try s.serializeSequenceOf(crlExtensions) }
            }
        }
        let tbs = tbsSerializer.serializedBytes
        let signature = try key.sign(tbs).signature
        var outer = DER.Serializer()
        try outer.appendConstructedNode(identifier: .sequence) { s in
            s.serializeRawBytes(tbs)
            try Self.algorithmIdentifier(algorithm, key: key, into: &s)
            try s.serialize(ASN1BitString(bytes: signature[...]))
        }
        return outer.serializedBytes
    }

    /// The CRL as PEM text.
    public func pem(by key: TestKey) throws -> String {
        try PEMDocument(type: "X509 CRL", derBytes: signed(by: key)).pemString + "\n"
    }

    static func algorithm(of key: TestKey) -> ASN1ObjectIdentifier {
        switch key {
        case .p256: return [1, 2, 840, 10045, 4, 3, 2]
        case .p384: return [1, 2, 840, 10045, 4, 3, 3]
        case .rsa: return [1, 2, 840, 113549, 1, 1, 11]
        }
    }

    static func algorithmIdentifier(_ oid: ASN1ObjectIdentifier, key: TestKey, into s: inout DER.Serializer) throws {
        try s.appendConstructedNode(identifier: .sequence) { s in
            try s.serialize(oid)
            if case .rsa = key { try s.serialize(ASN1Null()) }
        }
    }

    static func time(_ date: Date, into s: inout DER.Serializer) throws {
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        try s.serialize(UTCTime(year: c.year!, month: c.month!, day: c.day!, hours: c.hour!, minutes: c.minute!, seconds: c.second!))
    }

    static func integerExtension(_ oid: ASN1ObjectIdentifier, _ value: [UInt8], critical: Bool) -> Certificate.Extension {
        var s = DER.Serializer()
        try! s.serialize(ArraySlice(value))
        return Certificate.Extension(oid: oid, critical: critical, value: s.serializedBytes[...])
    }

    // MARK: Extension values

    /// A cRLDistributionPoints extension naming `uris` (one point, full names).
    public static func distributionPoints(_ uris: [String], crlIssuer: DistinguishedName? = nil, reasons: [UInt8]? = nil) -> Certificate.Extension {
        var s = DER.Serializer()
        try! s.appendConstructedNode(identifier: .sequence) { s in
            try s.appendConstructedNode(identifier: .sequence) { s in
                if !uris.isEmpty {
                    try s.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { s in
                        try s.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { s in
                            for uri in uris { try s.serialize(GeneralName.uniformResourceIdentifier(uri)) }
                        }
                    }
                }
                if let reasons { try s.serializeOptionalImplicitlyTagged(reasonFlags(reasons), withIdentifier: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)) }
                if let crlIssuer {
                    try s.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 2, tagClass: .contextSpecific)) { s in
                        try s.serialize(GeneralName.directoryName(crlIssuer))
                    }
                }
            }
        }
        return Certificate.Extension(oid: [2, 5, 29, 31], critical: false, value: s.serializedBytes[...])
    }

    /// An issuingDistributionPoint value.
    public static func issuingDistributionPoint(uris: [String] = [], onlyUser: Bool = false, onlyCA: Bool = false,
                                                onlySomeReasons: [UInt8]? = nil, indirect: Bool = false) -> [UInt8] {
        var s = DER.Serializer()
        try! s.appendConstructedNode(identifier: .sequence) { s in
            if !uris.isEmpty {
                try s.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { s in
                    try s.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { s in
                        for uri in uris { try s.serialize(GeneralName.uniformResourceIdentifier(uri)) }
                    }
                }
            }
            if onlyUser { try s.serializeOptionalImplicitlyTagged(true, withIdentifier: ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)) }
            if onlyCA { try s.serializeOptionalImplicitlyTagged(true, withIdentifier: ASN1Identifier(tagWithNumber: 2, tagClass: .contextSpecific)) }
            if let onlySomeReasons {
                try s.serializeOptionalImplicitlyTagged(reasonFlags(onlySomeReasons), withIdentifier: ASN1Identifier(tagWithNumber: 3, tagClass: .contextSpecific))
            }
            if indirect { try s.serializeOptionalImplicitlyTagged(true, withIdentifier: ASN1Identifier(tagWithNumber: 4, tagClass: .contextSpecific)) }
        }
        return s.serializedBytes
    }

    /// A certificateIssuer entry extension (critical) naming `issuer`.
    public static func certificateIssuer(_ issuer: DistinguishedName) -> Certificate.Extension {
        var s = DER.Serializer()
        try! s.appendConstructedNode(identifier: .sequence) { s in try s.serialize(GeneralName.directoryName(issuer)) }
        return Certificate.Extension(oid: [2, 5, 29, 29], critical: true, value: s.serializedBytes[...])
    }

    /// ReasonFlags with the given reason bits set, trailing zero bits dropped as DER asks.
    static func reasonFlags(_ reasons: [UInt8]) -> ASN1BitString {
        var bits: UInt16 = 0
        for r in reasons { bits |= 0x8000 >> UInt16(r) }
        let bytes: [UInt8] = bits & 0x00FF == 0 ? [UInt8(bits >> 8)] : [UInt8(bits >> 8), UInt8(bits & 0xFF)]
        let last = bytes.last ?? 0
        return ASN1BitString(bytes: bytes[...], paddingBits: last == 0 ? 0 : last.trailingZeroBitCount)
    }
}
