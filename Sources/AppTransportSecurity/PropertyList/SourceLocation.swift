/// A position in an XML property list: 1-based line and column (columns count Unicode scalars).
public struct SourceLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}
