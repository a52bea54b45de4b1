import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import TransportTrust

/// The `ats` command: a thin shell over the libraries.
package struct ATSCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "ats",
        abstract: "HTTPS trust decisions that are correct, explainable and the same on every platform.",
        version: TransportSecurityVersion.current,
        subcommands: [VerifyCommand.self, AuditCommand.self, CheckCommand.self, PinsCommand.self, FetchCommand.self, DiagnoseCommand.self, ReportCommand.self, CTCommand.self, ServeCommand.self, DemoCommand.self]
    )

    package init() {}

    /// Parses and runs `arguments`, and returns the exit status: usage and input errors are 2.
    package static func run(arguments: [String], output: Output = .standard) async -> Int32 {
        output.status(after: await parseAndRun(arguments, output: output))
    }

    private static func parseAndRun(_ arguments: [String], output: Output) async -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if let reporting = command as? any ReportingCommand {
                // --output and --quiet apply to every report command alike: the report goes to the file or nowhere.
                let destination: Output
                do { destination = try reporting.report.destination(for: output, when: reporting.reportGoesToStandardOutput) } catch {
                    output.error("ats: \(error)\n")
                    return 2
                }
                return destination.finish(after: await reporting.execute(output: destination))
            }
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
            let message = FlagHints.adding(FlagHints.hint(for: error), to: fullMessage(for: error))
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
///
/// A reader that goes away (`ats fetch URL | head -c 10`) ends the writing quietly: nothing more is written to that
/// stream, and the command's exit status becomes ``brokenPipeStatus``.
package final class Output: Sendable {
    /// The exit status after a write found its reader gone: 128 + SIGPIPE, what a shell reports for `cat` or `yes`
    /// killed by SIGPIPE, so that `set -o pipefail` scripts see `ats` as they see any other tool in a pipe.
    package static let brokenPipeStatus: Int32 = 128 + SIGPIPE

    private struct State {
        /// Standard output as bytes (a body may be binary, and a chunk may end inside a UTF-8 sequence), standard error as text.
        var captured: (out: [UInt8], err: String)?
        /// Per stream: its reader went away (EPIPE), or another write error, as text.
        var ended: (out: WriteEnd?, err: WriteEnd?) = (nil, nil)
    }

    private let state: NIOLockedValueBox<State>
    private let streams: (out: FileHandle, err: FileHandle)
    /// Set on an output made by ``redirected(to:)``: standard error, and captures, go to this one.
    private let parent: Output?
    /// What standard output is called in a write error: "standard output", or the --output file.
    private let outName: String
    /// Colour for standard output, and for standard error: each stream is a terminal or not on its own.
    package let palette: Palette
    package let errorPalette: Palette
    package var useColor: Bool { palette.enabled }
    /// Standard error is a terminal that can redraw a line, so progress can be a bar rather than one line per item.
    /// Independent of colour: `ats diagnose --targets F > report.txt` still shows the bar.
    package let errorIsTerminal: Bool

    package static var standard: Output {
        let env = ProcessInfo.processInfo.environment
        return Output(capturing: false, color: usesColor(environment: env, isTerminal: isatty(STDOUT_FILENO) == 1),
                      errorColor: usesColor(environment: env, isTerminal: isatty(STDERR_FILENO) == 1),
                      errorIsTerminal: env["TERM"] != "dumb" && isatty(STDERR_FILENO) == 1)
    }

    /// Whether to colour standard output: on a terminal that is not `TERM=dumb`, unless `NO_COLOR` is set to a
    /// non-empty value ("when present and not an empty string (regardless of its value)", https://no-color.org).
    package static func usesColor(environment env: [String: String], standardOutputIsTerminal: Bool) -> Bool {
        usesColor(environment: env, isTerminal: standardOutputIsTerminal)
    }

    /// The same decision for any stream: standard error is coloured when it is a terminal, whatever standard output is.
    package static func usesColor(environment env: [String: String], isTerminal: Bool) -> Bool {
        (env["NO_COLOR"] ?? "").isEmpty && env["TERM"] != "dumb" && isTerminal
    }

    /// An output that keeps what is written, for tests; `errorIsTerminal` stands in for a terminal on standard error.
    /// `errorColor` stands for a terminal on standard error that takes colour; by default, as `color`.
    package static func capture(color: Bool = false, errorColor: Bool? = nil, errorIsTerminal: Bool = false) -> Output {
        Output(capturing: true, color: color, errorColor: errorColor, errorIsTerminal: errorIsTerminal)
    }

    init(capturing: Bool, color: Bool, errorColor: Bool? = nil, errorIsTerminal: Bool,
         standardOutput: FileHandle = .standardOutput, standardError: FileHandle = .standardError) {
        self.state = NIOLockedValueBox(State(captured: capturing ? ([], "") : nil))
        self.palette = Palette(enabled: color)
        self.errorPalette = Palette(enabled: errorColor ?? color)
        self.errorIsTerminal = errorIsTerminal
        self.streams = (standardOutput, standardError)
        self.parent = nil
        self.outName = "standard output"
        if !capturing { Self.ignoreSIGPIPE }
    }

    /// Where standard output goes instead: a file (`--output`), or nowhere (`--quiet`).
    package enum Redirection {
        case file(FileHandle, name: String)
        case discard
    }

    private init(parent: Output, redirection: Redirection) {
        self.parent = parent
        self.palette = Palette(enabled: false)  // a file is not a terminal, and a discarded report has no colour to show
        self.errorPalette = parent.errorPalette  // standard error is where it was
        self.errorIsTerminal = parent.errorIsTerminal
        switch redirection {
        case .file(let handle, let name):
            self.state = NIOLockedValueBox(State(captured: nil))
            self.streams = (handle, parent.streams.err)
            self.outName = name
        case .discard:
            // Writes to standard output end at once, as if nobody read them; not an error (see `finish`).
            self.state = NIOLockedValueBox(State(captured: nil, ended: (.discarded, nil)))
            self.streams = parent.streams
            self.outName = "standard output"
        }
    }

    /// An output whose standard output goes to `redirection`, and everything else to this one.
    package func redirected(to redirection: Redirection) -> Output { Output(parent: self, redirection: redirection) }

    /// The exit status once a command wrote to this output: a redirected file is closed, and a write to it that
    /// failed makes a status of 0 into 1, with the reason on standard error.
    package func finish(after status: Int32) -> Int32 {
        guard parent != nil else { return status }
        if streams.out !== parent?.streams.out { try? streams.out.close() }
        return self.status(after: status)
    }

    /// A closed reader must come back as EPIPE, which `write` handles. Left at its default, SIGPIPE kills the process
    /// mid-write, or not: NIO ignores it on Linux only once it opens its first socket (NIOPosix SocketProtocols.swift).
    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    private enum WriteEnd: Sendable {
        case readerGone
        case failed(String)
        /// `--quiet`: nothing is written, by request.
        case discarded
    }

    package func write(_ s: String) { write(bytes: Array(s.utf8)) }

    /// Writes bytes as they are: a response body, which need not be text.
    package func write(bytes: [UInt8]) {
        state.withLockedValue { state in
            if state.captured != nil {
                state.captured?.out += bytes
            } else {
                state.ended.out = state.ended.out ?? Self.send(Data(bytes), to: streams.out)
            }
        }
    }

    package func error(_ s: String) {
        if let parent { return parent.error(s) }
        state.withLockedValue { state in
            if state.captured != nil {
                state.captured?.err += s
            } else {
                state.ended.err = state.ended.err ?? Self.send(Data(s.utf8), to: streams.err)
            }
        }
    }

    /// Writes with the throwing API: `FileHandle.write(_:)` traps on any error, EPIPE included.
    private static func send(_ data: Data, to handle: FileHandle) -> WriteEnd? {
        do {
            try handle.write(contentsOf: data)
            return nil
        } catch {
            return isBrokenPipe(error) ? .readerGone : .failed("\(error)")
        }
    }

    private static func isBrokenPipe(_ error: any Error) -> Bool {
        var current: NSError? = error as NSError
        while let e = current {
            if e.domain == NSPOSIXErrorDomain && e.code == Int(EPIPE) { return true }
            current = e.userInfo[NSUnderlyingErrorKey] as? NSError
        }
        return false
    }

    /// Whether standard output's reader has gone, so a command can stop producing what nobody reads.
    package var standardOutputClosed: Bool {
        state.withLockedValue { state in
            if case .discarded? = state.ended.out { return false }  // --quiet: the command still runs to its end
            return state.ended.out != nil
        }
    }

    /// The exit status for a command that returned `status`: ``brokenPipeStatus`` once a reader went away; 1 for a
    /// command that would have succeeded but could not write its standard output (a full disk, a closed descriptor),
    /// said on standard error when that still works. Messages lost on standard error change nothing.
    package func status(after status: Int32) -> Int32 {
        let (out, err) = state.withLockedValue { $0.ended }
        if case .readerGone? = out { return Self.brokenPipeStatus }
        if case .readerGone? = err { return Self.brokenPipeStatus }
        if case .failed(let reason)? = out {
            if let parent {
                parent.error("ats: cannot write to \(outName): \(reason)\n")
            } else if err == nil {
                _ = Self.send(Data("ats: cannot write to \(outName): \(reason)\n".utf8), to: streams.err)
            }
            return status == 0 ? 1 : status
        }
        return status
    }

    package var standardOutput: String { String(decoding: standardOutputBytes, as: UTF8.self) }
    package var standardOutputBytes: [UInt8] { state.withLockedValue { $0.captured?.out ?? [] } }
    package var standardError: String { state.withLockedValue { $0.captured?.err ?? "" } }

    /// Colour for what goes to standard output; what goes to standard error takes ``errorPalette``.
    func green(_ s: String) -> String { palette.green(s) }
    func red(_ s: String) -> String { palette.red(s) }
    func yellow(_ s: String) -> String { palette.yellow(s) }
    func dim(_ s: String) -> String { palette.dim(s) }
}

/// An input problem the user can fix; reported with exit status 2.
struct InputError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
