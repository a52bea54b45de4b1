import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Where a JSON or XML pin file stops being well-formed, found here because Foundation says only "The data is not
/// in the correct format." or "NSXMLParserErrorDomain error 73".
enum DocumentProblem {
    /// The 1-based line that the byte at `offset` is on.
    static func line(ofOffset offset: Int, in bytes: [UInt8]) -> Int {
        bytes[..<offset].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
    }

    /// A bracket or string left open at the end (a file cut short) or a bracket that closes the wrong one, with
    /// its line; nil when the brackets balance.
    static func json(_ bytes: [UInt8]) -> (line: Int, problem: String)? {
        var open: [(bracket: Character, line: Int)] = []
        var line = 1, stringLine = 1
        var inString = false, escaped = false
        for byte in bytes {
            if byte == 0x0A { line += 1 }
            if inString {
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            let c = Character(Unicode.Scalar(byte))
            switch c {
            case "\"": inString = true; stringLine = line
            case "{", "[": open.append((c, line))
            case "}", "]":
                guard let last = open.popLast() else { return (line, "a '\(c)' on line \(line) closes nothing") }
                if (last.bracket == "{") != (c == "}") {
                    return (line, "the '\(c)' on line \(line) closes the '\(last.bracket)' opened on line \(last.line)")
                }
            default: break
            }
        }
        if inString { return (stringLine, "the file ends inside the string that starts on line \(stringLine), so it is cut short") }
        if let last = open.last {
            return (line, "the file ends before the '\(last.bracket)' opened on line \(last.line) is closed, so it is cut short")
        }
        return nil
    }

    /// "line N, column M" from Foundation's JSON error, the one part of its text worth keeping.
    static func jsonPlace(_ error: any Error) -> (line: Int, column: Int)? {
        guard let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String,
              let range = text.range(of: #"line (\d+), column (\d+)"#, options: .regularExpression) else { return nil }
        let numbers = text[range].split { !$0.isNumber }.compactMap { Int($0) }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }

    /// An XML fault with its line, or an element left open at the end. nil when the XML is well-formed, or when it
    /// holds what Foundation's XMLParser on Linux cannot be given safely (see `AndroidPinFormat.read`).
    static func xml(_ bytes: [UInt8]) -> (line: Int, problem: String)? {
        guard AndroidPinFormat.firstInvalidUTF8(bytes) == nil, AndroidPinFormat.firstEmptyProcessingInstruction(bytes) == nil else { return nil }
        final class Tracker: NSObject, XMLParserDelegate {
            var open: [(name: String, line: Int)] = []
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                open.append((name, parser.lineNumber))
            }
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                _ = open.popLast()
            }
        }
        let tracker = Tracker()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = tracker
        guard parser.parse() else {
            let code = parser.parserError.map { ($0 as NSError).code }
            return (parser.lineNumber, "at column \(parser.columnNumber), \(AndroidPinFormat.xmlProblem(code))")
        }
        if let last = tracker.open.last {
            return (parser.lineNumber, "the file ends before <\(last.name)> (opened on line \(last.line)) is closed, so it is cut short")
        }
        return nil
    }
}
