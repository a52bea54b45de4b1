import Foundation
import TransportTrust

/// The serialization a property list used.
public enum PropertyListFormat: String, Sendable, Codable {
    /// XML (`<?xml …?><plist>`), what Xcode writes.
    case xml
    /// Binary (`bplist00`), what a built app ships.
    case binary
    /// The old OpenStep text format, which Foundation reads but no longer writes.
    case openStep
}

/// Reads an XML or binary property list with Foundation's `PropertyListSerialization`, within bounds.
///
/// Before Foundation sees the bytes, the reader caps the size, scans XML for nesting depth and key
/// positions (`XMLPlistLocator`), and checks binary structure (`BinaryPlistValidator`). The result keeps
/// every value's exact type (``PlistValue``).
package struct PropertyListReader: Sendable {
    /// The largest file accepted: Info.plists are a few kilobytes; 8 MiB leaves room for generated ones.
    public static let maximumSize = 8 * 1024 * 1024
    /// The deepest nesting accepted. An ATS configuration is at most six levels deep.
    public static let maximumDepth = 64
    /// The most values a binary plist may expand to once shared references are followed.
    public static let maximumExpandedValues = 1_000_000

    package typealias Format = PropertyListFormat

    /// A parsed property list.
    public struct Document: Sendable {
        public var root: PlistValue
        public var format: Format
        /// Where each key is written (XML only), by its path from the root.
        public var keyLocations: [PlistKeyPath: SourceLocation]
        /// Where each value is written (XML only).
        public var valueLocations: [PlistKeyPath: SourceLocation]
        /// Keys written twice in one dictionary (XML only): Foundation keeps the last, silently.
        public var duplicateKeys: [DuplicateKey]

        /// The best position to show for a path: its key, else its value, else the nearest written parent.
        public func location(of path: PlistKeyPath) -> SourceLocation? {
            var components = path.components
            while !components.isEmpty {
                let p = PlistKeyPath(components)
                if let l = keyLocations[p] ?? valueLocations[p] { return l }
                components.removeLast()
            }
            return nil
        }
    }

    /// A copy of a repeated key that has no effect: Foundation keeps the value of the last copy.
    public struct DuplicateKey: Sendable, Equatable {
        public var keyPath: PlistKeyPath
        /// Where the ignored copy's `<key>` is written.
        public var ignoredCopy: SourceLocation
    }

    public init() {}

    /// Parses `data`, whose root must be a dictionary.
    /// - Throws: ``PropertyListError`` describing what is wrong and where.
    public func read(_ data: Data) throws(PropertyListError) -> Document {
        guard !data.isEmpty else { throw .empty }
        guard data.count <= Self.maximumSize else { throw .tooLarge(bytes: data.count, limit: Self.maximumSize) }
        let bytes = [UInt8](data)
        var locator: XMLPlistLocator?
        let isBinary = bytes.starts(with: Array("bplist".utf8))
        if isBinary {
            do {
                try BinaryPlistValidator(bytes: bytes, maximumDepth: Self.maximumDepth,
                                         maximumExpandedValues: Self.maximumExpandedValues).validate()
            } catch {
                switch error {
                case .corruptBinary(let reason): throw .corruptBinary(reason: reason)
                case .tooDeep(let limit): throw .tooDeep(limit: limit, location: nil)
                }
            }
        } else {
            // The locator reads UTF-8 bytes; a UTF-16 or UTF-32 plist goes to it as its UTF-8 text, so that its
            // duplicate keys and positions are found too.
            let text = Self.utf8Text(of: data) ?? bytes
            // Foundation would call any such file a broken XML plist and name the byte as it is, NUL included.
            let body = (text.starts(with: [0xEF, 0xBB, 0xBF]) ? text.dropFirst(3) : text[...]).drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
            if let first = body.first, ![UInt8(ascii: "<"), UInt8(ascii: "{"), UInt8(ascii: "(")].contains(first) {
                throw .notAPropertyList(start: Self.describeStart(body))
            }
            locator = try XMLPlistLocator(bytes: text, maximumDepth: Self.maximumDepth)
        }
        var format = PropertyListSerialization.PropertyListFormat.xml
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        } catch {
            let reason = Self.reason(from: error)
            throw .malformed(format: isBinary ? "binary" : "XML", reason: reason, location: nil)
        }
        let root = try PlistValue(foundation: object)
        guard case .dictionary = root else { throw .wrongRootType(found: root.kind) }
        let fmt: Format = format == .binary ? .binary : (format == .openStep ? .openStep : .xml)
        return Document(root: root, format: fmt,
                        keyLocations: fmt == .xml ? (locator?.keys ?? [:]) : [:],
                        valueLocations: fmt == .xml ? (locator?.values ?? [:]) : [:],
                        duplicateKeys: fmt == .xml ? (locator?.duplicateKeys ?? []) : [])
    }

    /// The UTF-8 bytes of an XML plist written in UTF-16 or UTF-32 (by its byte-order mark, or a `<` next to zero
    /// bytes), without the mark; nil for any other text.
    static func utf8Text(of data: Data) -> [UInt8]? {
        let head = [UInt8](data.prefix(4))
        let encoding: String.Encoding
        switch head {
        case _ where head.starts(with: [0x00, 0x00, 0xFE, 0xFF]) || head.starts(with: [0x00, 0x00, 0x00, 0x3C]): encoding = .utf32BigEndian
        case _ where head.starts(with: [0xFF, 0xFE, 0x00, 0x00]) || head.starts(with: [0x3C, 0x00, 0x00, 0x00]): encoding = .utf32LittleEndian
        case _ where head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0x00, 0x3C]): encoding = .utf16BigEndian
        case _ where head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0x3C, 0x00]): encoding = .utf16LittleEndian
        default: return nil
        }
        guard var text = String(data: data, encoding: encoding) else { return nil }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return Array(text.utf8)
    }

    /// Foundation's reason, with what it quotes of the file escaped: it names the offending character as it is.
    private static func reason(from error: any Error) -> String {
        let ns = error as NSError
        if let debug = ns.userInfo["NSDebugDescription"] as? String, !debug.isEmpty { return NameDisplay.escaped(debug) }
        return NameDisplay.escaped(ns.localizedDescription)
    }

    /// The first bytes of a file, as text when they are printable ASCII, otherwise in hex.
    static func describeStart(_ bytes: ArraySlice<UInt8>) -> String {
        let head = bytes.prefix(8)
        if head.allSatisfy({ (0x20..<0x7F).contains($0) }) { return "'\(String(decoding: head, as: UTF8.self))'" }
        return "the bytes " + head.map { String(format: "%02x", $0) }.joined(separator: " ")
    }
}
