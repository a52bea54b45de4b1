import Foundation

/// Runs `openssl` with arguments in `directory` and returns its output, or throws with it.
@discardableResult
func openssl(_ arguments: [String], in directory: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: opensslPath)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else { throw TestServerError("openssl \(arguments.joined(separator: " ")) failed: \(text)") }
    return text
}

let opensslPath = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
    .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/openssl"

var opensslAvailable: Bool { FileManager.default.isExecutableFile(atPath: opensslPath) }

/// An `openssl s_server` child process, ready once it has printed its ACCEPT line.
final class OpenSSLServer: @unchecked Sendable {
    let process = Process()
    let port: Int
    private let output: FileHandle

    /// Starts `openssl s_server -accept 127.0.0.1:0 <arguments>` and waits for the line naming its port.
    init(arguments: [String], in directory: String) throws {
        process.executableURL = URL(fileURLWithPath: opensslPath)
        process.arguments = ["s_server", "-accept", "127.0.0.1:0"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = Pipe()
        output = pipe.fileHandleForReading
        try process.run()
        // Read line by line until "ACCEPT 127.0.0.1:PORT" (the readiness line; no sleeping).
        var buffer = ""
        var found: Int?
        while found == nil {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            buffer += String(decoding: chunk, as: UTF8.self)
            for line in buffer.split(separator: "\n") where line.hasPrefix("ACCEPT ") {
                found = line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            }
        }
        guard let found else {
            process.terminate()
            throw TestServerError("openssl s_server did not start: \(buffer)")
        }
        // The few lines s_server prints per connection fit in the pipe's buffer for these short tests.
        port = found
    }

    /// Kills the server (s_server does not always stop on SIGTERM). Not waiting: Foundation's waitUntilExit
    /// spins a run loop, which must not happen on a Swift concurrency thread.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { stop() }
}
