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
        let result = try await Subprocess.run(try executable(), arguments, environment: environment)
        return Result(status: result.status, standardOutput: result.output, standardError: result.errors)
    }
}
