import ATSDiagnostics
import Foundation
import Plot

/// `ats diagnose --format html` and `ats report merge --format html`: for each URL, nscurl's matrix as a table, the
/// smallest exception that makes it load, and the server's chain.
public enum DiagnoseHTMLReport {
    public static func render(_ hosts: [HostDiagnosis]) -> String {
        let results = hosts.map(\.defaultResult)
        var body: [Node<HTML.BodyContext>] = [
            HTMLPage.counts([("default ATS passes", results.filter { $0 == .pass }.count, "pass"),
                             ("fails", results.filter { $0 == .fail }.count, "fail"),
                             ("not testable here", results.filter { $0 == .notTestable }.count, "na")]),
        ]
        if hosts.count > 1 { body.append(overview(hosts)) }
        for host in hosts { body += section(host) }
        let subtitle = "nscurl --ats-diagnostics for \(hosts.count) URL\(hosts.count == 1 ? "" : "s")"
            + (hosts.first?.certificateTransparencyStatus.map { " · Certificate Transparency: \($0.summary)" } ?? "")
        return HTMLPage.render(title: "ATS diagnostics", subtitle: subtitle, body)
    }

    static func style(_ result: TestResult) -> String {
        switch result {
        case .pass: return "pass"
        case .fail: return "fail"
        case .notTestable: return "na"
        }
    }

    static func overview(_ hosts: [HostDiagnosis]) -> Node<HTML.BodyContext> {
        .table(.tr(.th("URL"), .th("Default ATS"), .th("Smallest exception that loads it")),
               .forEach(hosts) { d in
                   .tr(.td(HTMLPage.code(d.url)),
                       .td(HTMLPage.badge(d.defaultResult.rawValue, style: style(d.defaultResult))),
                       .td(.input(DiagnosisRendering.SummaryRow(d).exception)))
               })
    }

    static func section(_ d: HostDiagnosis) -> [Node<HTML.BodyContext>] {
        var nodes: [Node<HTML.BodyContext>] = [
            .h2(.input(d.url)),
            .p(.class("meta"), .input("\(d.platform ?? d.profile.rawValue) rules · trust store \(d.trustStore ?? "system") · \(d.milliseconds) ms")),
            .table(.tr(.th("Test"), .th("Result"), .th("Negotiated, or why not")),
                   .forEach(d.tests) { o in
                       .tr(.td(.input(o.test.title)),
                           .td(HTMLPage.badge(o.result.rawValue, style: style(o.result))),
                           .td(.input(detail(o))))
                   }),
            .h3("Smallest exception"),
            .p(.input(d.recommendation.summary)),
        ]
        if let xml = d.recommendation.xml { nodes.append(.pre(.input(xml))) }
        if !d.recommendation.serverFixes.isEmpty {
            nodes.append(.ul(.forEach(d.recommendation.serverFixes) { .li(.input($0)) }))
        }
        if !d.chain.isEmpty {
            nodes.append(.h3("Chain"))
            nodes.append(.ul(.class("chain"), .forEach(d.chain) { c in
                .li(.class(c.atsVerdict == ["ok"] ? "" : "failing"),
                    .strong(.input(c.subject)), .input(" [\(c.role)]"),
                    .br(), HTMLPage.code("\(c.keyType) · \(c.signatureAlgorithm) · SPKI sha256/\(c.spkiSHA256)"),
                    .br(), .span(.class(c.atsVerdict == ["ok"] ? "" : "rule"), .input("ATS: \(c.atsVerdict.joined(separator: "; "))")))
            }))
        }
        if let ct = d.certificateTransparency {
            nodes.append(.p(.input("Certificate Transparency: \(ct.status.rawValue): \(ct.explanation)")))
        }
        return nodes
    }

    static func detail(_ o: TestOutcome) -> String {
        if o.passed, let version = o.tlsVersion { return "\(version), \(o.cipherSuite ?? "unknown suite")\(o.status.map { ", HTTP \($0)" } ?? "")" }
        if let reason = o.notTestableReason { return reason }
        return o.failure?.message ?? ""
    }
}
