import Foundation

/// A property-list value with its type kept exactly as written.
///
/// Foundation bridges `<integer>1</integer>` to `true` when asked `as? Bool` (on Linux even `is Bool`
/// answers yes), so this type is built by inspecting the concrete class of each object instead:
/// see `PlistValue.init(foundation:depth:)`.
public enum PlistValue: Sendable, Equatable {
    /// `<true/>` or `<false/>`.
    case boolean(Bool)
    /// `<integer>`.
    case integer(Int64)
    /// `<real>`.
    case real(Double)
    /// `<string>`.
    case string(String)
    /// `<date>`.
    case date(Date)
    /// `<data>`.
    case data(Data)
    /// `<array>`, in order.
    case array([PlistValue])
    /// `<dict>`, by key.
    case dictionary([String: PlistValue])

    /// The property-list element name of this value's type, as a person would write it in XML.
    public var kind: PlistKind {
        switch self {
        case .boolean: return .boolean
        case .integer: return .integer
        case .real: return .real
        case .string: return .string
        case .date: return .date
        case .data: return .data
        case .array: return .array
        case .dictionary: return .dictionary
        }
    }

    /// A short rendering for messages: `<integer>1</integer>`, `<string>NO</string>`, `<dict> (3 keys)`.
    public var snippet: String {
        switch self {
        case .boolean(let b): return b ? "<true/>" : "<false/>"
        case .integer(let i): return "<integer>\(i)</integer>"
        case .real(let d): return "<real>\(d)</real>"
        case .string(let s): return "<string>\(s.count > 40 ? String(s.prefix(40)) + "…" : s)</string>"
        case .date(let d): return "<date>\(d)</date>"
        case .data(let d): return "<data> (\(d.count) bytes)"
        case .array(let a): return "<array> (\(a.count) items)"
        case .dictionary(let d): return "<dict> (\(d.count) keys)"
        }
    }

    /// Converts what `PropertyListSerialization` returned, keeping Booleans and integers apart.
    ///
    /// On Linux, Booleans arrive as Swift `Bool` and integers as `NSNumber` whose `objCType` is an
    /// integer code; on Darwin, Booleans arrive as `__NSCFBoolean` (a `CFBoolean`). Both are checked.
    /// - Throws: ``PropertyListError/tooDeep`` past `maximumDepth`, ``PropertyListError/unsupportedValue``
    ///   for a dictionary key that is not a string.
    init(foundation any: Any, depth: Int = 0, maximumDepth: Int = PropertyListReader.maximumDepth) throws(PropertyListError) {
        guard depth <= maximumDepth else { throw .tooDeep(limit: maximumDepth, location: nil) }
        if Self.isBoolean(any) {
            self = .boolean((any as? Bool) ?? false)
            return
        }
        switch any {
        case let s as String:
            self = .string(s)
        case let d as Date:
            self = .date(d)
        case let d as Data:
            self = .data(d)
        case let n as NSNumber:
            let code = String(cString: n.objCType)
            if code == "d" || code == "f" { self = .real(n.doubleValue) } else { self = .integer(n.int64Value) }
        case let a as [Any]:
            var items: [PlistValue] = []
            items.reserveCapacity(a.count)
            for item in a { items.append(try PlistValue(foundation: item, depth: depth + 1, maximumDepth: maximumDepth)) }
            self = .array(items)
        case let d as [String: Any]:
            var out: [String: PlistValue] = [:]
            for (k, v) in d { out[k] = try PlistValue(foundation: v, depth: depth + 1, maximumDepth: maximumDepth) }
            self = .dictionary(out)
        default:
            throw .unsupportedValue(String(describing: type(of: any)))
        }
    }

    /// Whether a Foundation object is a real property-list Boolean (`<true/>`, `<false/>`), not a number.
    static func isBoolean(_ any: Any) -> Bool {
        if type(of: any) == Bool.self { return true }
        #if canImport(Darwin)
        if let n = any as? NSNumber { return CFGetTypeID(n) == CFBooleanGetTypeID() }
        #endif
        return false
    }

    /// The value as a Foundation object, for writing with `PropertyListSerialization`.
    package var foundationObject: Any {
        switch self {
        case .boolean(let b): return b
        case .integer(let i): return NSNumber(value: i)
        case .real(let d): return NSNumber(value: d)
        case .string(let s): return s
        case .date(let d): return d
        case .data(let d): return d
        case .array(let a): return a.map(\.foundationObject)
        case .dictionary(let d): return d.mapValues(\.foundationObject)
        }
    }
}

/// The type of a property-list value, named as in XML property lists.
public enum PlistKind: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// `<true/>` or `<false/>`.
    case boolean = "Boolean"
    /// `<integer>`.
    case integer = "Integer"
    /// `<real>`.
    case real = "Real"
    /// `<string>`.
    case string = "String"
    /// `<date>`.
    case date = "Date"
    /// `<data>`, base64 in XML.
    case data = "Data"
    /// `<array>`.
    case array = "Array"
    /// `<dict>`.
    case dictionary = "Dictionary"

    public var description: String { rawValue }

    /// The name with its article, for sentences: "an Array", "a String".
    package var withArticle: String { (self == .array || self == .integer ? "an " : "a ") + rawValue }

    /// How to write a value of this kind in XML, for fix-it messages.
    package var xmlExample: String {
        switch self {
        case .boolean: return "<true/> or <false/>"
        case .integer: return "<integer>…</integer>"
        case .real: return "<real>…</real>"
        case .string: return "<string>…</string>"
        case .date: return "<date>…</date>"
        case .data: return "<data>…</data>"
        case .array: return "<array>…</array>"
        case .dictionary: return "<dict>…</dict>"
        }
    }
}
