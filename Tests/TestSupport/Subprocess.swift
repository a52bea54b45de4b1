import Foundation

/// A child process run to its end without holding a thread of Swift's cooperative pool.
///
/// The pool has one thread per core. A test that blocks one in `readDataToEndOfFile` or `waitUntilExit` while the
/// child talks to a server in this process starves that server's verification tasks, and on a two-core machine
/// the handshake then runs out its time limit. So the pipes are read, and the exit awaited, on dispatch threads.
public enum Subprocess {
    public struct Result: Sendable, CustomStringConvertible {
        public var status: Int32
        public var standardOutput: Data
        /// Empty when standard error was merged into standard output.
        public var standardError: Data

        public var output: String { String(decoding: standardOutput, as: UTF8.self) }
        public var errors: String { String(decoding: standardError, as: UTF8.self) }
        public var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors)" }
    }

    /// A child that was still running at its time limit, and was killed.
    public struct TimedOut: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `executable` with `arguments` and waits for it to end.
    /// - Parameters:
    ///   - environment: added to this process's environment.
    ///   - input: written to standard input, which is then closed; without it standard input is /dev/null.
    ///   - mergingErrors: standard error goes to the same pipe as standard output.
    ///   - limit: how long the child may run. Past it the child is killed and this throws ``TimedOut`` naming the
    ///     command and what it printed, so that a child that never ends fails its test instead of hanging the run.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                           directory: URL? = nil, input: Data? = nil, mergingErrors: Bool = false,
                           limit: Duration = .seconds(300)) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = mergingErrors ? out : Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = input.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        let killed = ProcessLimit(process, after: limit)
        let result = await withCheckedContinuation { continuation in
            let group = DispatchGroup()
            let errors = ErrorBox()
            if let stdin, let input {
                DispatchQueue.global().async(group: group) {
                    try? stdin.fileHandleForWriting.write(contentsOf: input)
                    try? stdin.fileHandleForWriting.close()
                }
            }
            if !mergingErrors {
                DispatchQueue.global().async(group: group) { errors.data = err.fileHandleForReading.readDataToEndOfFile() }
            }
            DispatchQueue.global().async {
                let output = out.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                continuation.resume(returning: Result(status: process.terminationStatus, standardOutput: output,
                                                      standardError: errors.data))
            }
        }
        killed.cancel()
        guard !killed.fired else {
            throw TimedOut(description: "\(([executable.path] + arguments).joined(separator: " ")) did not end within \(limit) and was killed\n\(result)")
        }
        return result
    }

    /// Written by one dispatch thread before the group it belongs to is waited for.
    private final class ErrorBox: @unchecked Sendable {
        var data = Data()
    }
}

extension Subprocess {
    /// Runs `executable` and sends it `signal` once its standard error has printed `lines` lines: a process stopped
    /// midway on an event it reports, never after a sleep. Returns its exit status (negative: the signal that ended it)
    /// and whether the signal was sent (it was not when the process ended first).
    public static func interrupt(_ executable: URL, _ arguments: [String], afterErrorLines lines: Int, signal: Int32,
                                 limit: Duration = .seconds(300)) async throws -> (status: Int32, signalled: Bool) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let killed = ProcessLimit(process, after: limit)
        let signalled = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async {
                var seen = 0
                var sent = false
                while true {
                    let chunk = err.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    seen += chunk.filter { $0 == 0x0A }.count
                    if !sent && seen >= lines {
                        kill(process.processIdentifier, signal)
                        sent = true
                    }
                }
                process.waitUntilExit()
                continuation.resume(returning: sent)
            }
        }
        killed.cancel()
        guard !killed.fired else { throw TimedOut(description: "\(executable.path) did not end within \(limit) and was killed") }
        let status = process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
        return (status, signalled)
    }
}
