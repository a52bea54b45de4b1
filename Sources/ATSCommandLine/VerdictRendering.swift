import Foundation
import TransportTrust

/// How verdicts are shown: a small tree for people, one JSON object for programs.
enum VerdictRendering {
    struct JSONVerdict: Encodable {
        var trusted: Bool
        var anchor: AnchorSource?
        /// Present (true) only when the leaf is itself the anchor (``TrustVerdict/leafIsAnchor``).
        var leafIsAnchor: Bool?
        var chain: [ChainEntry]
        var failures: [TrustFailure]
        var notes: [String]
        var certificateTransparency: CertificateTransparencyReport?
        /// Where the public roots came from ("system" or "apple"), Apple's store version, and the Apple release whose
        /// TLS server rules applied (absent under the basic policy).
        var trustStore: String?
        var trustStoreVersion: Int?
        var platform: String?
    }

    /// A certificate's summary, and the SCTs it embeds as the CT policy saw them (only the leaf's are read).
    struct ChainEntry: Encodable {
        var summary: CertificateSummary
        var scts: [SCTReport]

        private enum Keys: String, CodingKey { case scts }

        func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(scts, forKey: .scts)
        }
    }

    static func chainEntries(_ verdict: TrustVerdict) -> [ChainEntry] {
        verdict.chainSummaries.enumerated().map { i, s in
            ChainEntry(summary: s, scts: i == 0 ? verdict.certificateTransparency?.scts ?? [] : [])
        }
    }

    /// - Parameter anchors: the anchors evaluated against, whose problems (system roots skipped, anchors that cannot
    ///   be used) become notes: in JSON they are not written to standard error.
    /// - Parameter policy: the policy evaluated under, whose platform is named when it is the SSL policy.
    static func json(_ verdict: TrustVerdict, anchors: TrustAnchors? = nil, policy: TrustPolicy? = nil) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let value = JSONVerdict(trusted: verdict.isTrusted, anchor: verdict.anchor, leafIsAnchor: verdict.leafIsAnchor ? true : nil,
                                chain: chainEntries(verdict),
                                failures: verdict.failures, notes: verdict.notes + (anchors?.problems ?? []),
                                certificateTransparency: verdict.certificateTransparency,
                                trustStore: anchors?.trustStore.rawValue,
                                trustStoreVersion: anchors?.trustStore == .apple ? AppleTrustStore.shared.version : nil,
                                platform: policy.flatMap { $0.kind == .basicX509 ? nil : $0.platform.description })
        guard let data = try? encoder.encode(value) else { return #"{"trusted":false,"failures":[{"code":"internalError"}]}"# }
        return String(decoding: data, as: UTF8.self)
    }

    /// The leaf's SCTs, one line each, under the CT outcome.
    static func sctLines(_ ct: CertificateTransparencyReport, pad: String, colors output: Palette) -> String {
        guard !ct.scts.isEmpty || ct.status == .noEmbeddedSCTs else { return "" }
        let required = ct.requiredSCTs.map { ", \($0) required" } ?? ""
        var s = output.dim("\(pad)SCTs: \(ct.countedSCTs) counted\(required) (\(ct.status.rawValue))") + "\n"
        for sct in ct.scts {
            let mark = sct.counted ? output.green("✓") : output.red("✗")
            let who = sct.log.map { "\($0), \(sct.operator ?? "?")" } ?? "log \(sct.logID)"
            let when = sct.timestamp.map { " · \(RFC3339.format($0))" } ?? ""
            let why = sct.reason.map { ": \($0)" } ?? ""
            s += "\(pad)  \(mark) " + output.dim("\(who)\(when)\(why)") + "\n"
        }
        return s
    }

    /// - Parameter store: the public roots' store, which names a system anchor ("a root of Apple's trust store").
    static func text(_ verdict: TrustVerdict, host: String?, colors output: Palette, store: TrustAnchors.Store = .system) -> String {
        var s = ""
        let summaries = verdict.chainSummaries
        for (i, c) in summaries.enumerated() {
            let indent = String(repeating: "   ", count: i)
            let branch = i == 0 ? "" : "└─ "
            let flag = verdict.failures.contains { $0.certificate == i } ? output.red(" ✗") : ""
            let anchorRole = "anchor (\(verdict.anchor?.rawValue ?? ""))"
            let role = i == 0 ? (verdict.leafIsAnchor ? "leaf, \(anchorRole)" : "leaf")
                : (i == summaries.count - 1 && verdict.anchor != nil ? anchorRole : "intermediate")
            s += "\(indent)\(branch)\(NameDisplay.plain(c.subject))\(flag)  \(output.dim("[\(role)]"))\n"
            let pad = indent + (i == 0 ? "   " : "      ")
            var facts = ["\(c.keyType)", c.signatureAlgorithm]
            if let nb = c.notValidBefore, let na = c.notValidAfter { facts.append("\(RFC3339.format(nb)) → \(RFC3339.format(na))") }
            s += output.dim("\(pad)\(facts.joined(separator: " · "))") + "\n"
            if i == 0 && !c.subjectAlternativeNames.isEmpty {
                let sans = c.subjectAlternativeNames.prefix(6).map(NameDisplay.escaped).joined(separator: ", ") + (c.subjectAlternativeNames.count > 6 ? ", … (\(c.subjectAlternativeNames.count))" : "")
                s += output.dim("\(pad)SAN \(sans)") + "\n"
            }
            s += output.dim("\(pad)SPKI sha256/\(c.spkiSHA256)") + "\n"
            if i == 0, let ct = verdict.certificateTransparency {
                s += sctLines(ct, pad: pad, colors: output)
                // Where CT applies, the list that decided it: a verdict made with an out-of-date fallback must say so.
                if ct.status != .notRequired { s += output.dim("\(pad)CT log list: \(ct.logList)") + "\n" }
            }
        }
        s += "\n"
        if verdict.isTrusted, verdict.anchor == nil {
            // An evaluator that checks pins without validation (`--skip-validation`) reached no anchor: "trusted,
            // anchored" would vouch for a chain nobody checked.
            s += output.yellow("✓ accepted") + (host.map { " for \($0)" } ?? "") + ", but the chain was not validated: no anchor vouches for it\n"
        } else if verdict.isTrusted {
            let from = verdict.anchor == .custom ? "a custom anchor" : (store == .apple ? "a root of Apple's trust store" : "a system root")
            s += output.green("✓ trusted") + (host.map { " for \($0)" } ?? "") + ", anchored at \(from)"
                + (verdict.leafIsAnchor ? ": the leaf is itself the anchor" : "") + "\n"
        } else {
            s += output.red("✗ not trusted") + (host.map { " for \($0)" } ?? "") + "\n"
            for f in verdict.failures {
                let at = f.certificate.map { " (certificate \($0))" } ?? ""
                s += "  • \(f.code.rawValue)\(at): \(FlagHints.adding(FlagHints.hint(for: f.code), to: f.message))\n"
            }
        }
        for note in verdict.notes { s += "  note: \(note)\n" }
        return s
    }
}
