import TransportTrust
/// Why requirements could not be resolved.
public enum RequirementsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL cannot be checked, with why.
    case invalidURL(String, reason: String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): return "\(NameDisplay.quoted(url)) is not a URL ATS can check: \(reason)"
        }
    }
}
