/// The findings of an audit, with what was audited.
public struct AuditReport: Sendable, Equatable, Codable {
    /// The release whose ATS rules the audit applied.
    public var profile: PlatformProfile
    /// The plists audited, for messages.
    public var sources: [String]
    /// Every finding, each with its rule, its place and its fix.
    public var findings: [Finding]
    /// How each plist was read, in the order of ``sources``: an Info.plist or a bare ATS dictionary, and why.
    public var readings: [Reading] = []

    /// How one plist was read.
    public struct Reading: Sendable, Equatable, Codable {
        /// The plist, as ``AuditReport/sources`` names it.
        public var source: String
        /// The reading taken: an Info.plist or a bare ATS dictionary.
        public var layout: ConfigurationSource.Layout
        /// Why, naming the keys that decided.
        public var reason: String

        /// A reading of `source` as `layout`, for `reason`.
        package init(source: String, layout: ConfigurationSource.Layout, reason: String) {
            self.source = source
            self.layout = layout
            self.reason = reason
        }
    }

    /// A report of `findings` on `sources` under `profile`.
    package init(profile: PlatformProfile, sources: [String], findings: [Finding], readings: [Reading] = []) {
        self.profile = profile
        self.sources = sources
        self.findings = findings
        self.readings = readings
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
