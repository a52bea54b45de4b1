/// Something about a pin configuration that works but deserves attention. Warnings never stop a
/// configuration from loading; errors (``PinConfigurationError``) do.
public struct PinConfigurationWarning: Sendable, Equatable, CustomStringConvertible {
    /// The kind of warning, stable for tools that filter them.
    public enum Code: String, Sendable, Codable, CaseIterable {
        /// A `sha1/` pin: accepted for old configurations, but SHA-1 is no longer collision resistant.
        case legacySHA1
        /// The pin set's expiration date is in the past, so it no longer enforces anything.
        case expired
        /// A report-only pin set with a single pin: reports will not show a backup.
        case noBackupPin
        /// A pin could not be expressed in the output format and was written in the nearest form.
        case lossyConversion
        /// The file is read differently from how its own system reads it (a setting not applied here, or a key that
        /// system does not recognise); the message says how.
        case differsFromSource
    }

    /// Which rule the warning is about; stable.
    public var code: Code
    /// The file or argument the configuration came from, when known.
    public var source: String?
    /// The line, from 1, when the format has lines.
    public var line: Int?
    /// What was read differently than the author may expect, in words.
    public var message: String

    /// A warning about one rule, with the place it points to.
    ///
    ///  - Parameters:
    ///    - code: the rule the warning is about.
    ///    - source: the file or argument the configuration came from.
    ///    - line: the line, from 1, when the format has lines.
    ///    - message: what was read differently than the author may expect.
    package init(_ code: Code, source: String? = nil, line: Int? = nil, _ message: String) {
        self.code = code
        self.source = source
        self.line = line
        self.message = message
    }

    public var description: String {
        var place = ""
        if let source { place = source + (line.map { ":\($0)" } ?? "") + ": " }
        return "warning: \(place)\(message)"
    }
}
