import ATSTestServers
import Foundation

/// A real tinyproxy (Debian's package, which `.ci/run` installs) on 127.0.0.1 with a generated configuration, for
/// the proxy tests.
public struct Tinyproxy: Sendable {
    public static let path = LocalDaemon.find(["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy", "/usr/local/bin/tinyproxy", "/opt/homebrew/bin/tinyproxy"])

    public let daemon: LocalDaemon

    public var port: Int { daemon.port }
    public var url: String { "http://127.0.0.1:\(port)" }
    /// What tinyproxy logged so far, for checking that a request went through it.
    public var logText: String { daemon.log }

    public func stop() { daemon.stop() }

    /// - Parameter basicAuth: the user and password tinyproxy then requires (it answers 407 without them).
    public static func start(basicAuth: (user: String, password: String)? = nil) async throws -> Tinyproxy {
        guard let path else { throw TestServerError("tinyproxy is not installed (apt-get install tinyproxy; .ci/run does)") }
        // No LogFile: in the foreground (-d) tinyproxy logs to standard output.
        let daemon = try await LocalDaemon.start(path, readyLine: "Accepting connections", portTaken: "listening socket") { port, directory in
            var config = "Port \(port)\nListen 127.0.0.1\nTimeout 60\nMaxClients 200\nLogLevel Info\n"
            if let basicAuth { config += "BasicAuth \(basicAuth.user) \(basicAuth.password)\n" }
            let file = directory.appendingPathComponent("tinyproxy.conf")
            try config.write(to: file, atomically: true, encoding: .utf8)
            return ["-d", "-c", file.path]
        }
        return Tinyproxy(daemon: daemon)
    }
}
