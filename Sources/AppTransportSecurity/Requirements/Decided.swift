/// A value and the provenance that decided it.
public struct Decided<Value: Sendable & Equatable>: Sendable, Equatable {
    /// What was decided.
    public var value: Value
    /// The key and rule that decided it.
    public var because: Provenance

    /// A `value` decided `because` of a key or a rule.
    package init(_ value: Value, _ because: Provenance) {
        self.value = value
        self.because = because
    }
}

extension Decided: Codable where Value: Codable {}
