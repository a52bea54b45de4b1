import Foundation
import ATSTestServers
import NIOConcurrencyHelpers
import TestSupport
import Testing

/// A long-running child process (`ats serve`) whose output lines a test can wait for, read on dispatch threads.
public final class RunningProcess: Sendable {
    private let process: Process
    private let state = NIOLockedValueBox<(out: String, err: String, waiters: [(Bool, String, CheckedContinuation<Bool, Never>)], ended: Bool)>(("", "", [], false))

    public init(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        self.process = process
        try TiedChild.run(process)
        for (pipe, isError) in [(out, false), (err, true)] {
            let handle = pipe.fileHandleForReading
            DispatchQueue.global().async { [self] in
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    append(String(decoding: data, as: UTF8.self), isError: isError)
                }
                if isError { finish() }
            }
        }
    }

    public var output: String { state.withLockedValue { $0.out } }
    public var errors: String { state.withLockedValue { $0.err } }

    private func append(_ text: String, isError: Bool) {
        let ready = state.withLockedValue { state -> [CheckedContinuation<Bool, Never>] in
            if isError { state.err += text } else { state.out += text }
            let (out, err) = (state.out, state.err)
            let done = state.waiters.filter { ($0.0 ? err : out).contains($0.1) }
            state.waiters.removeAll { ($0.0 ? err : out).contains($0.1) }
            return done.map(\.2)
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    private func finish() {
        let waiting = state.withLockedValue { state -> [CheckedContinuation<Bool, Never>] in
            state.ended = true
            defer { state.waiters = [] }
            return state.waiters.map(\.2)
        }
        for continuation in waiting { continuation.resume(returning: false) }
    }

    /// Whether `text` appears on standard output (or error); false when the process ends first, or when `limit`
    /// passes first, which is recorded as an issue naming the text.
    public func waitFor(_ text: String, onStandardError: Bool = false, within limit: Duration = .seconds(180)) async -> Bool {
        guard let seen = await bounded(limit, { await self.appears(text, onStandardError: onStandardError) }) else {
            Issue.record("\"\(text)\" did not appear on standard \(onStandardError ? "error" : "output") within \(limit)")
            return false
        }
        return seen
    }

    private func appears(_ text: String, onStandardError: Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            let answer: Bool? = state.withLockedValue { state in
                if (onStandardError ? state.err : state.out).contains(text) { return true }
                if state.ended { return false }
                state.waiters.append((onStandardError, text, continuation))
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    public func interrupt() { if process.isRunning { kill(process.processIdentifier, SIGINT) } }

    /// The exit status, once the process has ended (waited for on a dispatch thread); nil when it has not ended
    /// within `limit`, which is recorded as an issue, and the process is then killed.
    public func exitStatus(within limit: Duration = .seconds(180)) async -> Int32? {
        let killed = ChildLimit.kill(process, after: limit)
        let status = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [process] in
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
        killed.cancel()
        guard !killed.fired else {
            Issue.record("the process did not end within \(limit) and was killed")
            return nil
        }
        return status
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}
