import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A real tinyproxy (Debian's package, which `.ci/run` installs) on 127.0.0.1 with a generated configuration, for
/// the proxy tests. Ready once it has logged that it accepts connections; killed by ``stop()`` or on release.
// @unchecked: Process is not Sendable; it is only started in init and signalled in stop().
final class Tinyproxy: @unchecked Sendable {
    static let path = ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy", "/usr/local/bin/tinyproxy", "/opt/homebrew/bin/tinyproxy"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Why the tinyproxy tests cannot run here, or nil.
    static var missing: String? { path == nil ? "tinyproxy is not installed (apt-get install tinyproxy; .ci/run does)" : nil }

    let port: Int
    private let process = Process()
    private let directory: URL
    private let output = NIOLockedValueBox("")

    var url: String { "http://127.0.0.1:\(port)" }

    /// Starts tinyproxy, on another port when the one it was given was taken in between (tests run in parallel, and
    /// tinyproxy cannot be told to take an ephemeral port and say which).
    /// - Parameter basicAuth: the user and password tinyproxy then requires (it answers 407 without them).
    static func start(basicAuth: (user: String, password: String)? = nil) async throws -> Tinyproxy {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await Tinyproxy(port: try await freePort(), basicAuth: basicAuth)
            } catch let error as TestServerError where attempt < 5 && error.description.contains("listening socket") {
                continue
            }
        }
    }

    private init(port: Int, basicAuth: (user: String, password: String)?) async throws {
        guard let path = Self.path else { throw TestServerError(Self.missing ?? "no tinyproxy") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tinyproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.port = port
        // No LogFile: in the foreground (-d) tinyproxy logs to standard output, which is read as it comes.
        var config = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 60
            MaxClients 200
            LogLevel Info

            """
        if let basicAuth { config += "BasicAuth \(basicAuth.user) \(basicAuth.password)\n" }
        let file = directory.appendingPathComponent("tinyproxy.conf")
        try config.write(to: file, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-d", "-c", file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read on a dispatch thread until tinyproxy exits, so that its pipe never fills; ready at its listening line.
        let output = self.output
        let ready: Bool = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var resumed = false
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    let text = output.withLockedValue { $0 += String(decoding: chunk, as: UTF8.self); return $0 }
                    if !resumed && text.contains("Accepting connections") {
                        resumed = true
                        continuation.resume(returning: true)
                    }
                }
                if !resumed { continuation.resume(returning: false) }
            }
        }
        guard ready else {
            stop()
            throw TestServerError("tinyproxy did not start: \(output.withLockedValue { $0 })")
        }
    }

    /// What tinyproxy logged so far, for checking that a request went through it.
    var logText: String { output.withLockedValue { $0 } }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// A port nothing listens on now: bound, read and released (tinyproxy cannot report an ephemeral port).
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port
        try await channel.close()
        guard let port else { throw TestServerError("no port") }
        return port
    }
}
