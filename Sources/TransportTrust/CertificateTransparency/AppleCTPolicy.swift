import Foundation
import X509

/// Apple's Certificate Transparency policy for embedded SCTs, as trustd applies it (Security-61901,
/// `trust/trustd/CertificateTransparency.m` and `SecPolicyServer.c`), which differs from support.apple.com/103214
/// in places. Each difference is named where it is decided, and in docs/APPLE-PARITY.md.
enum AppleCTPolicy {
    /// "Issued after October 15, 2018": trustd compares the leaf's notBefore with 2018-10-16T00:00:00Z.
    static let requiredFrom = Date(timeIntervalSince1970: 1_539_648_000)
    /// The count table changed for certificates with notBefore on or after 2021-04-21T00:00:00Z.
    static let currentTableFrom = Date(timeIntervalSince1970: 1_618_963_200)

    /// Whether CT applies to a chain, and if not, why.
    struct Applicability {
        var isRequired: Bool
        var reason: String
    }

    struct Inputs {
        var time: Date
        var anchorIsPublic: Bool
        var anchorIsApple: Bool
        var platformRequiresCT: Bool
        var requiredByConfiguration: Bool
    }

    static func applicability(leaf: Certificate, _ inputs: Inputs) -> Applicability {
        guard inputs.platformRequiresCT || inputs.requiredByConfiguration else {
            return Applicability(isRequired: false, reason: "the platform does not require Certificate Transparency")
        }
        guard inputs.anchorIsPublic else {
            return Applicability(isRequired: false, reason: "Apple requires CT only for chains to a public root, not to a user-supplied anchor outside the public store")
        }
        guard !inputs.anchorIsApple else {
            return Applicability(isRequired: false, reason: "Apple does not require CT for chains to its own roots")
        }
        // NSRequiresCertificateTransparency asked for CT of every certificate where the system asked for none; where the
        // system requires CT the key is obsolete and changes nothing.
        guard (inputs.requiredByConfiguration && !inputs.platformRequiresCT) || leaf.notValidBefore >= requiredFrom else {
            return Applicability(isRequired: false,
                                 reason: "the certificate was issued before 2018-10-16 (notBefore \(RFC3339.day(leaf.notValidBefore))), when Apple began to require CT")
        }
        return Applicability(isRequired: true, reason: "")
    }

    /// SCTs from distinct logs required for a leaf, as trustd counts: by notAfter − notBefore in seconds (no +1 s) for
    /// leaves issued from 2021-04-21, and by whole calendar months before that.
    ///
    /// Apple's page measures lifetime inclusively (+1 s), so a leaf of exactly 180 × 86,400 s needs 2 here and 3 there.
    static func requiredCount(notBefore: Date, notAfter: Date) -> (count: Int, rule: String) {
        if notBefore >= currentTableFrom {
            let seconds = notAfter.timeIntervalSince(notBefore)
            let days = Int((seconds / 86_400).rounded(.up))
            if seconds <= 180 * 86_400 { return (2, "a certificate of \(days) days (180 or fewer)") }
            if seconds <= 825 * 86_400 { return (3, "a certificate of \(days) days (more than 180)") }
            return (4, "a certificate of \(days) days (more than 825)")
        }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC") ?? utc.timeZone
        let months = utc.dateComponents([.month], from: notBefore, to: notAfter).month ?? Int.max
        let count = months < 15 ? 2 : months <= 27 ? 3 : months <= 39 ? 4 : 5
        return (count, "a certificate of \(months) months issued before 2021-04-21")
    }

    /// Applies the policy to an analysis at `time`, in trustd's order: what each SCT is, then the issuance time, then
    /// the count of distinct logs.
    static func evaluate(_ analysis: SCTAnalysis, leaf: Certificate, list: CTLogList, time: Date) -> CertificateTransparencyReport {
        let listName = list.summary
        let (required, rule) = requiredCount(notBefore: leaf.notValidBefore, notAfter: leaf.notValidAfter)
        let entries: [SCTAnalysis.Entry]
        switch analysis.contents {
        case .absent:
            return CertificateTransparencyReport(
                status: .noEmbeddedSCTs, requiredSCTs: required, countedSCTs: 0, scts: [],
                explanation: "\(leaf.label) embeds no SCTs. Apple requires \(required) SCTs from distinct logs for \(rule). "
                    + "An iPhone also accepts SCTs the server sends in the TLS handshake or in a stapled OCSP response; "
                    + "swift-nio-ssl exposes neither, so they cannot be checked here. If the server sends none, ask the CA "
                    + "for a certificate with embedded SCTs from \(required) logs in Apple's list",
                logList: listName)
        case .unreadable(let reason):
            return CertificateTransparencyReport(
                status: .nonCompliant, requiredSCTs: required, countedSCTs: 0, scts: [],
                explanation: "\(leaf.label): \(reason); Apple requires \(required) valid SCTs for \(rule). Ask the CA to reissue the certificate",
                logList: listName)
        case .present(let e):
            entries = e
        }

        // trustd truncates the verification time to whole seconds before comparing it with SCT timestamps in ms.
        let t = UInt64(max(0, time.timeIntervalSince1970).rounded(.down)) * 1000
        let verdicts = entries.map { verdict(of: $0, listName: listName, time: t, notAfter: leaf.notValidAfter) }
        // trustd: the issuance time is the earliest timestamp among SCTs from currently approved logs.
        let issuance = zip(entries, verdicts).compactMap { e, v -> UInt64? in if case .current = v { return e.sct.timestamp } else { return nil } }.min()
        let tally = Tally(entries, verdicts, issuance: issuance)
        return report(tally, leaf: leaf, required: required, rule: rule, listName: listName)
    }

