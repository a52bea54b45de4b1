/// Why a property list could not be read. Each description says what was wrong, where, and how to fix it.
public enum PropertyListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input is larger than the 8 MiB limit.
    case tooLarge(bytes: Int, limit: Int)
    /// The input is empty.
    case empty
    /// Nesting deeper than the reader accepts (a hostile or corrupt file).
    case tooDeep(limit: Int, location: SourceLocation?)
    /// Foundation could not parse the property list.
    case malformed(format: String, reason: String, location: SourceLocation?)
    /// The bytes start as no property list does (XML `<`, binary `bplist`, OpenStep `{` or `(`): `start` shows them.
    case notAPropertyList(start: String)
    /// A binary property list's structure is broken (bad trailer, offsets out of range, a cycle).
    case corruptBinary(reason: String)
    /// The root is not a dictionary.
    case wrongRootType(found: PlistKind)
    /// A value Foundation returned that a property list cannot hold (for example a non-string dictionary key).
    case unsupportedValue(String)

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit):
            return "the file is \(bytes) bytes, more than the \(limit)-byte limit for an Info.plist; check that you passed the Info.plist and not another file"
        case .empty:
            return "the file is empty; an Info.plist is a property list whose root is a <dict>"
        case .tooDeep(let limit, let location):
            let at = location.map { " at line \($0.line), column \($0.column)" } ?? ""
            return "the property list nests containers more than \(limit) levels deep\(at); an Info.plist never needs that, so the file is corrupt or hostile"
        case .malformed(let format, let reason, let location):
            let at = location.map { " near line \($0.line), column \($0.column)" } ?? ""
            return "the \(format) property list cannot be parsed\(at): \(reason); fix the syntax (try `plutil -lint`) and run again"
        case .notAPropertyList(let start):
            return "the file is not a property list: it starts with \(start), where an XML plist starts with '<' and a binary one with 'bplist'; give the Info.plist itself"
        case .corruptBinary(let reason):
            return "the binary property list is corrupt: \(reason); regenerate it (`plutil -convert binary1`) or pass the XML form"
        case .wrongRootType(let found):
            return "the property list's root is \(found.withArticle), not a dictionary; an Info.plist or an NSAppTransportSecurity dictionary must start with <dict>"
        case .unsupportedValue(let what):
            return "the property list holds a value of type \(what) that this reader does not accept (dictionary keys must be strings)"
        }
    }
}
