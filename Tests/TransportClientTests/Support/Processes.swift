import TestSupport
import ATSTestServers
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

// `openssl s_server` servers come from ATSTestServers' OpenSSLServer, shared with the diagnostics tests.
