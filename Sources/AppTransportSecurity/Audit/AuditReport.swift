/// The findings of an audit, with what was audited.
public struct AuditReport: Sendable, Equatable, Codable {
    public var profile: PlatformProfile
    /// The plists audited, for messages.
    public var sources: [String]
    public var findings: [Finding]

    public init(profile: PlatformProfile, sources: [String], findings: [Finding]) {
        self.profile = profile
        self.sources = sources
        self.findings = findings
    }

    /// Findings at or above `severity`.
    public func findings(atLeast severity: Severity) -> [Finding] { findings.filter { $0.severity >= severity } }

    /// The exit status for `--fail-on`: 1 when any finding reaches the threshold, else 0.
    public func exitStatus(failOn threshold: Severity) -> Int32 { findings(atLeast: threshold).isEmpty ? 0 : 1 }

    /// How many findings of each severity.
    public var counts: [Severity: Int] {
        var c: [Severity: Int] = [:]
        for f in findings { c[f.severity, default: 0] += 1 }
        return c
    }
}
