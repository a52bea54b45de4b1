import Foundation

/// Validates a SARIF log, as `ats audit --format sarif` writes it, against the SARIF 2.1.0 required properties
/// (OASIS SARIF v2.1.0, §3.13 sarifLog, §3.14 run, §3.18 tool, §3.19 toolComponent, §3.27 result, §3.28 location,
/// §3.29 physicalLocation, §3.30 region, §3.49 reportingDescriptor) and GitHub code scanning's additional
/// expectations. Written from the specification; nothing is fetched. Shared by the audit's tests and the command's.
public enum SARIFValidator {
    /// The first violation found.
    public enum SARIFError: Error, CustomStringConvertible {
        case invalid(String)
        public var description: String { if case .invalid(let s) = self { return s }; return "" }
    }

    private static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw SARIFError.invalid(message()) }
    }

    /// Returns the number of results; throws on the first violation.
    public static func validate(_ text: String) throws -> Int {
        let any = try JSONSerialization.jsonObject(with: Data(text.utf8))
        guard let log = any as? [String: Any] else { throw SARIFError.invalid("the log is not an object") }
        try require(log["version"] as? String == "2.1.0", "version must be \"2.1.0\"")
        if let schema = log["$schema"] { try require(schema is String, "$schema must be a string") }
        guard let runs = log["runs"] as? [[String: Any]] else { throw SARIFError.invalid("runs must be an array of objects") }
        var total = 0
        for run in runs {
            guard let tool = run["tool"] as? [String: Any], let driver = tool["driver"] as? [String: Any] else {
                throw SARIFError.invalid("run.tool.driver is required")
            }
            try require((driver["name"] as? String).map { !$0.isEmpty } == true, "tool.driver.name is required")
            let rules = driver["rules"] as? [[String: Any]] ?? []
            var ids: [String] = []
            for rule in rules {
                guard let id = rule["id"] as? String, !id.isEmpty else { throw SARIFError.invalid("every rule needs an id") }
                ids.append(id)
                if let sd = rule["shortDescription"] { try require((sd as? [String: Any])?["text"] is String, "\(id): shortDescription.text") }
                if let level = (rule["defaultConfiguration"] as? [String: Any])?["level"] as? String {
                    try require(["none", "note", "warning", "error"].contains(level), "\(id): bad default level \(level)")
                }
                // GitHub: security-severity must parse as a number from 0.0 to 10.0.
                if let sev = (rule["properties"] as? [String: Any])?["security-severity"] {
                    let value = (sev as? String).flatMap(Double.init)
                    try require(value.map { (0...10).contains($0) } == true, "\(id): security-severity must be a number 0–10")
                }
                if let uri = rule["helpUri"] as? String { try require(URL(string: uri)?.scheme != nil, "\(id): helpUri must be absolute") }
            }
            try require(Set(ids).count == ids.count, "rule ids must be unique")
            guard let results = run["results"] as? [[String: Any]] else { throw SARIFError.invalid("run.results must be an array") }
            for (i, result) in results.enumerated() {
                guard let message = result["message"] as? [String: Any], let text = message["text"] as? String, !text.isEmpty else {
                    throw SARIFError.invalid("result \(i): message.text is required")
                }
                guard let ruleId = result["ruleId"] as? String else { throw SARIFError.invalid("result \(i): ruleId (GitHub requires it)") }
                try require(ids.contains(ruleId), "result \(i): ruleId \(ruleId) is not among the driver's rules")
                if let index = result["ruleIndex"] as? Int {
                    try require(index >= 0 && index < rules.count && rules[index]["id"] as? String == ruleId, "result \(i): ruleIndex does not point at \(ruleId)")
                }
                if let level = result["level"] as? String {
                    try require(["none", "note", "warning", "error"].contains(level), "result \(i): bad level \(level)")
                }
                guard let locations = result["locations"] as? [[String: Any]], !locations.isEmpty else {
                    throw SARIFError.invalid("result \(i): GitHub needs at least one location")
                }
                for location in locations {
                    guard let physical = location["physicalLocation"] as? [String: Any],
                          let artifact = physical["artifactLocation"] as? [String: Any],
                          let uri = artifact["uri"] as? String, !uri.isEmpty else {
                        throw SARIFError.invalid("result \(i): physicalLocation.artifactLocation.uri is required")
                    }
                    try require(URL(string: uri) != nil, "result \(i): uri '\(uri)' is not a valid URI reference")
                    try require(!uri.contains("\\"), "result \(i): uri must use forward slashes")
                    if let region = physical["region"] as? [String: Any] {
                        let line = region["startLine"] as? Int
                        try require(line.map { $0 >= 1 } == true, "result \(i): region.startLine must be ≥ 1")
                        if let column = region["startColumn"] { try require((column as? Int).map { $0 >= 1 } == true, "result \(i): startColumn ≥ 1") }
                    }
                }
                if let fingerprints = result["partialFingerprints"] {
                    try require((fingerprints as? [String: Any])?.values.allSatisfy { $0 is String } == true, "result \(i): fingerprints are strings")
                }
            }
            total += results.count
        }
        return total
    }
}
