/// Finds where each key of an XML property list is written, and bounds its nesting before Foundation parses it.
///
/// Foundation's parser reports no positions, so this small scanner walks the XML tags once, tracking the
/// path of dictionary keys and array indexes. It records the position of every `<key>` element (and of
/// each value), which the audit uses for line and column. It is not a validating parser: anything it
/// cannot follow is left to `PropertyListSerialization`, which reports the error.
struct XMLPlistLocator {
    /// Positions of `<key>` elements, by the path ending in that key. When a key is repeated, the last copy's:
    /// Foundation keeps the last value, so that is the copy that takes effect.
    private(set) var keys: [PlistKeyPath: SourceLocation] = [:]
    /// Positions of value elements, by their path.
    private(set) var values: [PlistKeyPath: SourceLocation] = [:]
    /// Keys written more than once in the same dictionary, each with the position of a copy Foundation drops
    /// (every copy but the last).
    private(set) var duplicateKeys: [PropertyListReader.DuplicateKey] = []

    private enum Frame {
        case dictionary(path: [String], pendingKey: String?, seen: Set<String>)
        case array(path: [String], index: Int)

        var isDictionary: Bool { if case .dictionary = self { return true } else { return false } }
    }

    /// Scans `bytes`. Throws ``PropertyListError/tooDeep`` when containers nest past `maximumDepth`.
    /// One pass of one tokenizer: long, because splitting it would spread the scan state over several functions.
    init(bytes: [UInt8], maximumDepth: Int) throws(PropertyListError) {
        var stack: [Frame] = []
        var i = 0
        var line = 1
        var lineStart = 0
        let n = bytes.count

        // Columns are counted incrementally from the last position asked on the same line, so a file
        // that is one enormous line still costs linear time.
        var columnCache = (line: 0, position: 0, column: 1)
        func column(_ at: Int) -> Int {
            var (j, c) = columnCache.line == line && columnCache.position <= at ? (columnCache.position, columnCache.column) : (lineStart, 1)
            while j < at && j < n {
                if bytes[j] & 0xC0 != 0x80 { c += 1 }
                j += 1
            }
            columnCache = (line, j, c)
            return c
        }
        // XML ends a line with LF, CR LF or a lone CR (XML 1.0 §2.11); a CR before an LF is not a line of its own.
        func endsLine(_ j: Int) -> Bool {
            bytes[j] == 0x0A || (bytes[j] == 0x0D && (j + 1 >= n || bytes[j + 1] != 0x0A))
        }
        func advance(to end: Int) {
            while i < end && i < n {
                if endsLine(i) { line += 1; lineStart = i + 1 }
                i += 1
            }
        }
        func find(_ pattern: [UInt8], from start: Int) -> Int? {
            guard !pattern.isEmpty, start <= n - pattern.count else { return nil }
            var j = start
            while j <= n - pattern.count {
                if bytes[j] == pattern[0] {
                    var k = 1
                    while k < pattern.count && bytes[j + k] == pattern[k] { k += 1 }
                    if k == pattern.count { return j }
                }
                j += 1
            }
            return nil
        }
        // The path of the value about to start, and a bump of the parent's state once it has.
        // A value in a dictionary without a preceding <key> is invalid; Foundation will say so. It still
        // gets a (placeholder) path so that its nesting is counted.
        func currentValuePath() -> [String] {
            guard let top = stack.last else { return [] }
            switch top {
            case .dictionary(let path, let key, _): return path + [key ?? "\u{FFFD}"]
            case .array(let path, let index): return path + [String(index)]
            }
        }
        func valueConsumed() {
            guard let top = stack.popLast() else { return }
            switch top {
            case .dictionary(let path, _, let seen): stack.append(.dictionary(path: path, pendingKey: nil, seen: seen))
            case .array(let path, let index): stack.append(.array(path: path, index: index + 1))
            }
        }

        var sawRoot = false
        scan: while i < n {
            guard bytes[i] == UInt8(ascii: "<") else {
                if endsLine(i) { line += 1; lineStart = i + 1 }
                i += 1
                continue
            }
            let start = i
            let location = SourceLocation(line: line, column: column(start))
            // Comments, declarations, processing instructions.
            if i + 3 < n, bytes[i + 1] == UInt8(ascii: "!"), bytes[i + 2] == UInt8(ascii: "-"), bytes[i + 3] == UInt8(ascii: "-") {
                guard let end = find(Array("-->".utf8), from: i + 4) else { break }
                advance(to: end + 3)
                continue
            }
            if i + 1 < n, bytes[i + 1] == UInt8(ascii: "?") || bytes[i + 1] == UInt8(ascii: "!") {
                guard let end = find([UInt8(ascii: ">")], from: i + 1) else { break }
                advance(to: end + 1)
                continue
            }
            guard let close = find([UInt8(ascii: ">")], from: i + 1) else { break }
            var nameEnd = i + 1
            let isEnd = nameEnd < n && bytes[nameEnd] == UInt8(ascii: "/")
            if isEnd { nameEnd += 1 }
            let nameStart = nameEnd
            while nameEnd < close, bytes[nameEnd] != UInt8(ascii: " "), bytes[nameEnd] != UInt8(ascii: "/"),
                  bytes[nameEnd] != 0x0A, bytes[nameEnd] != 0x09, bytes[nameEnd] != 0x0D {
                nameEnd += 1
            }
            let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
            let selfClosing = close > 0 && bytes[close - 1] == UInt8(ascii: "/")
            advance(to: close + 1)

            if isEnd {
                if name == "dict" || name == "array" {
                    _ = stack.popLast()
                    valueConsumed()
                }
                continue
            }
            switch name {
            case "plist":
                continue
            case "key":
                if selfClosing {
                    if case .dictionary(let path, _, let seen)? = stack.last {
                        stack[stack.count - 1] = .dictionary(path: path, pendingKey: "", seen: seen)
                    }
                    continue
                }
                // An unclosed element: stop here (Foundation reports it) rather than search again per tag.
                guard let end = find(Array("</key>".utf8), from: i) else { break scan }
                let key = Self.keyText(String(decoding: bytes[i..<end], as: UTF8.self))
                advance(to: end + 6)
                // Popped and pushed back so that the set of keys seen is the frame's alone and grows in place: changed
                // while the stack still held it, it was copied whole for every key (quadratic in a dictionary's size).
                if stack.last?.isDictionary == true, case .dictionary(let path, _, var seen)? = stack.popLast() {
                    let keyPath = PlistKeyPath(path + [key])
                    if seen.contains(key), let earlier = keys[keyPath] {
                        duplicateKeys.append(PropertyListReader.DuplicateKey(keyPath: keyPath, ignoredCopy: earlier))
                    }
                    keys[keyPath] = location
                    seen.insert(key)
                    stack.append(.dictionary(path: path, pendingKey: key, seen: seen))
                }
            case "dict", "array":
                if stack.isEmpty && sawRoot { continue }
                sawRoot = true
                let path = currentValuePath()
                values[PlistKeyPath(path)] = location
                if selfClosing {
                    valueConsumed()
                    continue
                }
                if stack.count >= maximumDepth { throw .tooDeep(limit: maximumDepth, location: location) }
                stack.append(name == "dict" ? .dictionary(path: path, pendingKey: nil, seen: []) : .array(path: path, index: 0))
            default:
                // A scalar: <string>, <integer>, <real>, <true/>, <false/>, <date>, <data>.
                sawRoot = true
                let path = currentValuePath()
                values[PlistKeyPath(path)] = location
                if !selfClosing {
                    guard let end = find(Array("</\(name)>".utf8), from: i) else { break scan }
                    advance(to: end + name.utf8.count + 3)
                }
                valueConsumed()
            }
        }
    }

    /// The text of a `<key>` element as Foundation reads it: entities decoded, CDATA sections taken literally.
    static func keyText(_ raw: String) -> String {
        guard raw.contains("<![CDATA[") else { return decodeEntities(raw) }
        var out = ""
        var rest = Substring(raw)
        while let start = rest.range(of: "<![CDATA[") {
            out += decodeEntities(String(rest[..<start.lowerBound]))
            let body = rest[start.upperBound...]
            // Unterminated: Foundation refuses the file and says where.
            guard let end = body.range(of: "]]>") else { return out + body }
            out += body[..<end.lowerBound]
            rest = body[end.upperBound...]
        }
        return out + decodeEntities(String(rest))
    }

    static func decodeEntities(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = s
        for (entity, text) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            out = out.replacingOccurrences(of: entity, with: text)
        }
        return out
    }
}

import Foundation
