import TestSupport
import ATSCommandLine
import ATSDiagnostics
import ATSTestServers
import Foundation
import TransportTrust

// Shared by ATSDiagnosticsTests and ATSCommandLineTests, which link into one test process: one set of local servers
// and one gate for the whole run.

/// The local cases, started once for the whole test run (certificate and RSA key generation is the slow part).
public actor SharedServers {
    public static let shared = SharedServers()
    private var started: Task<(LocalServers, TemporaryDirectory), any Error>?

    public func servers() async throws -> LocalServers {
        let task = started ?? Task {
            let directory = try TemporaryDirectory()
            return (try await LocalServers.start(directory: directory.path), directory)
        }
        started = task
        return try await task.value.0
    }
}


/// A diagnoser that trusts the local CA only; for a CT case, as a public root with the local CT log list.
public func localDiagnoser(_ servers: LocalServers, timeout: Duration = .seconds(30), for testCase: BadSSLCase = .good) throws -> Diagnoser {
    let trust = try servers.trust(for: testCase)
    // Long per-test limits: the whole package's tests share two cores. Tests about deadlines set their own.
    var options = DiagnosisOptions(anchors: trust.anchors, timeout: timeout)
    options.certificateTransparency = trust.transparency
    return Diagnoser(options: options)
}

/// Runs `ats` in-process and returns exit status, standard output and standard error.
/// `errorIsTerminal` makes standard error behave as a terminal's.
public func ats(_ arguments: [String], errorIsTerminal: Bool = false) async -> (status: Int32, out: String, err: String) {
    await DiagnosisGate.shared.run {
        let output = Output.capture(errorIsTerminal: errorIsTerminal)
        let status = await ATSCommand.run(arguments: withGenerousTimeLimits(arguments), output: output)
        return (status, output.standardOutput, output.standardError)
    }
}

/// Lets a few diagnoses run at once across the whole test run. Each diagnosis opens 17 connections in parallel;
/// Swift Testing would otherwise start every case of every suite together (hundreds of debug-build handshakes on two
/// cores) and the tests would measure the machine's load instead of the behaviour.
public actor DiagnosisGate {
    public static let shared = DiagnosisGate(slots: 2)
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(slots: Int) { free = slots }

    public func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

extension Diagnoser {
    /// ``diagnose(url:)`` through the test run's gate.
    public func gated(_ url: String) async throws -> HostDiagnosis {
        try await DiagnosisGate.shared.run { try await diagnose(url: url) }
    }
}

extension LocalServers {
    /// `openssl s_server`, TLS 1.2 only, with an RSA leaf from the local CA and only the OpenSSL `ciphers` given.
    public func openSSLServer(ciphers: String, _ extra: [String] = []) throws -> (OpenSSLServer, TemporaryDirectory) {
        let dir = try TemporaryDirectory()
        let leaf = try pki.leaf(key: pki.rsaKey)
        try dir.write("leaf.pem", leaf.pem)
        try dir.write("intermediate.pem", pki.intermediate.pem)
        try dir.write("key.pem", pki.rsaKey.pem)
        // -cert serves only the first certificate of its file; the intermediate goes in -cert_chain.
        let server = try OpenSSLServer(arguments: ["-cert", "leaf.pem", "-cert_chain", "intermediate.pem", "-key", "key.pem", "-tls1_2",
                                                   "-cipher", ciphers, "-www"] + extra, in: dir.path)
        return (server, dir)
    }
}
