import SwiftASN1
import X509

/// The revoked entries of one CRL as fixed-size records sorted by serial number, each pointing at its serial in the
/// CRL's DER: the list is held once, and a lookup is a binary search.
struct RevokedEntries: Sendable {
    struct Entry: Sendable {
        /// Where the serial's unsigned big-endian bytes (no leading zero) start in the DER, and how many there are.
        var serialStart: UInt32
        var serialCount: UInt32
        /// The index in ``issuers`` of the certificate issuer the entry is about.
        var issuer: UInt32
        /// The reasonCode (RFC 5280 §5.3.1), or ``noReason``.
        var reason: UInt8
    }

    static let noReason: UInt8 = 0xFF
    static let reasonCodeOID: ASN1ObjectIdentifier = [2, 5, 29, 21]
    static let invalidityDateOID: ASN1ObjectIdentifier = [2, 5, 29, 24]
    static let certificateIssuerOID: ASN1ObjectIdentifier = [2, 5, 29, 29]
    static let holdInstructionCodeOID: ASN1ObjectIdentifier = [2, 5, 29, 23]

    let der: [UInt8]
    private(set) var records: [Entry] = []
    /// The certificate issuers entries are about: index 0 is the CRL's issuer; an indirect CRL's certificateIssuer
    /// entries add the others (§5.3.3).
    private(set) var issuers: [[GeneralName]] = []

    init(der: [UInt8]) { self.der = der }

    var count: Int { records.count }

    /// Reads revokedCertificates. An unknown critical entry extension marks the whole CRL unusable (§5.3).
    static func read(_ node: ASN1Node, der: [UInt8], crlIssuer: DistinguishedName, indirect: Bool, version: Int?,
                     unusable: inout String?) throws -> RevokedEntries {
        guard case .constructed(let children) = node.content else { throw CRLFormatError("its revokedCertificates is not a SEQUENCE") }
        var entries = RevokedEntries(der: der)
        entries.issuers = [[.directoryName(crlIssuer)]]
        guard der.count < Int(UInt32.max) else { throw CRLFormatError("it is too large to index") }
        var currentIssuer: UInt32 = 0
        for child in children {
            try DER.sequence(child, identifier: .sequence) { fields in
                let serial = try Self.serial(&fields)
                _ = try CRLTime.read(&fields, optional: false)
                var reason = noReason
                if let list = fields.next() {
                    guard version != nil else { throw CRLFormatError("a v1 CRL has entry extensions, which only v2 may have") }
                    let extensions = try Certificate.Extensions(DER.sequence(of: Certificate.Extension.self, identifier: .sequence, rootNode: list))
                    guard !extensions.isEmpty else { throw CRLFormatError("an entry has an empty crlEntryExtensions") }
                    for ext in extensions {
                        switch ext.oid {
                        case reasonCodeOID:
                            reason = try Self.reasonCode(ext)
                        case certificateIssuerOID:
                            guard indirect else {
                                throw CRLFormatError("an entry has a certificateIssuer, which only an indirect CRL may have (RFC 5280 §5.3.3)")
                            }
                            guard ext.critical else { throw CRLFormatError("an entry's certificateIssuer is not critical (RFC 5280 §5.3.3)") }
                            let names: [GeneralName]
                            do {
                                let root = try DER.parse(ext.value)
                                guard case .constructed(let list) = root.content, root.identifier == .sequence else { throw CRLFormatError("") }
                                names = try list.map { try GeneralName(derEncoded: $0) }
                            } catch { throw CRLFormatError("an entry's certificateIssuer is not GeneralNames") }
                            guard !names.isEmpty else { throw CRLFormatError("an entry's certificateIssuer is empty") }
                            if let known = entries.issuers.firstIndex(of: names) {
                                currentIssuer = UInt32(known)
                            } else {
                                entries.issuers.append(names)
                                currentIssuer = UInt32(entries.issuers.count - 1)
                            }
                        case invalidityDateOID, holdInstructionCodeOID:
                            // Informative: neither changes whether the certificate is revoked at the validation time.
                            continue
                        default:
                            if ext.critical {
                                unusable = unusable ?? "an entry has a critical extension that is not processed here (\(ext.oid)), so RFC 5280 §5.3 forbids using the CRL"
                            }
                        }
                    }
                }
                if let serial {
                    entries.records.append(Entry(serialStart: UInt32(serial.startIndex), serialCount: UInt32(serial.count),
                                                 issuer: currentIssuer, reason: reason))
                }
            }
        }
        entries.sort()
        return entries
    }

