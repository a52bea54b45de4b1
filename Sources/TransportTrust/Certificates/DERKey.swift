/// A certificate's DER as a dictionary key. Hashing reads only the tail, which is signature bytes and so
/// already tells certificates apart; equality still compares every byte. Hashing all of it, byte by byte,
/// cost more than the rest of a cached evaluation.
struct DERKey: Hashable {
    let der: [UInt8]

    init(_ der: [UInt8]) { self.der = der }

    func hash(into h: inout Hasher) { Self.hashTail(of: der, into: &h) }

    static func hashTail(of der: [UInt8], into h: inout Hasher) {
        h.combine(der.count)
        der.suffix(32).withUnsafeBytes { h.combine(bytes: $0) }
    }
}
