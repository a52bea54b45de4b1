import AppTransportSecurity
import Plot

/// `ats audit --format html`: counts by severity, then each plist with the reading taken and its findings, each with
/// its key path, rule, evidence, fix and Apple's documentation.
public enum AuditHTMLReport {
    public static func render(_ report: AuditReport) -> String {
        let counts = report.counts
        var body: [Node<HTML.BodyContext>] = [
            HTMLPage.counts(Severity.allCases.reversed().map { ($0.rawValue, counts[$0] ?? 0, $0.rawValue) }),
        ]
        let byFile = Dictionary(grouping: report.findings) { f in f.member.map { "\(f.file) › \($0)" } ?? f.file }
        for source in report.sources {
            body.append(.h2(.input(source)))
            if let reading = report.readings.first(where: { $0.source == source }) {
                body.append(.p(.class("meta"), .input(reading.reason)))
            }
            let findings = (byFile[source] ?? []).sorted { ($0.severity, $1.location?.line ?? 0) > ($1.severity, $0.location?.line ?? 0) }
            guard !findings.isEmpty else {
                body.append(.p(HTMLPage.badge("no findings", style: "pass")))
                continue
            }
            body.append(table(findings))
        }
        let title = "ATS audit"
        let subtitle = "\(report.sources.count) plist\(report.sources.count == 1 ? "" : "s") under \(report.profile) rules · \(report.findings.count) finding\(report.findings.count == 1 ? "" : "s")"
        return HTMLPage.render(title: title, subtitle: subtitle, body)
    }

    static func table(_ findings: [Finding]) -> Node<HTML.BodyContext> {
        .table(.class("findings"),
               .tr(.th("Severity"), .th("Rule"), .th("Where"), .th("Finding"), .th("Fix"), .th("Apple's documentation")),
               .forEach(findings) { f in
                   .tr(
                       .td(HTMLPage.badge(f.severity.rawValue.uppercased(), style: f.severity.rawValue)),
                       .td(.input("\(f.rule.id) \(f.rule.name)")),
                       .td(HTMLPage.code(location(f))),
                       .td(.input(f.message)),
                       .td(.input(f.fix)),
                       // A constant of AuditRule, never input: Plot writes attributes as they are.
                       .td(.a(.href(f.rule.helpURL), .input(f.rule.helpURL.replacingOccurrences(of: "https://developer.apple.com", with: ""))))
                   )
               })
    }

    /// The key path, and the line and column when the plist is XML.
    static func location(_ f: Finding) -> String {
        let path = f.keyPath?.description ?? f.key ?? "(whole file)"
        return f.location.map { "\(path)\nline \($0.line), column \($0.column)" } ?? path
    }
}
