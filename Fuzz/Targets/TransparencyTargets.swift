import Crypto
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

    /// A CT log list in Apple's schema v5, as `--ct-log-list FILE` and `ATS_CT_LOG_LIST` hand one over, through
    /// `CTLogList(json:source:)`. A list that reads holds at least one log, each once, under the SHA-256 of its key, and
    /// finds each by that ID; a time window starts before it ends. A list that does not read names its source.
    static let ctLogList = FuzzTarget(name: "ct-log-list", summary: "CT log list JSON → CTLogList") { bytes in
        let list: CTLogList
        do throws(CTLogListError) { list = try CTLogList(json: bytes, source: .supplied("fuzz.json")) } catch {
            if !error.description.contains("the CT log list fuzz.json cannot be used: ") { violated("an error without its source: \(error)") }
            return
        }
        if list.logs.isEmpty { violated("a list with no logs read") }
        var seen = Set<[UInt8]>()
        for log in list.logs {
            if log.logID != Array(SHA256.hash(data: log.key)) { violated("\(log.name): its ID is not its key's SHA-256") }
            if !seen.insert(log.logID).inserted { violated("\(log.name): its ID is listed twice") }
            if list.log(id: log.logID) != log { violated("\(log.name): not found by its ID") }
            if let window = log.temporalInterval, window.isEmpty { violated("\(log.name): an empty time window") }
        }
    }

    static func bigEndian(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
