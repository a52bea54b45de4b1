import TransportTrust

extension FuzzTarget {
    /// An SCT list extension value (RFC 6962 §3.3) through `SCTListReader`. A list of v1 SCTs that reads must be exactly
    /// what writing them back gives: the reader accepts one encoding only.
    static let sctList = FuzzTarget(name: "sct-list", summary: "SignedCertificateTimestampList → SCTListReader") { bytes in
        guard let scts = try? SCTListReader.read(bytes[...]) else { return }
        if scts.isEmpty || scts.count > SCTListReader.maximumCount { violated("\(scts.count) SCTs read") }
        guard scts.allSatisfy(\.isVersion1) else { return }
        var list: [UInt8] = []
        for sct in scts {
            if sct.logID.count != 32 { violated("a log ID of \(sct.logID.count) bytes") }
            var one: [UInt8] = [sct.version] + sct.logID + bigEndian(sct.timestamp, 8)
            one += bigEndian(UInt64(sct.extensions.count), 2) + sct.extensions + [sct.hashAlgorithm, sct.signatureAlgorithm]
            one += bigEndian(UInt64(sct.signature.count), 2) + sct.signature
            list += bigEndian(UInt64(one.count), 2) + one
        }
        if bigEndian(UInt64(list.count), 2) + list != bytes { violated("the SCT list read is not the one given") }
    }

    static func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
