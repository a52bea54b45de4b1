/// Renders an audit for people: grouped by file, then by domain (global keys first), most severe first.
public struct TextReportRenderer: Sendable {
    /// Whether to use ANSI colours. Callers decide (the CLI honours `NO_COLOR`).
    public var color: Bool

    /// A renderer of text for a terminal; `color` adds ANSI colour.
    public init(color: Bool) { self.color = color }

    /// The report as text, as `ats audit` prints it.
    public func render(_ report: AuditReport) -> String {
        var s = ""
        let byFile = Dictionary(grouping: report.findings) { f in f.member.map { "\(f.file) › \($0)" } ?? f.file }
        for source in report.sources {
            let findings = byFile[source] ?? []
            s += paint(source, "1") + dim("  (\(report.profile))") + "\n"
            if let reading = report.readings.first(where: { $0.source == source }) { s += dim("  \(reading.reason)") + "\n" }
            if findings.isEmpty {
                s += "  " + paint("✓ no findings", "32") + "\n\n"
                continue
            }
            let groups = Dictionary(grouping: findings) { $0.domain ?? "" }
            for domain in groups.keys.sorted(by: { ($0.isEmpty ? 0 : 1, $0) < ($1.isEmpty ? 0 : 1, $1) }) {
                s += "  " + paint(domain.isEmpty ? "(global)" : domain, "1;36") + "\n"
                let items = (groups[domain] ?? []).sorted { ($1.severity, $1.location?.line ?? 0) < ($0.severity, $0.location?.line ?? 0) }
                for f in items.sorted(by: { $0.severity > $1.severity }) {
                    let at = f.location.map { dim("\($0.line):\($0.column) ") } ?? ""
                    s += "    \(badge(f.severity)) \(f.rule.id) \(at)\(f.message)\n"
                    s += dim("        fix: \(f.fix)") + "\n"
                }
            }
            s += "\n"
        }
        let counts = report.counts
        let summary = Severity.allCases.reversed().map { "\(counts[$0] ?? 0) \($0)" }.joined(separator: ", ")
        s += "\(report.findings.count) finding\(report.findings.count == 1 ? "" : "s"): \(summary)\n"
        return s
    }

    private func badge(_ severity: Severity) -> String {
        let label = severity.rawValue.uppercased().padding(toLength: 6, withPad: " ", startingAt: 0)
        switch severity {
        case .high: return paint(label, "1;31")
        case .medium: return paint(label, "1;33")
        case .low: return paint(label, "1;34")
        case .info: return paint(label, "2")
        }
    }

    private func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    private func dim(_ s: String) -> String { paint(s, "2") }
}

import Foundation
