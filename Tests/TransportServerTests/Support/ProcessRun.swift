import Foundation

/// The exit status and the output (standard output and error together) of a finished process.
struct ProcessResult: Sendable {
    var status: Int32
    var output: String
}

/// Runs `path` with `arguments` and waits for it without holding a thread of the cooperative pool, which the
/// server's verification tasks need: the wait and the read happen on a dispatch thread.
func runProcess(_ path: String, _ arguments: [String], input: String = "") async throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let out = Pipe()
    let stdin = Pipe()
    process.standardOutput = out
    process.standardError = out
    process.standardInput = stdin
    try process.run()
    return await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            continuation.resume(returning: ProcessResult(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self)))
        }
    }
}

let curlPath: String? = ["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }
let opensslPath: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
