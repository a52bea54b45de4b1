import AppTransportSecurity
import Foundation
import TransportTrust

/// Renders a diagnosis: nscurl's text layout (with our additions after it) or one JSON document.
public enum DiagnosisRendering {
    static let rule = String(repeating: "=", count: 80)

    /// nscurl's layout: its header, 80 `=` between sections, each test between `---` lines, `Result : PASS/FAIL`.
    /// Beyond nscurl: the negotiated version and suite of each passing test, then the chain and the recommendation.
    /// `verbose` adds each test's ATS dictionary and error, as `nscurl --verbose`, plus our reasons.
    public static func text(_ d: HostDiagnosis, verbose: Bool) -> String {
        var out: [String] = [
            "Starting ATS Diagnostics",
            "",
            "Configuring ATS Info.plist keys and displaying the result of HTTPS loads to \(d.url).",
            "A test will \"PASS\" if URLSession:task:didCompleteWithError: returns a nil error.",
            "Use '--verbose' to view the ATS dictionaries used and to display the error received in URLSession:task:didCompleteWithError:.",
        ] + (d.certificateTransparencyStatus.map { ["Certificate Transparency: \($0.summary)."] } ?? [])
            + (d.question.map { [$0] } ?? []) + [rule]
        for section in NSCurlSection.allCases {
            let tests = d.tests.filter { $0.test.section == section }
            out.append("")
            out.append(section.title(host: d.host))
            for (i, outcome) in tests.enumerated() {
                // nscurl puts no blank line between the first section's title and its test.
                if section != .defaultSecureConnection || i > 0 { out.append("") }
                out += testLines(outcome, host: d.host, verbose: verbose)
            }
            out.append("")
            out.append(rule)
        }
        out += ["", "Negotiated and chain (\(d.platform ?? d.profile.rawValue) rules)", "---"]
        out += chainLines(d)
        out += ["---", "", "Recommendation", "---"]
        out += recommendationLines(d.recommendation)
        if !d.untestableSuites.isEmpty {
            out.append("Not testable here: \(d.untestableSuites.joined(separator: ", ")) (ATS allows them; BoringSSL cannot offer them, so no test here passes or fails on them)")
        }
        out += ["---", ""]
        return out.joined(separator: "\n") + "\n"
    }

    static func testLines(_ o: TestOutcome, host: String, verbose: Bool) -> [String] {
        var lines = ["---", o.test.title]
        if verbose {
            lines.append("ATS Dictionary:")
            lines.append(PlistRendering.description(o.test.relaxation.dictionary(host: host)))
        }
        lines.append("Result : \(o.result.rawValue)")
        if o.passed, let version = o.tlsVersion {
            lines.append("Negotiated : \(version), \(o.cipherSuite ?? "unknown suite"), ALPN \(o.alpn ?? "none")\(o.status.map { ", HTTP \($0)" } ?? "")")
        } else if o.passed, let status = o.status {
            lines.append("Negotiated : plain HTTP, HTTP \(status)")
        }
        if let reason = o.notTestableReason { lines.append("Not testable : \(reason)") }
        if verbose, let failure = o.failure {
            lines.append("Error : \(failure.apple.nsErrorDescription)")
            var codes = "\(failure.apple.urlErrorName)"
            if let name = failure.apple.sslErrorName { codes += ", \(name)" }
            lines.append("Codes : \(codes) (closest Apple equivalents)")
            if let target = failure.redirectTarget { lines.append("At : the redirect target \(target)") }
            lines.append("Reason : \(failure.kind) during \(failure.phase): \(failure.message)")
            for reason in failure.reasons where !failure.message.contains(reason) { lines.append("  - \(reason)") }
        }
        lines.append("---")
        return lines
    }

    static func chainLines(_ d: HostDiagnosis) -> [String] {
        let passing = d.nscurlTests.filter { $0.passed && $0.tlsVersion != nil }
        var lines: [String] = []
        if let weakest = passing.min(by: { weaker($0, than: $1) }) {
            lines.append("Weakest negotiated : \(weakest.tlsVersion ?? "?"), \(weakest.cipherSuite ?? "?") (\(weakest.test.title))")
        }
        if d.chain.isEmpty { lines.append("No certificate chain was received.") }
        for (i, c) in d.chain.enumerated() {
            let sent = c.presented ? "" : ", not sent by the server"
            lines.append("[\(i)] \(c.role)\(sent): \(NameDisplay.plain(c.subject))")
            var facts = ["\(c.keyType)", c.signatureAlgorithm]
            if let from = c.notValidBefore, let to = c.notValidAfter { facts.append("valid \(RFC3339.day(from)) → \(RFC3339.day(to))") }
            lines.append("    \(facts.joined(separator: " · "))")
            if c.role == "leaf" {
                let names = c.subjectAlternativeNames.prefix(6).map(NameDisplay.escaped).joined(separator: ", ")
                lines.append("    SAN \(names.isEmpty ? "(none)" : names) — \(c.sanMatchesHost == true ? "matches" : "does NOT match") \(d.host)")
            }
            lines.append("    SPKI sha256/\(c.spkiSHA256)")
            lines.append("    ATS: \(c.atsVerdict.joined(separator: "; "))")
            for sct in c.scts {
                let who = sct.log.map { "\($0) (\(sct.operator ?? "?"))" } ?? "log \(sct.logID)"
                lines.append("    SCT \(sct.counted ? "counted" : "not counted"): \(who)\(sct.reason.map { ": \($0)" } ?? "")")
            }
        }
        // Said even when it passes: a PASS with CT not enforced (an out-of-date list) must not look like a CT pass.
        if let ct = d.certificateTransparency {
            lines.append("Certificate Transparency : \(ct.status.rawValue): \(ct.explanation)")
        }
        return lines
    }

