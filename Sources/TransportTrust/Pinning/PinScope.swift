/// Which certificates of the built chain a pin may match.
public enum PinScope: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Any certificate of the chain, leaf to anchor (TrustKit, OkHttp, Android).
    case any
    /// CA certificates only: every certificate above the leaf, anchor included (ATS `NSPinnedCAIdentities`).
    case ca
    /// The leaf only (ATS `NSPinnedLeafIdentities`).
    case leaf

    /// Whether the certificate at `index` of a chain (0 is the leaf) is in this scope.
    public func covers(index: Int) -> Bool {
        switch self {
        case .any: return true
        case .ca: return index > 0
        case .leaf: return index == 0
        }
    }

    public var description: String {
        switch self {
        case .any: return "any certificate"
        case .ca: return "a CA certificate"
        case .leaf: return "the leaf"
        }
    }
}
