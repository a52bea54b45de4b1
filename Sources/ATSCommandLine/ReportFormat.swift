import ArgumentParser

/// `--format text|json|html` for the commands whose report is a chain or a diagnosis; `--json` stays as the short form
/// of `--format json`.
enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, html

    /// The format from `--format` and `--json` together; a usage error when they disagree.
    static func chosen(_ format: ReportFormat?, json: Bool) throws -> ReportFormat {
        if json, let format, format != .json {
            throw ValidationError("--json and --format \(format.rawValue) ask for two formats; keep one")
        }
        return json ? .json : format ?? .text
    }
}
