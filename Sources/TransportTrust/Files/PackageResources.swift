import Foundation

/// Files this package ships as SwiftPM resources, found without `Bundle.module`, whose accessor traps when the
/// resource bundle is missing (an `ats` binary copied without its bundle). A missing file is an error instead.
package enum PackageResources {
    static let bundleName = "swift-transport-security_TransportTrust"

    /// The bytes of `path` inside the resource bundle, or why they cannot be read.
    package struct Missing: Error, CustomStringConvertible {
        package let description: String
    }

    package static func read(_ path: String) -> Result<[UInt8], Missing> {
        for base in candidates() {
            let url = base.appendingPathComponent(path)
            if let data = try? Data(contentsOf: url) { return .success(Array(data)) }
        }
        return .failure(Missing(description: "\(bundleName).resources/\(path) was not found beside the executable"))
    }

    /// A folder inside the resource bundle, when the bundle is there.
    package static func directory(_ path: String) -> URL? {
        candidates().lazy.map { $0.appendingPathComponent(path) }.first { FileManager.default.fileExists(atPath: $0.path) }
    }

    private static func candidates() -> [URL] {
        var dirs: [URL] = [Bundle.main.bundleURL, Bundle.main.resourceURL].compactMap { $0 }
        if let exe = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() { dirs.append(exe) }
        var out: [URL] = []
        for dir in dirs {
            out.append(dir.appendingPathComponent("\(bundleName).resources"))
            out.append(dir.appendingPathComponent("\(bundleName).bundle"))
            out.append(dir.appendingPathComponent("\(bundleName).bundle/Contents/Resources"))
        }
        return out
    }
}
