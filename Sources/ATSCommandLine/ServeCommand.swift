import ATSDiagnostics
import ATSTestServers
import ArgumentParser
import Foundation
import NIOConcurrencyHelpers

/// `ats serve`: the local badssl, on 127.0.0.1, until interrupted.
struct ServeCommand: AsyncParsableCommand, ExecutableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve known good and bad HTTPS cases on 127.0.0.1 behind a generated local CA (an offline badssl).",
        discussion: """
            Prints each case's URL, the CA file clients must trust, and what `ats diagnose` should find, then serves until \
            interrupted (Ctrl-C). Case i listens on --port-base + i and the plain-http redirect target on the port after the last.
            Try: ats diagnose --anchors CA_FILE URL

            With --mtls it runs one HTTPS server instead, on --port, that verifies each client certificate against \
            --client-anchors with the trust engine and answers every request with the verdict as JSON; refusals are \
            printed with their reasons. Try: curl --cacert CA_FILE --cert client.pem --key client-key.pem URL
            What it prints says what it serves until interrupted; that is no report, so it takes no --json, --output or \
            --quiet: the files it writes are in --directory.
            """
    )

    @Option(name: .customLong("port-base"), help: "The first port (default 8443); 0 picks free ports.")
    var portBase: Int = 8443

    @Option(help: "Where to write ca.pem, client.pem and client-key.pem (default: a new temporary directory).")
    var directory: String?

    @Option(name: .customLong("case"), help: "Serve only this case. Repeatable. One of: \(BadSSLCase.allCases.map(\.rawValue).joined(separator: ", ")).")
    var cases: [String] = []

    @OptionGroup var mtls: MutualTLSServeOptions

    func validate() throws {
        try mtls.validate()
        if mtls.enabled {
            if !cases.isEmpty || portBase != 8443 {
                throw ValidationError("--case and --port-base choose badssl cases, which --mtls does not serve; use --port")
            }
            return
        }
        if portBase != 0 && !(1...(65535 - BadSSLCase.allCases.count)).contains(portBase) {
            throw ValidationError("--port-base must be 0 or between 1 and \(65535 - BadSSLCase.allCases.count), not \(portBase)")
        }
        for name in cases where BadSSLCase(rawValue: name) == nil {
            throw ValidationError("unknown --case '\(name)'; use one of \(BadSSLCase.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() async throws { throw ExitCode(await execute(output: .standard)) }

    func execute(output out: Output) async -> Int32 {
        if mtls.enabled { return await mtls.execute(directory: directory, output: out) }
        let servers: LocalServers
        do {
            let dir = try directory ?? Self.temporaryDirectory()
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw InputError("--directory '\(dir)' is not an existing directory")
            }
            let only = cases.isEmpty ? BadSSLCase.allCases : cases.compactMap(BadSSLCase.init(rawValue:))
            servers = try await LocalServers.start(portBase: portBase, directory: dir, only: only)
        } catch {
            out.error("ats serve: \(error)\n")
            return 2
        }
        out.write(Self.describe(servers))
        await Self.waitForInterrupt()
        out.write("\nstopping\n")
        await servers.shutdown()
        return 0
    }

    /// The table `ats serve` prints: case, URL, what the server does, what a diagnosis must find.
    static func describe(_ servers: LocalServers) -> String {
        let rows = servers.cases.map { [$0.testCase.rawValue, $0.url, $0.testCase.summary, $0.testCase.expectedText] }
        var s = DiagnosisRendering.table(header: ["CASE", "URL", "SERVER", "EXPECTED (default ATS; smallest fix)"], rows: rows)
        s += "\nplain http redirect target: http://127.0.0.1:\(servers.httpTarget.port)/\n"
        s += "CA file to trust:           \(servers.caFile)\n"
        s += "client certificate:         \(servers.clientCertificateFile) (key \(servers.clientKeyFile))\n"
        s += "basic auth:                 \(LocalServers.basicAuthUser):\(LocalServers.basicAuthPassword)\n"
        s += "CT log list (ct-* cases):   \(servers.ctLogListFile)\n"
        if let good = servers.cases.first?.url {
            s += "\ntry:  ats diagnose --anchors \(servers.caFile) \(good)\n"
            s += "      curl --cacert \(servers.caFile) \(good)\n"
        }
        if let ct = servers.cases.first(where: { $0.testCase.needsPublicRoot })?.url {
            // Apple requires CT and the 398-day limit only for public roots: the CA must come in as a system root.
            s += "      SSL_CERT_FILE=\(servers.caFile) ATS_CT_LOG_LIST=\(servers.ctLogListFile) ats diagnose \(ct)\n"
        }
        s += "serving until interrupted (Ctrl-C)\n"
        return s
    }

    static func temporaryDirectory() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ats-serve-\(UUID().uuidString.prefix(8))")
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
            throw InputError("cannot create a directory for the CA file: \(error)")
        }
        return url.path
    }

    /// Suspends until SIGINT or SIGTERM.
    static func waitForInterrupt() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = OnceFlag()
            var sources: [any DispatchSourceSignal] = []
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                source.setEventHandler {
                    if once.claim() { continuation.resume() }
                }
                source.resume()
                sources.append(source)
            }
            SignalSources.keep(sources)
        }
    }
}

/// True exactly once, whichever thread asks first.
final class OnceFlag: Sendable {
    private let taken = NIOLockedValueBox(false)
    func claim() -> Bool { taken.withLockedValue { taken in defer { taken = true }; return !taken } }
}

/// Keeps signal sources alive for the life of the process.
enum SignalSources {
    // Dispatch does not mark its sources Sendable on Linux; the box's lock is what guards them.
    nonisolated(unsafe) private static let kept = NIOLockedValueBox<[any DispatchSourceSignal]>([])
    static func keep(_ sources: [any DispatchSourceSignal]) { kept.withLockedValue { $0 += sources } }
}
