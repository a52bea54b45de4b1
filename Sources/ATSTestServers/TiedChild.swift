import Foundation
import NIOConcurrencyHelpers

/// Starts a child process that cannot outlive this one.
///
/// A test server (nghttpd, tinyproxy, `openssl s_server`, `ats serve`) is killed when its owner is released, but a
/// test run that ends early (a time limit, a crash, a signal) releases nothing, and its servers kept running. On
/// Linux the child is started through util-linux's `setpriv --pdeathsig KILL`, so the kernel kills it when its parent
/// goes. The kernel's parent is the thread that spawned it, not the process, and a pool thread may end at any time
/// (killing a child mid-test); so every spawn runs on one thread that lives as long as this process.
package enum TiedChild {
    /// Runs `process` (configured, not yet running) tied to this process's life; as `Process.run()` where that
    /// is not possible (no `setpriv`, not Linux, or an executable that is not there, so `run()` reports it).
    ///
    /// Blocks for the spawn itself, as `Process.run()` does.
    package static func run(_ process: Process) throws {
        #if os(Linux)
        if let executable = process.executableURL, FileManager.default.isExecutableFile(atPath: executable.path),
           FileManager.default.isExecutableFile(atPath: setpriv) {
            process.arguments = ["--pdeathsig", "KILL", "--", executable.path] + (process.arguments ?? [])
            process.executableURL = URL(fileURLWithPath: setpriv)
        }
        try SpawnThread.shared.run { try process.run() }
        #else
        try process.run()
        #endif
    }

    private static let setpriv = "/usr/bin/setpriv"
}

/// The one thread that spawns tied children, for as long as the process runs.
private final class SpawnThread: Sendable {
    static let shared = SpawnThread()

    private let jobs = NIOLockedValueBox<[@Sendable () -> Void]>([])
    private let wake = DispatchSemaphore(value: 0)

    private init() {
        let (jobs, wake) = (self.jobs, self.wake)
        let thread = Thread {
            while true {
                wake.wait()
                for job in jobs.withLockedValue({ queued in defer { queued = [] }; return queued }) { job() }
            }
        }
        thread.name = "tied-child-spawner"
        thread.start()
    }

    func run(_ spawn: @escaping @Sendable () throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = NIOLockedValueBox<(any Error)?>(nil)
        jobs.withLockedValue { $0.append { do { try spawn() } catch { failure.withLockedValue { $0 = error } }; done.signal() } }
        wake.signal()
        done.wait()
        if let error = failure.withLockedValue({ $0 }) { throw error }
    }
}
