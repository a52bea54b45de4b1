import ArgumentParser
import Foundation
import TransportTrust

/// The `ats` command: a thin shell over the libraries.
public struct ATSCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "ats",
        abstract: "HTTPS trust decisions that are correct, explainable and the same on every platform.",
        version: TransportSecurityVersion.current,
        subcommands: [VerifyCommand.self, AuditCommand.self, CheckCommand.self, PinsCommand.self, FetchCommand.self, DiagnoseCommand.self, ServeCommand.self, DemoCommand.self]
    )

    public init() {}

    /// Parses and runs `arguments`, and returns the exit status: usage and input errors are 2.
    public static func run(arguments: [String], output: Output = .standard) async -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if let exec = command as? any ExecutableCommand {
                return await exec.execute(output: output)
            }
            if var async = command as? any AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                output.write(message + "\n")
                return 0
            }
            output.error(message + "\n")
            return 2
        }
    }
}

/// A subcommand that reports its own exit status instead of throwing.
protocol ExecutableCommand {
    func execute(output: Output) async -> Int32
}

/// Where a command writes. Tests capture it; the tool writes to the terminal.
public final class Output: @unchecked Sendable {
    private let lock = NSLock()
    private var captured: (out: String, err: String)?
    public let useColor: Bool
    /// Standard error is a terminal that can redraw a line, so progress can be a bar rather than one line per item.
    /// Independent of colour: `ats diagnose --targets F > report.txt` still shows the bar.
    public let errorIsTerminal: Bool

    public static var standard: Output {
        let env = ProcessInfo.processInfo.environment
        let color = usesColor(environment: env, standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1)
        return Output(capturing: false, color: color, errorIsTerminal: env["TERM"] != "dumb" && isatty(STDERR_FILENO) == 1)
    }

    /// Whether to colour standard output: on a terminal that is not `TERM=dumb`, unless `NO_COLOR` is set to a
    /// non-empty value ("when present and not an empty string (regardless of its value)", https://no-color.org).
    public static func usesColor(environment env: [String: String], standardOutputIsTerminal: Bool) -> Bool {
        (env["NO_COLOR"] ?? "").isEmpty && env["TERM"] != "dumb" && standardOutputIsTerminal
    }

    /// An output that keeps what is written, for tests; `errorIsTerminal` stands in for a terminal on standard error.
    public static func capture(color: Bool = false, errorIsTerminal: Bool = false) -> Output {
        Output(capturing: true, color: color, errorIsTerminal: errorIsTerminal)
    }

    init(capturing: Bool, color: Bool, errorIsTerminal: Bool) {
        self.captured = capturing ? ("", "") : nil
        self.useColor = color
        self.errorIsTerminal = errorIsTerminal
    }

    public func write(_ s: String) {
        lock.withLock {
            if captured != nil { captured?.out += s } else { FileHandle.standardOutput.write(Data(s.utf8)) }
        }
    }

    public func error(_ s: String) {
        lock.withLock {
            if captured != nil { captured?.err += s } else { FileHandle.standardError.write(Data(s.utf8)) }
        }
    }

    public var standardOutput: String { lock.withLock { captured?.out ?? "" } }
    public var standardError: String { lock.withLock { captured?.err ?? "" } }

    func paint(_ s: String, _ code: String) -> String { useColor ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    func green(_ s: String) -> String { paint(s, "1;32") }
    func red(_ s: String) -> String { paint(s, "1;31") }
    func dim(_ s: String) -> String { paint(s, "2") }
}

/// An input problem the user can fix; reported with exit status 2.
struct InputError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
