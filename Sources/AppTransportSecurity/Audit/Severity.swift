/// How much a finding matters. Ordered: info < low < medium < high.
public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable, Codable, CustomStringConvertible {
    /// Worth knowing; loosens nothing (plain HTTP to localhost, say).
    case info
    /// Loosens little, or nothing on the releases that read it.
    case low
    /// Loosens ATS for some connections, or a key has no effect where the author expects one.
    case medium
    /// Turns ATS off, or weakens it for arbitrary connections.
    case high

    public var description: String { rawValue }

    private var rank: Int { Severity.allCases.firstIndex(of: self) ?? 0 }
    public static func < (l: Severity, r: Severity) -> Bool { l.rank < r.rank }

    /// The SARIF `level` for this severity.
    package var sarifLevel: String {
        switch self {
        case .high: return "error"
        case .medium: return "warning"
        case .low, .info: return "note"
        }
    }

    /// GitHub code scanning's `security-severity` score (0.0–10.0).
    package var securitySeverity: String {
        switch self {
        case .high: return "8.0"
        case .medium: return "5.0"
        case .low: return "3.0"
        case .info: return "0.0"
        }
    }
}
