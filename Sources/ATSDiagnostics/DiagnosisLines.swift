import Foundation

/// `ats diagnose --json` output read back: one document per line (JSON Lines), for resuming a scan and merging the
/// shards of a fleet scan.
package enum DiagnosisLines {
    /// A line that is not a diagnosis, with where and why.
    package struct Problem: Error, Sendable, CustomStringConvertible {
        /// The file the line came from.
        package var source: String
        /// The line's number, from 1.
        package var line: Int
        /// Why the line is not a diagnosis.
        package var reason: String
        package var description: String { "\(source):\(line): \(reason)" }
    }

    /// One diagnosis from one line.
    package static func decode(_ line: Substring, source: String, number: Int) throws(Problem) -> HostDiagnosis {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(HostDiagnosis.self, from: Data(line.utf8))
        } catch let error as DecodingError {
            throw Problem(source: source, line: number, reason: "not a diagnosis in JSON (\(describe(error)))")
        } catch {
            throw Problem(source: source, line: number, reason: "not JSON")
        }
    }

    /// Every diagnosis of a file of JSON Lines; blank lines are skipped.
    package static func read(_ data: Data, source: String) throws(Problem) -> [HostDiagnosis] {
        var out: [HostDiagnosis] = []
        let text = String(decoding: data, as: UTF8.self)
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            out.append(try decode(Substring(trimmed), source: source, number: index + 1))
        }
        return out
    }

    /// What an interrupted scan left: the diagnoses of its whole lines, and how many bytes they take. A last line that
    /// was cut off (no newline, or not a diagnosis) is not counted, so the scan truncates it and does that host again.
    package static func resumable(_ data: Data, source: String) -> (done: [HostDiagnosis], keptBytes: Int) {
        var done: [HostDiagnosis] = []
        var kept = 0
        var start = data.startIndex
        var number = 0
        while let newline = data[start...].firstIndex(of: 0x0A) {
            number += 1
            let line = String(decoding: data[start..<newline], as: UTF8.self)
            if !line.trimmingCharacters(in: .whitespaces).isEmpty {
                guard let diagnosis = try? decode(Substring(line), source: source, number: number) else { break }
                done.append(diagnosis)
            }
            start = data.index(after: newline)
            kept = data.distance(from: data.startIndex, to: start)
        }
        return (done, kept)
    }

    /// Diagnoses from several files as one scan: one per URL, the last read winning, sorted by URL so that the result
    /// does not depend on the order hosts finished in. `repeated` names each URL found more than once.
    package static func merge(_ files: [[HostDiagnosis]]) -> (merged: [HostDiagnosis], repeated: [String]) {
        var byURL: [String: HostDiagnosis] = [:]
        var repeated: [String] = []
        for file in files {
            for diagnosis in file {
                if byURL.updateValue(diagnosis, forKey: diagnosis.url) != nil { repeated.append(diagnosis.url) }
            }
        }
        return (byURL.keys.sorted().compactMap { byURL[$0] }, repeated)
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): return "no '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' is not valid"
        @unknown default: return "not readable"
        }
    }
}
