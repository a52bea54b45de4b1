import Logging
import TestSupport
import TransportServer
import NIOConcurrencyHelpers

/// Keeps every log line, and lets a test wait for the next one: the refusal line is logged when the connection
/// ends, which may be after the client has given up.
public final class LogCapture: Sendable {
    private let state = NIOLockedValueBox<(lines: [String], waiters: [(count: Int, continuation: CheckedContinuation<[String], Never>)])>(([], []))

    public init() {}

    public var lines: [String] { state.withLockedValue { $0.lines } }

    public var logger: Logger {
        Logger(label: "test.mtls") { _ in LineLogHandler(logLevel: .trace) { self.append($0) } }
    }

    private func append(_ line: String) {
        let ready: [CheckedContinuation<[String], Never>]
        let lines: [String]
        (ready, lines) = state.withLockedValue { state in
            state.lines.append(line)
            let have = state.lines.count
            let done = state.waiters.filter { $0.count <= have }.map(\.continuation)
            state.waiters.removeAll { $0.count <= have }
            return (done, state.lines)
        }
        for continuation in ready { continuation.resume(returning: lines) }
    }

    /// The lines once there are at least `count`, or as they are after `limit`, so that a missing line fails the test
    /// instead of hanging it.
    public func waitForLines(_ count: Int, within limit: Duration = .seconds(180)) async -> [String] {
        await bounded(limit) { await self.lines(atLeast: count) } ?? lines
    }

    private func lines(atLeast count: Int) async -> [String] {
        await withCheckedContinuation { continuation in
            let now: [String]? = state.withLockedValue { state in
                if state.lines.count >= count { return state.lines }
                state.waiters.append((count, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
