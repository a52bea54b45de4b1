import Foundation

/// Validates JSON against the subset of JSON Schema that docs/diagnose.schema.json uses: `type` (object, array,
/// string, integer, number, boolean), `required`, `properties`, `additionalProperties: false`, `items`, `enum`.
/// A keyword outside that subset is itself reported, so the schema cannot silently outgrow the checker. Shared by the
/// diagnostics tests and the command's.
public struct SchemaValidator {
    /// The schema of `ats diagnose --json`.
    public static let diagnoseSchemaPath = Repository.root.appendingPathComponent("docs/diagnose.schema.json").path

    static let known: Set<String> = ["$schema", "$id", "title", "type", "required", "properties", "additionalProperties", "items", "enum"]

    /// Every violation, each with its JSON path; empty when the value conforms.
    public static func violations(of value: Any, against schema: [String: Any], at path: String = "$") -> [String] {
        var found: [String] = []
        for key in schema.keys where !known.contains(key) { found.append("\(path): schema keyword '\(key)' is not supported by this checker") }
        if let type = schema["type"] as? String, !matches(value, type: type) {
            return found + ["\(path): expected \(type), got \(Swift.type(of: value))"]
        }
        if let options = schema["enum"] as? [Any], !options.contains(where: { "\($0)" == "\(value)" }) {
            found.append("\(path): \(value) is not one of \(options)")
        }
        if let object = value as? [String: Any] {
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { found.append("\(path): missing required '\(key)'") }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (key, child) in object {
                if let childSchema = properties[key] as? [String: Any] {
                    found += violations(of: child, against: childSchema, at: "\(path).\(key)")
                } else if schema["additionalProperties"] as? Bool == false {
                    found.append("\(path): property '\(key)' is not in the schema")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (i, item) in array.enumerated() { found += violations(of: item, against: items, at: "\(path)[\(i)]") }
        }
        return found
    }

    private static func matches(_ value: Any, type: String) -> Bool {
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "boolean": return isBoolean(value)
        case "integer":
            guard !isBoolean(value), let n = value as? NSNumber else { return false }
            return n.doubleValue == n.doubleValue.rounded()
        case "number": return !isBoolean(value) && value is NSNumber
        default: return false
        }
    }

    /// JSONSerialization gives Booleans as a Boolean NSNumber subclass (`__NSCFBoolean`), not as Swift Bool.
    private static func isBoolean(_ value: Any) -> Bool {
        if type(of: value) == Bool.self || String(describing: type(of: value)).contains("Boolean") { return true }
        #if canImport(Darwin)
        if let n = value as? NSNumber { return CFGetTypeID(n) == CFBooleanGetTypeID() }
        #endif
        return false
    }
}