    /// Orders negotiated connections: older version first, then suites without forward secrecy.
    static func weaker(_ a: TestOutcome, than b: TestOutcome) -> Bool {
        let va = a.tlsVersion.flatMap(TLSVersion.init(rawValue:)) ?? .tls13
        let vb = b.tlsVersion.flatMap(TLSVersion.init(rawValue:)) ?? .tls13
        if va != vb { return va < vb }
        let fa = a.cipherSuite.flatMap(CipherSuite.init(lookup:))?.hasForwardSecrecy ?? true
        let fb = b.cipherSuite.flatMap(CipherSuite.init(lookup:))?.hasForwardSecrecy ?? true
        return !fa && fb
    }

    static func recommendationLines(_ r: Recommendation) -> [String] {
        var lines = [r.summary]
        if let xml = r.xml {
            switch r.kind {
            case .arbitraryLoadsOnly: lines.append("The only Info.plist change that loads it (not recommended):")
            case .undecided: lines.append("If it does not load on a Mac, the least relaxed Info.plist change that loaded here:")
            default: lines.append("Add to Info.plist:")
            }
            lines.append(xml)
        }
        if !r.serverFixes.isEmpty {
            lines.append(r.kind == .noExceptionHelps ? "The server's operator must:" : "Better, so that no exception is needed, the server's operator should:")
            lines += r.serverFixes.map { "  - \($0)" }
        }
        return lines
    }

    // MARK: JSON

    /// One JSON document for one URL, on one line (so that many URLs make JSON Lines). Schema: docs/DIAGNOSE.md.
    public static func json(_ d: HostDiagnosis) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(JSONDocument(d)) else {
            return #"{"schema":"ats-diagnose/1","url":"","error":"the diagnosis could not be encoded"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The JSON document: the diagnosis plus a schema tag and the default result at the top.
    struct JSONDocument: Encodable {
        var schema = "ats-diagnose/1"
        var url: String
        var host: String
        var port: Int
        var profile: String
        var platform: String?
        var trustStore: String?
        var trustStoreVersion: Int?
        /// Always written when known: a PASS with CT not enforced must be visible to a program too.
        var certificateTransparency: CertificateTransparencyReport?
        /// Whether CT was enforced, and with which list (`ctLogList`): known before any connection.
        var certificateTransparencyStatus: CertificateTransparencyStatus?
        var defaultPasses: Bool
        var tests: [TestOutcome]
        var chain: [ChainEntry]
        var recommendation: Recommendation
        var untestableSuites: [String]
        var milliseconds: Int

        init(_ d: HostDiagnosis) {
            url = d.url
            host = d.host
            port = d.port
            profile = d.profile.rawValue
            platform = d.platform
            trustStore = d.trustStore
            trustStoreVersion = d.trustStoreVersion
            certificateTransparency = d.certificateTransparency
            certificateTransparencyStatus = d.certificateTransparencyStatus
            defaultPasses = d.defaultPasses
            tests = d.tests
            chain = d.chain
            recommendation = d.recommendation
            untestableSuites = d.untestableSuites
            milliseconds = d.milliseconds
        }
    }

    // MARK: Summary

    /// One row of the summary table.
    package struct SummaryRow: Sendable {
        /// The host, with its port unless 443 or 80.
        package var host: String
        /// The default ATS test's result.
        package var defaultResult: String
        /// The title of the test whose dictionary the recommendation takes, or why there is none.
        package var loadsWith: String
        /// The smallest exception to add, or that none is needed.
        package var exception: String

        /// The row of one diagnosis.
        package init(_ d: HostDiagnosis) {
            host = d.port == 443 || d.port == 80 ? d.host : "\(d.host):\(d.port)"
            defaultResult = d.outcome("default")?.result.rawValue ?? "?"
            loadsWith = d.recommendation.configuration.flatMap(ATSTestCase.named).map(\.title)
                ?? (d.recommendation.kind == .undecided ? "not known here" : "nothing")
            switch d.recommendation.kind {
            case .noneNeeded: exception = "none needed"
            case .exception: exception = d.recommendation.summary.components(separatedBy: ": ").dropFirst().joined(separator: ": ")
            case .arbitraryLoadsOnly: exception = "NSAllowsArbitraryLoads only (fix the server)"
            case .noExceptionHelps: exception = "none helps: fix the server"
            case .undecided: exception = "cannot be decided here (check on a Mac)"
            }
        }
    }

    /// The table printed after many URLs: host, default ATS result, the least relaxed configuration that loads,
    /// and the exception it needs.
    package static func summaryTable(_ rows: [SummaryRow]) -> String {
        let header = ["HOST", "DEFAULT", "LOADS WITH", "EXCEPTION NEEDED"]
        let cells = rows.map { [$0.host, $0.defaultResult, $0.loadsWith, $0.exception] }
        return table(header: header, rows: cells)
    }

    /// A plain left-aligned table.
    public static func table(header: [String], rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in i == cells.count - 1 ? c : c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}
