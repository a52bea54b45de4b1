import Foundation
import SwiftASN1
import X509

/// A distinguished name as RFC 5280 §7.1 compares names: attribute by attribute, with string values prepared as
/// RFC 4518 asks (transcoded to Unicode, control and joiner characters dropped, white space mapped to SPACE, case
/// folded, NFKC, insignificant spaces removed). So a PrintableString `Test CA` equals a UTF8String `test  ca`.
///
/// Two names are equal when their RDNs are equal in order; a multi-valued RDN is compared as a set. Values that
/// are not strings swift-certificates or swift-asn1 can read (TeletexString, a value with a prohibited character)
/// are compared by their encoding, which can only make names differ: chaining then fails closed.
///
/// A name of more than ``attributeLimit`` attributes is not prepared: it is compared as swift-certificates compares
/// names, by encoding, so a hostile name costs one pass and never string preparation.
struct ComparableName: Hashable, Sendable {
    /// Most attributes a name may have to be prepared; no real name comes close.
    static let attributeLimit = 256

    private enum Form: Hashable, Sendable {
        case prepared([[Attribute]])
        case exact(DistinguishedName)
    }

    private struct Attribute: Hashable, Sendable {
        var type: ASN1ObjectIdentifier
        var value: Value
    }

    private enum Value: Hashable, Sendable {
        case string(String)
        case encoded(RelativeDistinguishedName.Attribute.Value)
    }

    private let form: Form

    init(_ name: DistinguishedName) {
        var count = 0
        for rdn in name { count += rdn.count }
        guard count <= Self.attributeLimit else {
            form = .exact(name)
            return
        }
        form = .prepared(name.map { rdn in
            let attributes = rdn.map { Attribute(type: $0.type, value: Self.value($0.value)) }
            // A SET OF: order carries no meaning. Multi-valued RDNs are rare, so the costlier sort is too.
            return attributes.count < 2 ? attributes : attributes.sorted { "\($0)" < "\($1)" }
        })
    }

    /// True when RFC 5280 §7.1 deems the names equal: byte for byte first, which is the common case and cheap.
    static func matches(_ a: DistinguishedName, _ b: DistinguishedName) -> Bool {
        guard a != b else { return true }
        guard a.count == b.count else { return false }
        return asciiMatch(a, b) ?? (ComparableName(a) == ComparableName(b))
    }

    /// The comparison of two names of single-valued RDNs whose values are all printable ASCII, which is almost every
    /// name, made without preparing either (an issuer's subject is compared with its own issuer on every path). nil when
    /// some RDN needs the full preparation. Agrees with it: `ComparableNameTests` checks generated names both ways.
    private static func asciiMatch(_ a: DistinguishedName, _ b: DistinguishedName) -> Bool? {
        guard a.count <= attributeLimit else { return nil }
        // From the end: two CAs' names usually differ only in their last RDN, the common name.
        for (x, y) in zip(a.reversed(), b.reversed()) {
            guard let p = asciiAttribute(x), let q = asciiAttribute(y) else { return nil }
            // Settled whatever follows: prepared, these two attributes differ, and so do the names (compared by encoding
            // past the attribute limit, they differ too, as a != b).
            if p.type != q.type || !FoldedASCII(p.text).elementsEqual(FoldedASCII(q.text)) { return false }
        }
        return true
    }

    /// A hash of the prepared form of a name of single-valued RDNs whose values are all printable ASCII, computed
    /// without preparing it; nil for any other name. Equal to ``preparedHash`` of every name that matches it, so an
    /// index by `preparedHash` finds a name's matches among its candidates without building a `ComparableName`.
    static func foldedHash(_ name: DistinguishedName) -> Int? {
        guard name.count <= attributeLimit else { return nil }
        var hash = PreparedHash()
        for rdn in name {
            guard let attribute = asciiAttribute(rdn) else { return nil }
            hash.add(attribute.type, FoldedASCII(attribute.text))
        }
        return hash.value
    }

    /// The same hash from a prepared name; nil unless every RDN is one attribute with a prepared string.
    var preparedHash: Int? {
        guard case .prepared(let rdns) = form else { return nil }
        var hash = PreparedHash()
        for rdn in rdns {
            guard rdn.count == 1, let attribute = rdn.first, case .string(let text) = attribute.value else { return nil }
            hash.add(attribute.type, text.utf8)
        }
        return hash.value
    }

    /// FNV-1a over each attribute's type (its seeded `hashValue`) and prepared bytes, each value closed by 0xFF, which
    /// UTF-8 never holds. The bytes are hashed unseeded, so a chosen name can share a hash with another: that costs one
    /// comparison per certificate sharing it, as every candidate is compared with ``matches(_:_:)`` before it is used,
    /// no more than certificates sent with one same subject cost.
    private struct PreparedHash {
        var value = Int(truncatingIfNeeded: 0xcbf2_9ce4_8422_2325 as UInt64)

