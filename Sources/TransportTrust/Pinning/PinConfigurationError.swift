/// Why a pin, a pin set or a pin configuration cannot be used. Each error says where (file and line when
/// there is one), what is wrong, and how to fix it.
public struct PinConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem this is; stable, for programs and tests.
    public enum Code: String, Sendable, Codable, CaseIterable {
        /// A pin is not in any form this library reads.
        case malformedPin
        /// A hash decodes to the wrong number of bytes (SHA-256 pins are 32 bytes).
        case wrongHashLength
        /// An enforced pin set has fewer than two pins, so there is no backup pin.
        case missingBackupPin
        /// A pin set has no pins at all.
        case emptyPinSet
        /// includeSubdomains on a single label or a public suffix would pin every site under it.
        case subdomainsOnPublicSuffix
        /// A host name or pattern is not valid.
        case invalidHost
        /// The document is not valid plist, JSON or XML, or lacks its top-level structure.
        case malformedDocument
        /// A value has the wrong type (for example a string where a boolean is required).
        case wrongType
        /// A required key or element is missing.
        case missingKey
        /// A certificate used as a pin cannot be read.
        case unreadableCertificate
    }

    /// Which rule the file breaks; stable, for code that reacts to one.
    public var code: Code
    /// The file or input name, when the problem comes from one.
    public var source: String?
    /// The 1-based line, when the format has lines and it is known.
    public var line: Int?
    /// What is wrong.
    public var problem: String
    /// How to fix it.
    public var fix: String

    /// Text from the file reaches the problem and the fix: controls and invisible marks in it are written as escapes,
    /// so that a pin file copied from elsewhere cannot retitle or recolour the terminal that reads the error.
    public init(_ code: Code, source: String? = nil, line: Int? = nil, _ problem: String, fix: String) {
        self.code = code
        self.source = source
        self.line = line
        self.problem = NameDisplay.escaped(problem)
        self.fix = NameDisplay.escaped(fix)
    }

    /// The same error, placed in `source` (and at `line`) unless it already carries a place.
    public func placed(in source: String?, line: Int? = nil) -> PinConfigurationError {
        var e = self
        if e.source == nil { e.source = source }
        if e.line == nil { e.line = line }
        return e
    }

    public var description: String {
        var place = ""
        if let source { place = source + (line.map { ":\($0)" } ?? "") + ": " } else if let line { place = "line \(line): " }
        return "\(place)\(problem). \(fix)"
    }
}
