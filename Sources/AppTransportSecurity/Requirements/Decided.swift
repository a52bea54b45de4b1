/// A value and the provenance that decided it.
public struct Decided<Value: Sendable & Equatable>: Sendable, Equatable {
    public var value: Value
    public var because: Provenance

    public init(_ value: Value, _ because: Provenance) {
        self.value = value
        self.because = because
    }
}

extension Decided: Codable where Value: Codable {}
