import Foundation

/// Renders an audit as one JSON object: `{"tool", "profile", "sources", "readings", "summary", "findings"}`.
public struct JSONReportRenderer: Sendable {
    /// A renderer of the report's JSON shape (docs/ATS.md).
    public init() {}

    struct Document: Encodable {
        var tool = "ats audit"
        var profile: String
        var sources: [String]
        /// How each plist was read (Info.plist or bare ATS dictionary) and why.
        var readings: [AuditReport.Reading]
        var summary: [String: Int]
        var findings: [Finding]
    }

    /// The report as one JSON document.
    public func render(_ report: AuditReport) -> String {
        var summary: [String: Int] = [:]
        for s in Severity.allCases { summary[s.rawValue] = report.counts[s] ?? 0 }
        let doc = Document(profile: report.profile.rawValue, sources: report.sources, readings: report.readings, summary: summary, findings: report.findings)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(doc) else { return #"{"error":"the report could not be encoded"}"# }
        return String(decoding: data, as: UTF8.self)
    }
}