    /// What one SCT is, apart from retirement, which needs the issuance time.
    private enum Verdict { case current, retired(Date), refused(String) }

    /// One SCT's verdict, its checks in trustd's order. `time` is the verification time in whole seconds, in ms.
    private static func verdict(of entry: SCTAnalysis.Entry, listName: String, time t: UInt64, notAfter: Date) -> Verdict {
        let sct = entry.sct
        if let problem = sct.problem { return .refused(problem) }
        guard sct.isVersion1 else { return .refused("it is version \(Int(sct.version) + 1); only v1 SCTs count") }
        guard let log = entry.log else { return .refused("its log is not in \(listName)") }
        guard log.isTrusted else {
            return .refused("\(log.name) is \(log.state.rawValue) in the list since \(RFC3339.day(log.stateSince))")
        }
        guard sct.timestamp <= t else {
            // Both shown to the millisecond: in the verification time's own second the SCT is still "after" it.
            let whole = Date(timeIntervalSince1970: Double(t / 1000))
            return .refused("its timestamp \(RFC3339.formatMilliseconds(sct.date)) is after the verification time, taken in whole seconds as trustd does (\(RFC3339.format(whole)))")
        }
        // trustd compares the freeze in whole seconds: an SCT within the second the log froze still counts.
        if log.state == .readonly, sct.timestamp / 1000 > UInt64(max(0, log.stateSince.timeIntervalSince1970).rounded(.down)) {
            return .refused("\(log.name) froze on \(RFC3339.format(log.stateSince)), before this SCT")
        }
        if let shard = log.temporalInterval, !shard.contains(notAfter) {
            return .refused("\(log.name) only logs certificates expiring from \(RFC3339.day(shard.lowerBound)) until before \(RFC3339.day(shard.upperBound)); this one expires \(RFC3339.format(notAfter))")
        }
        switch entry.signature {
        case .valid: break
        case .invalid: return .refused("its signature does not verify over the certificate as issued")
        case .unchecked(let why): return .refused(why)
        }
        return log.state == .retired ? .retired(log.stateSince) : .current
    }

    /// The SCTs counted, one per log, and a report for each SCT.
    private struct Tally {
        var counted = Set<[UInt8]>()
        /// Whether a counted SCT is from a currently approved log (not only from retired ones).
        var currentCounted = false
        var reports: [SCTReport] = []

        init(_ entries: [SCTAnalysis.Entry], _ verdicts: [Verdict], issuance: UInt64?) {
            reports.reserveCapacity(entries.count)
            for (entry, verdict) in zip(entries, verdicts) {
                var report = SCTReport(logID: entry.sct.logIDBase64, log: entry.log?.name, operator: entry.log?.operatorName,
                                       timestamp: entry.sct.isVersion1 ? entry.sct.date : nil,
                                       verified: entry.signature == .valid ? true : entry.signature == .invalid ? false : nil,
                                       counted: false, reason: nil)
                count(entry, verdict, issuance: issuance, into: &report)
                reports.append(report)
            }
        }

        private mutating func count(_ entry: SCTAnalysis.Entry, _ verdict: Verdict, issuance: UInt64?, into report: inout SCTReport) {
            switch verdict {
            case .refused(let why):
                report.reason = why
            case .current, .retired:
                if case .retired(let retired) = verdict {
                    let ms = UInt64(max(0, retired.timeIntervalSince1970 * 1000))
                    guard entry.sct.timestamp < ms, let issuance, issuance < ms else {
                        report.reason = "\(entry.log?.name ?? "its log") retired on \(RFC3339.day(retired)); its SCTs count only when they and the certificate's issuance precede that"
                        return
                    }
                    report.reason = "from a retired log, counted as once approved"
                }
                // trustd counts logs, not SCTs: a second SCT from one log adds nothing.
                if counted.insert(entry.sct.logID).inserted {
                    report.counted = true
                    if case .current = verdict { currentCounted = true }
                } else {
                    report.reason = "another SCT from the same log already counts"
                }
            }
        }
    }

    /// The report on a tally: compliant, or what was counted and what not, and what to ask the CA for.
    private static func report(_ tally: Tally, leaf: Certificate, required: Int, rule: String, listName: String) -> CertificateTransparencyReport {
        let counted = tally.counted.count
        let reports = tally.reports
        let compliant = tally.currentCounted && counted >= required
        let valid = counted == 1 ? "1 valid SCT" : "\(counted) valid SCTs"
        let countedText = "\(valid) from distinct logs; Apple requires \(required) for \(rule)"
        if compliant {
            return CertificateTransparencyReport(status: .compliant, requiredSCTs: required, countedSCTs: counted, scts: reports,
                                                 explanation: countedText.prefix(1).uppercased() + countedText.dropFirst(), logList: listName)
        }
        let logs = reports.filter(\.counted).map { "\($0.log ?? $0.logID) (\($0.operator ?? "unknown operator"))" }
        let failed = zip(reports.indices, reports).filter { !$0.1.counted }.map { "SCT \($0.0 + 1): \($0.1.reason ?? "not counted")" }
        var text = "\(leaf.label) has \(countedText)"
        if !logs.isEmpty { text += "; counted: \(logs.joined(separator: ", "))" }
        if !failed.isEmpty { text += "; not counted: \(failed.joined(separator: "; "))" }
        if counted >= required && !tally.currentCounted { text += "; none is from a currently approved log" }
        text += ". Ask the CA to reissue the certificate with SCTs from at least \(required) distinct logs that are usable in Apple's list"
        return CertificateTransparencyReport(status: .nonCompliant, requiredSCTs: required, countedSCTs: counted, scts: reports,
                                             explanation: text, logList: listName)
    }
}
