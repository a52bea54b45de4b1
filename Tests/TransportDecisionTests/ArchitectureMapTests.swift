import Foundation
import TestSupport
import Testing

/// ARCHITECTURE.md is the map a newcomer follows: every type and file it names must exist, so that a rename or a
/// move that forgets the map fails here instead of sending the next reader to something that is gone.
@Suite struct ArchitectureMapTests {
    static let root = Repository.root

    /// Every `code span` of the map.
    static func codeSpans() throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        let parts = text.split(separator: "`", omittingEmptySubsequences: false)
        // Odd-numbered parts sit between two backticks.
        return stride(from: 1, to: parts.count, by: 2).map { String(parts[$0]) }
    }

    static func isTypeName(_ span: String) -> Bool {
        guard let first = span.unicodeScalars.first, CharacterSet.uppercaseLetters.contains(first) else { return false }
        return span.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) }
    }

    static let pathPrefixes = ["Sources/", "Tests/", "docs/", "scripts/", "Examples/", "Fuzz/", "api/", "Benchmarks/",
                               "bench/", "conformance/", ".ci/"]

    static func isPath(_ span: String) -> Bool {
        !span.contains(" ") && (pathPrefixes.contains { span.hasPrefix($0) } || span.hasSuffix(".md") || span.hasSuffix(".swift"))
    }

    /// The names declared as types anywhere under Sources/.
    static func declaredTypes() throws -> Set<String> {
        let pattern = try Regex(#"\b(?:struct|class|enum|actor|protocol|typealias)\s+([A-Z][A-Za-z0-9]*)"#)
        var names = Set<String>()
        for file in Repository.swiftFiles(under: "Sources") {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names
    }

    @Test func everyTypeItNamesIsDeclared() throws {
        let named = try Self.codeSpans().filter(Self.isTypeName)
        let declared = try Self.declaredTypes()
        #expect(named.count > 50, "the map names \(named.count) types: was it emptied?")
        let missing = Set(named).subtracting(declared).sorted()
        #expect(missing.isEmpty, "ARCHITECTURE.md names types that no file under Sources/ declares: \(missing.joined(separator: ", ")). Rename them in the map, or write them without backticks if they are not ours.")
    }

    @Test func everyFileItNamesExists() throws {
        let paths = try Self.codeSpans().filter(Self.isPath)
        #expect(paths.count > 50, "the map names \(paths.count) paths: was it emptied?")
        let missing = Set(paths).filter { !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent($0).path) }.sorted()
        #expect(missing.isEmpty, "ARCHITECTURE.md names paths that do not exist: \(missing.joined(separator: ", ")). Update the map with the file's new place.")
    }

    /// The checks above must be able to fail: a made-up name and path are caught.
    @Test func theChecksCatchAMadeUpNameAndPath() throws {
        #expect(Self.isTypeName("NoSuchTypeInThisPackage"))
        #expect(!(try Self.declaredTypes()).contains("NoSuchTypeInThisPackage"))
        #expect(Self.isPath("Sources/TransportTrust/NoSuchFile.swift"))
        #expect(!FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("Sources/TransportTrust/NoSuchFile.swift").path))
        #expect(!Self.isTypeName("throws(TransportError)"))
        #expect(!Self.isPath("✗ refused KIND (PHASE, HOST): MESSAGE"))
    }
}
