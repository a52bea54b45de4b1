import Foundation

// Support shared by the test targets (a plain target: test targets cannot depend on one another).

/// A scratch directory, removed when released.
public final class TemporaryDirectory: Sendable {
    public let url: URL
    public var path: String { url.path }

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("swift-transport-security-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `text` to `name` and returns the path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }

    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file.path
    }

    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }
}
