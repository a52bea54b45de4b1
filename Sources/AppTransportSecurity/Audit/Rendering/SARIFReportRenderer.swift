import Foundation

/// Renders an audit as SARIF 2.1.0 for GitHub code scanning.
///
/// Follows the OASIS SARIF 2.1.0 required properties (`version`, `runs`, `tool.driver.name`,
/// `result.message.text`) and GitHub's expectations: rule metadata with `security-severity`, a physical
/// location with a relative `artifactLocation.uri` and a `region.startLine` on every result, and
/// `partialFingerprints` for de-duplication.
public struct SARIFReportRenderer: Sendable {
    /// The version the SARIF `tool` object names.
    public var toolVersion: String

    /// A SARIF 2.1.0 renderer that names this tool version.
    public init(toolVersion: String) { self.toolVersion = toolVersion }

    /// Long on purpose: the SARIF 2.1.0 document is built in the shape it is written, top to bottom.
    public func render(_ report: AuditReport) -> String {
        let rules = AuditRule.allCases
        let ruleObjects: [[String: Any]] = rules.map { r in
            [
                "id": r.id,
                "name": r.name,
                "shortDescription": ["text": r.summary],
                "fullDescription": ["text": r.summary],
                "helpUri": r.helpURL,
                "help": ["text": "\(r.summary) See \(r.helpURL)"],
                "defaultConfiguration": ["level": r.defaultSeverity.sarifLevel],
                "properties": ["tags": ["security", "app-transport-security"], "security-severity": r.defaultSeverity.securitySeverity],
            ]
        }
        let results: [[String: Any]] = report.findings.map { f in
            // A member of an .app folder is a file of its own: it is the artifact. Lines inside an .ipa's member
            // are not lines of the artifact GitHub shows: point at the archive's first line and name the member
            // and position in the message instead.
            let archived = f.member != nil && f.memberInArchive
            let ownLocation = archived ? nil : f.location
            let artifact = f.member.map { archived ? f.file : Self.join(f.file, $0) } ?? f.file
            var region: [String: Any] = ["startLine": ownLocation?.line ?? 1]
            if let c = ownLocation?.column { region["startColumn"] = c }
            var location: [String: Any] = [
                "physicalLocation": [
                    "artifactLocation": ["uri": Self.uri(artifact)],
                    "region": region,
                ],
            ]
            var logical: [[String: Any]] = []
            if archived, let member = f.member { logical.append(["name": member, "kind": "module"]) }
            if let keyPath = f.keyPath, !keyPath.components.isEmpty {
                logical.append(["fullyQualifiedName": keyPath.components.joined(separator: "/"), "kind": "member"])
            }
            if !logical.isEmpty { location["logicalLocations"] = logical }
            var text = f.message
            if archived, let member = f.member { text += " (in \(member)\(f.location.map { ", line \($0.line)" } ?? ""))" }
            text += ". Fix: \(f.fix)"
            let fingerprint = [f.rule.id, f.file, f.member ?? "", f.keyPath?.description ?? "", f.domain ?? ""].joined(separator: "|")
            return [
                "ruleId": f.rule.id,
                "ruleIndex": rules.firstIndex(of: f.rule) ?? 0,
                "level": f.severity.sarifLevel,
                "message": ["text": text],
                "locations": [location],
                "partialFingerprints": ["atsFinding/v1": fingerprint],
                "properties": ["severity": f.severity.rawValue, "security-severity": f.severity.securitySeverity],
            ]
        }
        let document: [String: Any] = [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [[
                "tool": ["driver": [
                    "name": "ats",
                    "semanticVersion": toolVersion,
                    "informationUri": "https://developer.apple.com/documentation/security/preventing-insecure-network-connections",
                    "rules": ruleObjects,
                ]],
                "results": results,
                "columnKind": "unicodeCodePoints",
                // How each plist was read: the findings mean different things for an Info.plist and a bare dictionary.
                "properties": ["readings": report.readings.map { ["source": $0.source, "layout": $0.layout.rawValue, "reason": $0.reason] }],
            ]],
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else {
            return #"{"version":"2.1.0","runs":[]}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// A folder and a path inside it: `My.app` + `Info.plist` → `My.app/Info.plist`.
    static func join(_ folder: String, _ member: String) -> String {
        folder.hasSuffix("/") ? folder + member : folder + "/" + member
    }

    /// A relative URI reference for a path: forward slashes, percent-encoded, no leading `./`.
    static func uri(_ path: String) -> String {
        var p = path.replacingOccurrences(of: "\\", with: "/")
        while p.hasPrefix("./") { p.removeFirst(2) }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ":")
        let encoded = p.addingPercentEncoding(withAllowedCharacters: allowed) ?? p
        return p.hasPrefix("/") ? "file://" + encoded : encoded
    }
}
