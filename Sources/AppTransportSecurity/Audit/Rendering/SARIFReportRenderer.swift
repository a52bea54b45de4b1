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

    /// The SARIF 2.1.0 document of `report`, pretty-printed JSON with sorted keys.
    public func render(_ report: AuditReport) -> String {
        let rules = AuditRule.allCases
        let document: [String: Any] = [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [[
                "tool": ["driver": [
                    "name": "ats",
                    "semanticVersion": toolVersion,
                    "informationUri": "https://developer.apple.com/documentation/security/preventing-insecure-network-connections",
                    "rules": rules.map(Self.rule),
                ]],
                "results": report.findings.map { Self.result($0, ruleIndex: rules.firstIndex(of: $0.rule) ?? 0) },
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

    /// A `reportingDescriptor`: the rule's metadata, with the `security-severity` GitHub ranks alerts by.
    private static func rule(_ r: AuditRule) -> [String: Any] {
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

    /// A `result`: one finding, with its location and a fingerprint that stays put while the file changes around it.
    private static func result(_ f: Finding, ruleIndex: Int) -> [String: Any] {
        // A member of an .app folder is a file of its own: it is the artifact. Lines inside an .ipa's member
        // are not lines of the artifact GitHub shows: point at the archive's first line and name the member
        // and position in the message instead.
        let archived = f.member != nil && f.memberInArchive
        var text = f.message
        if archived, let member = f.member { text += " (in \(member)\(f.location.map { ", line \($0.line)" } ?? ""))" }
        text += ". Fix: \(f.fix)"
        let fingerprint = [f.rule.id, f.file, f.member ?? "", f.keyPath?.description ?? "", f.domain ?? ""].joined(separator: "|")
        return [
            "ruleId": f.rule.id,
            "ruleIndex": ruleIndex,
            "level": f.severity.sarifLevel,
            "message": ["text": text],
            "locations": [location(f, archived: archived)],
            "partialFingerprints": ["atsFinding/v1": fingerprint],
            "properties": ["severity": f.severity.rawValue, "security-severity": f.severity.securitySeverity],
        ]
    }

    /// A `location`: the artifact and line, and the key path (and .ipa member) as logical locations.
    private static func location(_ f: Finding, archived: Bool) -> [String: Any] {
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
        return location
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
