import Foundation

/// The `openssl` tool, which makes what swift-certificates cannot (RSA-1024, RSA-PSS, PKCS#12) and serves as a peer.
public enum OpenSSLCommand {
    public static let path = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/openssl"

    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Runs `openssl` with `arguments` in `directory` and returns its output, or throws with it. An openssl still
    /// running after `limit` is killed, and the error says so.
    @discardableResult
    public static func run(_ arguments: [String], in directory: URL, limit: Duration = .seconds(300)) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let killed = ProcessLimit(process, after: limit)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killed.cancel()
        let text = String(decoding: data, as: UTF8.self)
        guard !killed.fired else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) did not end within \(limit) and was killed: \(text)")
        }
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }
}
