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
    init(bytes: [UInt8], maximumDepth: Int) throws(PropertyListError) {
        var cursor = Cursor(bytes)
        var nesting = Nesting()
        // An element left unclosed ends the scan (Foundation reports it) rather than a search again per tag.
        while let tag = cursor.nextTag() {
            if tag.isEnd {
                if tag.name == "dict" || tag.name == "array" { nesting.containerClosed() }
                continue
            }
            switch tag.name {
            case "plist":
                continue
            case "key":
                guard recordKey(tag, cursor: &cursor, nesting: &nesting) else { return }
            case "dict", "array":
                try recordContainer(tag, nesting: &nesting, maximumDepth: maximumDepth)
            default:
                guard recordScalar(tag, cursor: &cursor, nesting: &nesting) else { return }
            }
        }
    }

    /// Records a `<key>` and makes it the pending key of its dictionary; false when the element is never closed.
    private mutating func recordKey(_ tag: Tag, cursor: inout Cursor, nesting: inout Nesting) -> Bool {
        if tag.selfClosing {
            if case .dictionary(let path, _, let seen)? = nesting.frames.last {
                nesting.frames[nesting.frames.count - 1] = .dictionary(path: path, pendingKey: "", seen: seen)
            }
            return true
        }
        guard let text = cursor.skipContent(ofElement: "key") else { return false }
        let key = Self.keyText(String(decoding: text, as: UTF8.self))
        // Popped and pushed back so that the set of keys seen is the frame's alone and grows in place: changed
        // while the stack still held it, it was copied whole for every key (quadratic in a dictionary's size).
        if nesting.frames.last?.isDictionary == true, case .dictionary(let path, _, var seen)? = nesting.frames.popLast() {
            let keyPath = PlistKeyPath(path + [key])
            if seen.contains(key), let earlier = keys[keyPath] {
                duplicateKeys.append(PropertyListReader.DuplicateKey(keyPath: keyPath, ignoredCopy: earlier))
            }
            keys[keyPath] = tag.location
            seen.insert(key)
            nesting.frames.append(.dictionary(path: path, pendingKey: key, seen: seen))
        }
        return true
    }

    /// Records a `<dict>` or `<array>` value and opens it, unless it is empty (`<dict/>`).
    private mutating func recordContainer(_ tag: Tag, nesting: inout Nesting, maximumDepth: Int) throws(PropertyListError) {
        if nesting.frames.isEmpty && nesting.sawRoot { return }
        nesting.sawRoot = true
        let path = nesting.valuePath()
        values[PlistKeyPath(path)] = tag.location
        if tag.selfClosing {
            nesting.valueConsumed()
            return
        }
        if nesting.frames.count >= maximumDepth { throw .tooDeep(limit: maximumDepth, location: tag.location) }
        nesting.frames.append(tag.name == "dict" ? .dictionary(path: path, pendingKey: nil, seen: []) : .array(path: path, index: 0))
    }

    /// Records a scalar value (`<string>`, `<integer>`, `<real>`, `<true/>`, `<false/>`, `<date>`, `<data>`) and
    /// skips its content; false when the element is never closed.
    private mutating func recordScalar(_ tag: Tag, cursor: inout Cursor, nesting: inout Nesting) -> Bool {
        nesting.sawRoot = true
        values[PlistKeyPath(nesting.valuePath())] = tag.location
        if !tag.selfClosing {
            guard cursor.skipContent(ofElement: tag.name) != nil else { return false }
        }
        nesting.valueConsumed()
        return true
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

extension XMLPlistLocator {
    /// One element tag, `<name …>`, `</name>` or `<name …/>`, and where it starts.
    private struct Tag {
        var name: String
        var location: SourceLocation
        var isEnd: Bool
        var selfClosing: Bool
    }

    /// The open containers, innermost last, and whether the root value has begun.
    private struct Nesting {
        var frames: [Frame] = []
        var sawRoot = false

        /// The path of the value about to start. A value in a dictionary without a preceding <key> is invalid;
        /// Foundation will say so. It still gets a (placeholder) path so that its nesting is counted.
        func valuePath() -> [String] {
            guard let top = frames.last else { return [] }
            switch top {
            case .dictionary(let path, let key, _): return path + [key ?? "\u{FFFD}"]
            case .array(let path, let index): return path + [String(index)]
            }
        }

        /// Moves the parent past the value just ended: a dictionary waits for its next key, an array counts one more.
        mutating func valueConsumed() {
            guard let top = frames.popLast() else { return }
            switch top {
            case .dictionary(let path, _, let seen): frames.append(.dictionary(path: path, pendingKey: nil, seen: seen))
            case .array(let path, let index): frames.append(.array(path: path, index: index + 1))
            }
        }

        mutating func containerClosed() {
            _ = frames.popLast()
            valueConsumed()
        }
    }

    /// The scan position in the bytes, with the line it is on.
    private struct Cursor {
        let bytes: [UInt8]
        private var i = 0
        private var line = 1
        private var lineStart = 0
        // Columns are counted incrementally from the last position asked on the same line, so a file
        // that is one enormous line still costs linear time.
        private var columnCache = (line: 0, position: 0, column: 1)

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// The next element tag, the cursor moved past it; comments, declarations, processing instructions and
        /// text are skipped. Nil at the end, or where one of them is never closed.
        mutating func nextTag() -> Tag? {
            let n = bytes.count
            while i < n {
                guard bytes[i] == UInt8(ascii: "<") else {
                    if endsLine(i) { line += 1; lineStart = i + 1 }
                    i += 1
                    continue
                }
                let start = i
                let location = SourceLocation(line: line, column: column(start))
                if i + 3 < n, bytes[i + 1] == UInt8(ascii: "!"), bytes[i + 2] == UInt8(ascii: "-"), bytes[i + 3] == UInt8(ascii: "-") {
                    guard let end = find(Array("-->".utf8), from: i + 4) else { return nil }
                    advance(to: end + 3)
                    continue
                }
                if i + 1 < n, bytes[i + 1] == UInt8(ascii: "?") || bytes[i + 1] == UInt8(ascii: "!") {
                    guard let end = find([UInt8(ascii: ">")], from: i + 1) else { return nil }
                    advance(to: end + 1)
                    continue
                }
                guard let close = find([UInt8(ascii: ">")], from: i + 1) else { return nil }
                return tag(from: start, closedAt: close, location: location)
            }
            return nil
        }

        /// The tag between `start` (its `<`) and `close` (its `>`), the cursor moved past it.
        private mutating func tag(from start: Int, closedAt close: Int, location: SourceLocation) -> Tag {
            var nameEnd = start + 1
            let isEnd = nameEnd < bytes.count && bytes[nameEnd] == UInt8(ascii: "/")
            if isEnd { nameEnd += 1 }
            let nameStart = nameEnd
            while nameEnd < close, bytes[nameEnd] != UInt8(ascii: " "), bytes[nameEnd] != UInt8(ascii: "/"),
                  bytes[nameEnd] != 0x0A, bytes[nameEnd] != 0x09, bytes[nameEnd] != 0x0D {
                nameEnd += 1
            }
            let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
            let selfClosing = close > 0 && bytes[close - 1] == UInt8(ascii: "/")
            advance(to: close + 1)
            return Tag(name: name, location: location, isEnd: isEnd, selfClosing: selfClosing)
        }

        /// The bytes from here up to `</name>`, the cursor moved past that end tag; nil when there is none.
        mutating func skipContent(ofElement name: String) -> ArraySlice<UInt8>? {
            let start = i
            guard let end = find(Array("</\(name)>".utf8), from: start) else { return nil }
            advance(to: end + name.utf8.count + 3)
            return bytes[start..<end]
        }

        private mutating func column(_ at: Int) -> Int {
            var (j, c) = columnCache.line == line && columnCache.position <= at ? (columnCache.position, columnCache.column) : (lineStart, 1)
            while j < at && j < bytes.count {
                if bytes[j] & 0xC0 != 0x80 { c += 1 }
                j += 1
            }
            columnCache = (line, j, c)
            return c
        }

        // XML ends a line with LF, CR LF or a lone CR (XML 1.0 §2.11); a CR before an LF is not a line of its own.
        private func endsLine(_ j: Int) -> Bool {
            bytes[j] == 0x0A || (bytes[j] == 0x0D && (j + 1 >= bytes.count || bytes[j + 1] != 0x0A))
        }

        private mutating func advance(to end: Int) {
            while i < end && i < bytes.count {
                if endsLine(i) { line += 1; lineStart = i + 1 }
                i += 1
            }
        }

        private func find(_ pattern: [UInt8], from start: Int) -> Int? {
            let n = bytes.count
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
    }
}

import Foundation
