import Foundation

/// The package's own files, for tests that check the repository against its documents.
public enum Repository {
    /// The package's root folder: two levels above this file's target folder.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every Swift file below `folder` (a path from the root), in no particular order.
    public static func swiftFiles(under folder: String) -> [URL] {
        let walker = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
        return (walker?.allObjects ?? []).compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    /// Real chains with embedded SCTs and their roots (DEVELOPERS.md, "Reference data"), read by the trust tests and
    /// the command tests.
    public static let appleChains = root.appendingPathComponent("Tests/TransportTrustTests/Fixtures/AppleChains")
}
