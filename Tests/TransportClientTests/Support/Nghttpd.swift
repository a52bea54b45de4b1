import ATSTestServers
import Foundation
import TestServersSupport

/// A real HTTP/2 server, nghttpd (Debian's nghttp2-server, which `.ci/run` installs), on 127.0.0.1 over TLS with
/// ALPN h2 only, serving files from its own document root.
struct Nghttpd: Sendable {
    static let path = LocalDaemon.find(["/usr/sbin/nghttpd", "/usr/bin/nghttpd", "/usr/local/bin/nghttpd", "/opt/homebrew/bin/nghttpd"])

    let daemon: LocalDaemon

    var port: Int { daemon.port }

    func stop() { daemon.stop() }

    /// - Parameters:
    ///   - files: document root contents, path → bytes.
    ///   - maxConcurrentStreams: the SETTINGS_MAX_CONCURRENT_STREAMS it announces.
    static func start(_ pki: ServerPKI, files: [String: [UInt8]], maxConcurrentStreams: Int = 100) async throws -> Nghttpd {
        guard let path else { throw TestServerError("nghttpd is not installed (apt-get install nghttp2-server; .ci/run does)") }
        // -v prints frames, and the listening line that says it is ready.
        let daemon = try await LocalDaemon.start(path, readyLine: "listen 127.0.0.1:", portTaken: "Could not listen") { port, directory in
            let root = directory.appendingPathComponent("htdocs")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            for (name, bytes) in files { try Data(bytes).write(to: root.appendingPathComponent(name)) }
            try (pki.leaf.pem + pki.intermediate.pem).write(to: directory.appendingPathComponent("chain.pem"), atomically: true, encoding: .utf8)
            try pki.leaf.key.pemString.write(to: directory.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
            return ["-v", "-a", "127.0.0.1", "-d", root.path, "-m", String(maxConcurrentStreams), String(port),
                    directory.appendingPathComponent("key.pem").path, directory.appendingPathComponent("chain.pem").path]
        }
        return Nghttpd(daemon: daemon)
    }
}
