import ATSDiagnostics
import Foundation
import TransportTrust

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file of `ats diagnose --resume`: the JSON lines of the hosts already diagnosed, appended to one whole line at a
/// time. Opening it truncates a last line that was cut off, so that its host is diagnosed again and no line is torn.
final class ResumeLog {
    let path: String
    /// The diagnoses the file already holds.
    let done: [HostDiagnosis]
    /// Whether a cut-off last line was dropped.
    let redone: Bool
    private var fd: Int32

    init(path: String) throws {
        self.path = path
        var data = Data()
        if FileManager.default.fileExists(atPath: path) {
            guard let read = FileManager.default.contents(atPath: path) else {
                throw InputError("--resume: cannot read '\(path)' (check its permissions)")
            }
            data = read
        }
        let (done, kept) = DiagnosisLines.resumable(data, source: path)
        self.done = done
        redone = kept < data.count
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard fd >= 0 else { throw InputError("--resume: cannot write '\(path)': \(String(cString: strerror(errno)))") }
        if redone, ftruncate(fd, off_t(kept)) != 0 {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw InputError("--resume: cannot drop the cut-off last line of '\(path)': \(reason)")
        }
    }

    /// Appends `line` with one write; the reason when it could not be written whole.
    func append(_ line: String) -> String? { writeAll(fd, Array(line.utf8)) }

    func finish() {
        if fd >= 0 { _ = close(fd) }
        fd = -1
    }

    deinit { finish() }
}
