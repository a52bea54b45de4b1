import Foundation
import TestSupport
import Testing

/// Library messages say what is wrong in their own words and name no flag of `ats`: a library user has no
/// `--anchors`, and the command line adds its flags itself (`Sources/ATSCommandLine/FlagHints.swift`).
@Suite struct LibraryMessagesTests {
    /// Every module but the command line's.
    static let libraries = ["TransportTrust", "AppTransportSecurity", "AppBundles", "TransportDecision", "TransportClient",
                            "TransportServer", "ATSDiagnostics", "ATSTestServers", "HTMLReports"]

    /// Flags of other tools, quoted as those tools print them, or passed to them (`setpriv`, by ATSTestServers'
    /// `TiedChild`).
    static let allowed = ["nscurl --ats-diagnostics", "'--verbose' to view the ATS dictionaries", #"["--pdeathsig", "KILL""#]

    /// The flags (`--name`) inside the string literals of one line of Swift, leaving comments and allowed quotes out.
    static func flags(in line: String) throws -> [String] {
        let code = line.trimmingCharacters(in: .whitespaces)
        guard !code.hasPrefix("//") else { return [] }
        var text = code
        for quote in allowed { text = text.replacingOccurrences(of: quote, with: "") }
        let literal = try Regex(#""(?:[^"\\]|\\.)*""#)
        // A flag starts a word: not the "--" inside "a--b".
        let flag = try Regex(#"(?:^|[^\w-])(--[a-z][a-z0-9.-]*)"#)
        return text.matches(of: literal).flatMap { match in
            String(text[match.range]).matches(of: flag).compactMap { $0.output[1].substring.map(String.init) }
        }
    }

    @Test func noLibraryMessageNamesAFlag() throws {
        var found: [String] = []
        var files = 0
        for module in Self.libraries {
            for file in Repository.swiftFiles(under: "Sources/\(module)") {
                files += 1
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() {
                    for name in try Self.flags(in: String(line)) {
                        found.append("Sources/\(module)/\(file.lastPathComponent):\(number + 1): \(name)")
                    }
                }
            }
        }
        #expect(files > 100, "only \(files) library files were read")
        #expect(found.isEmpty, "library messages name flags; say what is wrong and let FlagHints add the flag:\n\(found.joined(separator: "\n"))")
    }

    @Test func theScanFindsAFlagInAMessageAndNotInAComment() throws {
        #expect(try Self.flags(in: #"    throw Failure("give a list with --ct-log-list FILE")"#) == ["--ct-log-list"])
        #expect(try Self.flags(in: "    // drop --http2 to use HTTP/1.1").isEmpty)
        #expect(try Self.flags(in: #"    let subtitle = "nscurl --ats-diagnostics for \(n) URLs""#).isEmpty)
        #expect(try Self.flags(in: #"    let range = "a--b""#).isEmpty)
    }
}
