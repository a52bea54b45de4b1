import Foundation
import Plot
import TransportTrust

/// `ats verify --format html`: the verdict, the chain as a tree from the leaf to the anchor with each failing
/// certificate marked and its rules under it, and Certificate Transparency.
public enum VerifyHTMLReport {
    public static func render(_ verdict: TrustVerdict, host: String?) -> String {
        let summaries = verdict.chainSummaries
        var body: [Node<HTML.BodyContext>] = [
            .p(HTMLPage.badge(verdict.isTrusted ? "TRUSTED" : "NOT TRUSTED", style: verdict.isTrusted ? "pass" : "fail"),
               .input(verdict.isTrusted ? " The chain reaches an anchor and passes every rule." : " \(verdict.failures.count) rule\(verdict.failures.count == 1 ? "" : "s") refused it.")),
        ]
        if !summaries.isEmpty {
            body.append(.h2("Chain"))
            body.append(tree(summaries, verdict: verdict, at: 0))
        }
        let unplaced = verdict.failures.filter { $0.certificate == nil || $0.certificate.map { $0 >= summaries.count } == true }
        if !unplaced.isEmpty {
            body.append(.h2("Other reasons"))
            body.append(.ul(.forEach(unplaced) { .li(.class("rule"), .input("\($0.code.rawValue): \($0.message)")) }))
        }
        if let ct = verdict.certificateTransparency {
            body.append(.h2("Certificate Transparency"))
            body.append(.p(.input("\(ct.status.rawValue): \(ct.explanation)")))
            if ct.status != .notRequired { body.append(.p(.class("meta"), .input("CT log list: \(ct.logList)"))) }
            if !ct.scts.isEmpty {
                body.append(.ul(.forEach(ct.scts) { sct in
                    .li(.input("\(sct.counted ? "counted" : "not counted"): \(sct.log ?? sct.logID)\(sct.reason.map { " — \($0)" } ?? "")"))
                }))
            }
        }
        let subtitle = "\(host.map { "for \($0)" } ?? "basic X.509 policy") · \(summaries.count) certificate\(summaries.count == 1 ? "" : "s")"
        return HTMLPage.render(title: "Chain verdict", subtitle: subtitle, body)
    }

    /// The certificate at `index` and, nested under it, the one that issued it.
    static func tree(_ summaries: [CertificateSummary], verdict: TrustVerdict, at index: Int) -> Node<HTML.BodyContext> {
        let c = summaries[index]
        let failures = verdict.failures.filter { $0.certificate == index }
        let role = index == 0 ? "leaf" : index == summaries.count - 1 && verdict.anchor != nil ? "anchor" : "intermediate"
        var item: [Node<HTML.BodyContext>] = [
            .strong(.input(c.subject)), .input(" [\(role)]"),
            .br(), HTMLPage.code("\(c.keyType) · \(c.signatureAlgorithm)\(validity(c)) · SPKI sha256/\(c.spkiSHA256)"),
        ]
        if index == 0 && !c.subjectAlternativeNames.isEmpty { item += [.br(), .input("SAN: \(c.subjectAlternativeNames.joined(separator: ", "))")] }
        if !failures.isEmpty { item.append(.ul(.forEach(failures) { .li(.class("rule"), .input("✗ \($0.code.rawValue): \($0.message)")) })) }
        // The mark is on this certificate only; its issuer, nested below, has its own.
        let own: Node<HTML.BodyContext> = .div(.class(failures.isEmpty ? "cert" : "cert failing"), .group(item))
        let issuer: Node<HTML.BodyContext> = index + 1 < summaries.count ? tree(summaries, verdict: verdict, at: index + 1) : .empty
        return .ul(.class("chain"), .li(own, issuer))
    }

    static func validity(_ c: CertificateSummary) -> String {
        guard let from = c.notValidBefore, let until = c.notValidAfter else { return "" }
        return " · \(RFC3339Text.format(from)) → \(RFC3339Text.format(until))"
    }
}