    /// The serial as unsigned bytes, or nil for a negative one: RFC 5280 §4.1.2.2 forbids them, swift-certificates reads
    /// no certificate with one, so such an entry can be about no certificate here (PKITS 4.4.14 lists one beside others).
    private static func serial(_ fields: inout ASN1NodeCollection.Iterator) throws -> ArraySlice<UInt8>? {
        var peek = fields
        guard let node = peek.next(), node.identifier == .integer else { throw CRLFormatError("an entry has no serial number") }
        if case .primitive(let bytes) = node.content, let first = bytes.first, first & 0x80 != 0 {
            fields = peek
            // Checked for DER all the same, where swift-asn1 can read it.
            if bytes.count <= 8 {
                do { _ = try Int64(derEncoded: node) } catch { throw CRLFormatError("an entry's serial number is not a DER INTEGER") }
            }
            return nil
        }
        do { return try ArraySlice<UInt8>(derEncoded: &fields) } catch {
            throw CRLFormatError("an entry's serial number is not a DER INTEGER")
        }
    }

    private static func reasonCode(_ ext: Certificate.Extension) throws -> UInt8 {
        do {
            let node = try DER.parse(ext.value)
            guard node.identifier == .enumerated, case .primitive(let bytes) = node.content, bytes.count == 1, bytes[bytes.startIndex] <= 10,
                  bytes[bytes.startIndex] != 7 else {
                throw CRLFormatError("")
            }
            return bytes[bytes.startIndex]
        } catch {
            throw CRLFormatError("an entry's reasonCode is not one of the CRLReason values of RFC 5280 §5.3.1")
        }
    }

    private mutating func sort() {
        der.withUnsafeBufferPointer { buffer in
            records.sort { Self.compare(buffer, $0, buffer, $1.serialStart, $1.serialCount) < 0 }
        }
    }

    /// Orders serials by length, then bytes: both are minimal, so equal values have equal bytes.
    private static func compare(_ a: UnsafeBufferPointer<UInt8>, _ lhs: Entry, _ b: UnsafeBufferPointer<UInt8>, _ start: UInt32, _ count: UInt32) -> Int {
        if lhs.serialCount != count { return lhs.serialCount < count ? -1 : 1 }
        let x = UnsafeBufferPointer(rebasing: a[Int(lhs.serialStart)..<Int(lhs.serialStart + lhs.serialCount)])
        let y = UnsafeBufferPointer(rebasing: b[Int(start)..<Int(start + count)])
        for i in 0..<Int(count) where x[i] != y[i] { return x[i] < y[i] ? -1 : 1 }
        return 0
    }

    /// The entries for `serial` (a certificate's serial number bytes), in any order.
    func entries(for serial: ArraySlice<UInt8>) -> [Entry] {
        // The certificate's bytes are in ASN.1 form (a leading zero before a high bit); the index holds them without.
        var key = Array(serial)
        while key.first == 0 { key.removeFirst() }
        return der.withUnsafeBufferPointer { crl in
            key.withUnsafeBufferPointer { probe in
                var low = 0, high = records.count
                while low < high {
                    let mid = (low + high) / 2
                    if Self.compare(crl, records[mid], probe, 0, UInt32(probe.count)) < 0 { low = mid + 1 } else { high = mid }
                }
                var found: [Entry] = []
                while low < records.count, Self.compare(crl, records[low], probe, 0, UInt32(probe.count)) == 0 {
                    found.append(records[low])
                    low += 1
                }
                return found
            }
        }
    }
}