        mutating func add(_ type: ASN1ObjectIdentifier, _ bytes: some Sequence<UInt8>) {
            mix(UInt64(UInt(bitPattern: type.hashValue)))
            for byte in bytes { mix(UInt64(byte)) }
            mix(0xFF)
        }

        private mutating func mix(_ word: UInt64) {
            value = Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: value)) ^ word) &* 0x100_0000_01b3)
        }
    }

    /// The one attribute of a single-valued RDN whose value is printable ASCII: what the fast paths handle unprepared.
    private static func asciiAttribute(_ rdn: RelativeDistinguishedName) -> (type: ASN1ObjectIdentifier, text: String)? {
        guard rdn.count == 1, let attribute = rdn.first, let text = String(attribute.value), isPrintableASCII(text) else { return nil }
        return (attribute.type, text)
    }

    private static func isPrintableASCII(_ text: String) -> Bool { text.utf8.allSatisfy { (0x20...0x7E).contains($0) } }

    /// Printable ASCII as ``prepare(_:)`` leaves it, byte by byte: A-Z folded, no leading or trailing spaces, one
    /// space between words.
    private struct FoldedASCII: Sequence, IteratorProtocol {
        var bytes: String.UTF8View.Iterator
        var started = false, pendingSpace = false
        var held: UInt8?

        init(_ text: String) { bytes = text.utf8.makeIterator() }

        mutating func next() -> UInt8? {
            if let byte = held {
                held = nil
                return byte
            }
            while let byte = bytes.next() {
                if byte == 0x20 {
                    pendingSpace = started
                    continue
                }
                let folded = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                started = true
                guard pendingSpace else { return folded }
                pendingSpace = false
                held = folded
                return 0x20
            }
            return nil
        }
    }

    /// True when the two attribute values are equal after preparation. Nil when either cannot be prepared, so that
    /// a caller decides which way an uncertain comparison fails.
    static func sameValue(_ a: RelativeDistinguishedName.Attribute.Value, _ b: RelativeDistinguishedName.Attribute.Value) -> Bool? {
        if a == b { return true }
        guard case .string(let x) = value(a), case .string(let y) = value(b) else { return nil }
        return x == y
    }

    private static func value(_ value: RelativeDistinguishedName.Attribute.Value) -> Value {
        guard let text = String(value) ?? wideString(value), let prepared = prepare(text) else { return .encoded(value) }
        return .string(prepared)
    }

    /// BMPString and UniversalString values, which swift-certificates keeps encoded.
    private static func wideString(_ value: RelativeDistinguishedName.Attribute.Value) -> String? {
        let any = ASN1Any(value)
        if let bmp = try? ASN1BMPString(asn1Any: any) {
            let bytes = Array(bmp.bytes)
            guard bytes.count % 2 == 0 else { return nil }
            let units = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
            // An unpaired surrogate becomes U+FFFD, which preparation prohibits.
            return String(decoding: units, as: UTF16.self)
        }
        if let universal = try? ASN1UniversalString(asn1Any: any) {
            let bytes = Array(universal.bytes)
            guard bytes.count % 4 == 0 else { return nil }
            var scalars = String.UnicodeScalarView()
            for i in stride(from: 0, to: bytes.count, by: 4) {
                let code = UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
                guard let scalar = Unicode.Scalar(code) else { return nil }
                scalars.append(scalar)
            }
            return String(scalars)
        }
        return nil
    }

    /// RFC 4518 §2 for caseIgnoreMatch; nil when the string holds a prohibited character (§2.4).
    static func prepare(_ text: String) -> String? {
        // Printable ASCII, almost every name: fold and squeeze spaces without Unicode tables.
        if isPrintableASCII(text) { return String(decoding: Array(FoldedASCII(text)), as: UTF8.self) }
        var mapped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            switch properties.generalCategory {
            case .privateUse, .unassigned, .surrogate: return nil
            default: break
            }
            if properties.isNoncharacterCodePoint || scalar == "\u{FFFD}" { return nil }
            switch scalar.value {
            // §2.2: mapped to SPACE.
            case 0x09...0x0D, 0x85: mapped.append(" ")
            // §2.2: mapped to nothing (soft hyphens, joiners, variation selectors, controls and format characters).
            case 0xAD, 0x34F, 0x1806, 0x180B...0x180D, 0x200B, 0xFE00...0xFE0F, 0xFFFC: continue
            default:
                if properties.generalCategory == .control || properties.generalCategory == .format { continue }
                mapped.append(properties.isWhitespace ? " " : scalar)
            }
        }
        let folded = String(mapped).folding(options: .caseInsensitive, locale: nil).precomposedStringWithCompatibilityMapping
        return squeezed(Array(folded.utf8))
    }

    /// §2.6.1 for equality: no leading or trailing spaces, one space between words. For the Unicode path, whose case
    /// fold and NFKC can yield uppercase ASCII (U+1D400 becomes "A") that must stay as it is; ``FoldedASCII`` folds.
    private static func squeezed(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var pendingSpace = false
        for byte in bytes {
            if byte == 0x20 {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(0x20) }
                pendingSpace = false
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
