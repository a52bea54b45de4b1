/// The keys leading to a value, from the root of the property list (array items are numbered from 0).
public struct PlistKeyPath: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The keys, outermost first.
    public var components: [String]

    /// A path through these keys, outermost first.
    public init(_ components: [String]) { self.components = components }

    /// Appends one key.
    public func appending(_ key: String) -> PlistKeyPath { PlistKeyPath(components + [key]) }

    /// The path as shown to people: `NSExceptionDomains › example.com › NSIncludesSubdomains`.
    public var description: String { components.joined(separator: " › ") }

    /// The last key, if any.
    public var last: String? { components.last }
}
