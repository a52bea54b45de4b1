import Foundation

/// An `openssl s_server` child process on 127.0.0.1, for what swift-nio-ssl's BoringSSL cannot serve (the
/// ECDHE `*_CBC_SHA384` suites, DHE). Ready once it has printed its ACCEPT line; killed by ``stop()`` or on release.
public final class OpenSSLServer: Sendable {
    /// The first `openssl` binary found in the usual places, nil when there is none.
    public static let path = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether an `openssl` binary was found.
    public static var isAvailable: Bool { path != nil }

    private let process = Process()
    /// The port on 127.0.0.1 `openssl s_server` listens on.
    public let port: Int

    /// Starts `openssl s_server -accept 127.0.0.1:0 <arguments>` in `directory` and waits for the line naming its port.
    /// An s_server that has not printed it within `limit` is killed, and this throws saying so.
    public init(arguments: [String], in directory: String, limit: Duration = .seconds(120)) throws {
        guard let path = Self.path else { throw TestServerError("no openssl binary found; install openssl") }
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["s_server", "-accept", "127.0.0.1:0"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = Pipe()
        do { try TiedChild.run(process) } catch { throw TestServerError("cannot run openssl s_server: \(error)") }
        // Killing it ends the read below, which then reports that it never printed its ACCEPT line.
        let limited = ChildLimit.kill(process, after: limit)
        var buffer = ""
        var found: Int?
        while found == nil {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer += String(decoding: chunk, as: UTF8.self)
            for line in buffer.split(separator: "\n") where line.hasPrefix("ACCEPT ") {
                found = line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            }
        }
        limited.cancel()
        guard let found else {
            process.terminate()
            if limited.fired { throw TestServerError("openssl s_server did not print its ACCEPT line within \(limit) and was killed: \(buffer)") }
            throw TestServerError("openssl s_server did not start: \(buffer)")
        }
        // The few lines s_server prints per connection fit in the pipe's buffer for short runs.
        port = found
    }

    /// Kills the server (s_server does not always stop on SIGTERM).
    public func stop() { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    deinit { stop() }
}
