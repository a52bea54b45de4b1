/// A value read from the configuration, with the key that set it.
public struct Setting<Value: Sendable & Equatable>: Sendable, Equatable {
    /// The value read, of the key's type.
    public var value: Value
    /// The path from the `NSAppTransportSecurity` dictionary, e.g. `NSExceptionDomains › example.com › NSIncludesSubdomains`.
    public var keyPath: PlistKeyPath

    /// A `value` read at `keyPath`.
    package init(_ value: Value, at keyPath: PlistKeyPath) {
        self.value = value
        self.keyPath = keyPath
    }

    /// The key's name (the last path component).
    public var key: String { keyPath.last ?? "" }
}
