import Foundation
import TestSupport

/// The exit status and the output (standard output and error together) of a finished process.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var output: String
}

/// Runs `path` with `arguments` to its end, off the cooperative pool that the server's verification tasks need.
public func runProcess(_ path: String, _ arguments: [String], input: String = "") async throws -> ProcessResult {
    let result = try await Subprocess.run(URL(fileURLWithPath: path), arguments, input: Data(input.utf8), mergingErrors: true)
    return ProcessResult(status: result.status, output: result.output)
}

public let curlPath: String? = ["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }
public let opensslPath: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
