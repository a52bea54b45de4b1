import Foundation
import ATSTestServers
import TestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A server program (tinyproxy, nghttpd) run in the foreground on 127.0.0.1 for a test: its output is read on a
/// dispatch thread as it comes (never the cooperative pool, and its pipe never fills), and it is ready once it has
/// printed `readyLine`. Killed by ``stop()`` or on release, with its directory.
public final class LocalDaemon: Sendable {
    public let port: Int
    public let directory: URL
    private let process = Process()
    private let output = NIOLockedValueBox("")

    /// The first of `candidates` that is an executable file.
    public static func find(_ candidates: [String]) -> String? { candidates.first { FileManager.default.isExecutableFile(atPath: $0) } }

    /// Starts `path` with the arguments `arguments(port, directory)` gives, on a port nothing listened on a moment
    /// ago, and again on another when that one was taken in between (tests run in parallel, and these programs
    /// cannot be told to take an ephemeral port and say which).
    /// - Parameters:
    ///   - prepare: writes what the program needs into its directory (configuration, certificates) for a port.
    ///   - portTaken: text the program prints when it cannot listen.
    ///   - limit: how long it may take to print `readyLine`; past it the program is killed and this throws, naming it.
    public static func start(_ path: String, readyLine: String, portTaken: String, limit: Duration = .seconds(120),
                      prepare: (Int, URL) throws -> [String]) async throws -> LocalDaemon {
        var attempt = 0
        while true {
            attempt += 1
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("daemon-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let port = try await freePort()
            do {
                return try await LocalDaemon(path: path, arguments: try prepare(port, directory), port: port, directory: directory,
                                             readyLine: readyLine, limit: limit)
            } catch let error as TestServerError where attempt < 5 && error.description.contains(portTaken) {
                continue
            }
        }
    }

    private init(path: String, arguments: [String], port: Int, directory: URL, readyLine: String, limit: Duration) async throws {
        self.port = port
        self.directory = directory
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try TiedChild.run(process)
        // Killing it ends the read below, which then reports that it never became ready.
        let killed = ChildLimit.kill(process, after: limit)
        let output = self.output
        let ready: Bool = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var resumed = false
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    let text = output.withLockedValue { $0 += String(decoding: chunk, as: UTF8.self); return $0 }
                    if !resumed && text.contains(readyLine) {
                        resumed = true
                        continuation.resume(returning: true)
                    }
                }
                if !resumed { continuation.resume(returning: false) }
            }
        }
        killed.cancel()
        guard ready else {
            stop()
            let printed = output.withLockedValue { $0 }
            if killed.fired { throw TestServerError("\(path) did not print \"\(readyLine)\" within \(limit) and was killed: \(printed)") }
            throw TestServerError("\(path) did not start: \(printed)")
        }
    }

    /// What the program printed so far.
    public var log: String { output.withLockedValue { $0 } }

    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// A port nothing listens on now: bound, read and released.
    public static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port
        try await channel.close()
        guard let port else { throw TestServerError("no port") }
        return port
    }
}
