import ArgumentParser
import Foundation

/// `--json`, `--output` and `--quiet`, spelled and meaning the same on every command that prints a report.
/// Colour follows `NO_COLOR` and the terminal everywhere (`Output.usesColor`), and is off in a file.
struct ReportOptions: ParsableArguments {
    @Flag(help: "Print the report as JSON (on a command with --format, the same as --format json).")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Write the report to FILE instead of standard output; errors still go to standard error.", valueName: "FILE"))
    var output: String?

    @Flag(name: .long, help: "Print no report: the exit status says the outcome, and errors still go to standard error.")
    var quiet = false

    func validate() throws {
        if quiet, let output { throw ValidationError("--quiet prints no report, so --output \(output) would stay empty; keep one") }
    }

    /// Where the report goes: `output` itself, a file, or nowhere. A command that writes its own file (a
    /// conformance run's results) passes `false`, and `--output` is then its own.
    func destination(for output: Output, when reportGoesToStandardOutput: Bool) throws -> Output {
        if quiet { return output.redirected(to: .discard) }
        guard reportGoesToStandardOutput, let path = self.output else { return output }
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw ValidationError("--output \(path) cannot be written: \(Self.reason(forWriting: path)); give a file in a folder you can write to")
        }
        return output.redirected(to: .file(handle, name: path))
    }

    private static func reason(forWriting path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return "it is a folder" }
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) { return "the folder \(folder) does not exist" }
        return "permission denied"
    }
}

/// A command whose standard output is a report: it takes ``ReportOptions``, and the shell applies `--output` and
/// `--quiet` before it runs, so each command only writes its report.
protocol ReportingCommand: ExecutableCommand {
    var report: ReportOptions { get }
    /// False when the command writes its own file with `--output` (a conformance run's results).
    var reportGoesToStandardOutput: Bool { get }
}

extension ReportingCommand {
    var reportGoesToStandardOutput: Bool { true }
}
