import Foundation
import ATSTestServers
import TestSupport
import TestServersSupport
import Testing

@testable import ATSCommandLine

/// Where commands write: a reader that goes away ends the output quietly, without a trap or a signal.
@Suite struct OutputTests {
    private func output(out: FileHandle, err: FileHandle) -> Output {
        Output(capturing: false, color: false, errorIsTerminal: false, standardOutput: out, standardError: err)
    }

    @Test func aReaderThatLeftEndsWritingQuietlyWithSIGPIPEsStatus() throws {
        let out = Pipe(), err = Pipe()
        try out.fileHandleForReading.close()
        let output = output(out: out.fileHandleForWriting, err: err.fileHandleForWriting)
        output.write("body")
        output.write("more")
        #expect(output.standardOutputClosed)
        output.error("still said\n")
        #expect(output.status(after: 0) == 141)
        #expect(output.status(after: 1) == 141)
        try err.fileHandleForWriting.close()
        #expect(String(decoding: try err.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self) == "still said\n")
    }

    @Test func anotherWriteErrorIsSaidOnStandardErrorAndIsNoSuccess() throws {
        let dir = try TemporaryDirectory()
        let readOnly = try #require(FileHandle(forReadingAtPath: try dir.write("r.txt", "")))
        let err = Pipe()
        let output = output(out: readOnly, err: err.fileHandleForWriting)
        output.write("body")
        #expect(output.status(after: 0) == 1)
        #expect(output.status(after: 2) == 2)
        try err.fileHandleForWriting.close()
        #expect(String(decoding: try err.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self).contains("cannot write to standard output"))
    }

    // MARK: The tool

    /// Runs `ats` with standard output a pipe nobody reads, and returns how it ended and its standard error.
    private static func runWithoutAReader(_ arguments: [String]) throws -> (reason: Process.TerminationReason, status: Int32, err: String) {
        let process = Process()
        process.executableURL = try ATSTool.executable()
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        try out.fileHandleForReading.close()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let killed = ChildLimit.kill(process, after: .seconds(300))
        let errText = String(decoding: try err.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        killed.cancel()
        if killed.fired { Issue.record("ats \(arguments.joined(separator: " ")) did not end within 300 s and was killed: \(errText)") }
        return (process.terminationReason, process.terminationStatus, errText)
    }

    @Test func theToolEndsWithSIGPIPEsStatusWhenNothingReadsItsOutput() async throws {
        // `ats pins FILE` opens no socket, so NIO never ignores SIGPIPE for it: only the tool's own handling does.
        let dir = try TemporaryDirectory()
        let pins = try Self.runWithoutAReader(["pins", try dir.write("leaf.pem", ServerPKI().leaf.pem)])
        #expect(pins.reason == .exit && pins.status == 141, "\(pins)")
        #expect(pins.err.isEmpty, "\(pins.err)")

        // `ats fetch` writes its body after NIO has ignored SIGPIPE: the write fails with EPIPE.
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in TestResponse(body: Array(repeating: 0x78, count: 200_000)) }
        try await withShutdown({ await server.shutdown() }) {
            let host = "www.example.test"
            let fetch = try Self.runWithoutAReader(["fetch", "https://\(host):\(server.port)/", "--anchors", try dir.write("root.pem", pki.root.pem),
                                                    "--resolve", "\(host):127.0.0.1", "--timeout", "60"])
            #expect(fetch.reason == .exit && fetch.status == 141, "\(fetch)")
            #expect(!fetch.err.contains("Fatal error"), "\(fetch.err)")
            #expect(server.requests.count == 1)
        }
    }
}
