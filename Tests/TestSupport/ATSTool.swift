import Foundation

/// The `ats` executable the package builds, run as a person runs it: its own process, environment and exit status.
public enum ATSTool {
    public struct Result: Sendable, CustomStringConvertible {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
        public var description: String { "exit \(status)\nstdout: \(standardOutput)\nstderr: \(standardError)" }
    }

    public struct NotBuilt: Error, CustomStringConvertible {
        public var description: String { "the ats executable was not found; build it with swift build --build-tests" }
    }

    /// Beside the test runner, or in the package's debug build folder; nil when it has not been built.
    public static var built: URL? {
        [URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("ats"),
         URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/ats")]
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    public static func executable() throws -> URL {
        guard let built else { throw NotBuilt() }
        return built
    }

    /// Runs `ats` with `arguments`, adding `environment` to this process's, and waits for it to end.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        // Read both pipes while it runs, so that neither fills and stalls it.
        async let stdout = Task.detached { out.fileHandleForReading.readDataToEndOfFile() }.value
        async let stderr = Task.detached { err.fileHandleForReading.readDataToEndOfFile() }.value
        try process.run()
        let (o, e) = await (stdout, stderr)
        process.waitUntilExit()
        return Result(status: process.terminationStatus, standardOutput: String(decoding: o, as: UTF8.self),
                      standardError: String(decoding: e, as: UTF8.self))
    }
}
