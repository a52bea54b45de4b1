/// Why a requirement has its value: the key that decided it (nil for a built-in default) and the rule.
public struct Provenance: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The key's path from the `NSAppTransportSecurity` dictionary, or nil when no key decided.
    public var keyPath: PlistKeyPath?
    /// The rule applied, in words: "ATS default", "NSAllowsArbitraryLoads is ignored because …".
    public var rule: String

    /// A decision made by the key at `keyPath`, if any, under `rule` (in words).
    package init(keyPath: PlistKeyPath? = nil, rule: String) {
        self.keyPath = keyPath
        self.rule = rule
    }

    public var description: String {
        guard let keyPath else { return rule }
        return "\(keyPath) (\(rule))"
    }
}
