import Foundation

/// What `--limbo` and `--pkits` share: writing the results file and the one-line count of outcomes.
enum ConformanceResults {
    /// Writes `document` as sorted JSON to `path`; false (after saying why, as `ats verify --<mode>`) if it cannot.
    static func write<Document: Encodable>(_ document: Document, to path: String, mode: String, output: Output,
                                           pretty: Bool = false) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
        do {
            try encoder.encode(document).write(to: URL(fileURLWithPath: path))
            return true
        } catch {
            output.error("ats verify --\(mode): cannot write '\(path)': \(error)\n")
            return false
        }
    }

    /// `FAILURE=3 SUCCESS=9`: how many results had each outcome, by outcome name.
    static func summary(_ outcomes: [String]) -> String {
        var counts: [String: Int] = [:]
        for outcome in outcomes { counts[outcome, default: 0] += 1 }
        return counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}
