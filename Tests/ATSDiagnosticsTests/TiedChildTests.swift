#if os(Linux)
import ATSTestServers
import Foundation
import Glibc
import Testing

/// ATSTestServers' `TiedChild`: children that the kernel kills with their parent, spawned from a thread that lives
/// as long as the process.
@Suite struct TiedChildTests {
    private static let tied = FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    private static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The child asks the kernel for its own parent-death signal (`prctl(PR_GET_PDEATHSIG)`): SIGKILL.
    @Test(.enabled(if: tied && python != nil, "needs util-linux's setpriv and python3"))
    func theKernelKillsTheChildWhenItsParentGoes() async throws {
        let script = "import ctypes; s = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(s)); print(s.value)"
        let (status, output) = try await Self.run(try #require(Self.python), ["-c", script])
        #expect(status == 0)
        #expect(output == "\(SIGKILL)\n")
    }

    /// Arguments arrive as given (spaces included), and the exit status is the child's own, not `setpriv`'s.
    @Test func argumentsAndExitStatusAreTheChilds() async throws {
        let (status, output) = try await Self.run("/bin/sh", ["-c", "echo \"$1|$2\"; exit 7", "sh", "a b", "c"])
        #expect(status == 7)
        #expect(output == "a b|c\n")
    }

    /// A program that is not there fails to start, as `Process.run()` reports it, instead of starting `setpriv`.
    @Test func aMissingProgramIsReportedByRun() {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/nonexistent/server")
        #expect(throws: (any Error).self) { try TiedChild.run(process) }
    }

    /// The kernel's parent of a child is the thread that spawned it: a child spawned for a thread that then ends
    /// must not be killed with that thread. Joined with `pthread_join`, so the thread has fully ended (and any
    /// parent-death signal been sent) before the child's state is read.
    @Test(.enabled(if: tied, "needs util-linux's setpriv"))
    func aChildOutlivesTheThreadThatAskedForIt() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["60"]
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let started: Bool = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let box = Unmanaged.passRetained(process as AnyObject).toOpaque()
                var thread = pthread_t()
                let created = pthread_create(&thread, nil, { context in
                    guard let context, let process = Unmanaged<AnyObject>.fromOpaque(context).takeRetainedValue() as? Process else { return nil }
                    try? TiedChild.run(process)
                    return nil
                }, box)
                guard created == 0 else { return continuation.resume(returning: false) }
                pthread_join(thread, nil)
                continuation.resume(returning: true)
            }
        }
        try #require(started)
        let pid = process.processIdentifier
        try #require(pid > 0, "the child did not start")
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let field = { (name: String) in status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) } }
        let pending = [field("SigPnd"), field("ShdPnd")].compactMap { $0.flatMap { UInt64($0, radix: 16) } }
        #expect(pending.count == 2 && pending.allSatisfy { $0 & (1 << (UInt64(SIGKILL) - 1)) == 0 }, "\(status)")
        #expect(field("State")?.first.map { "RSD".contains($0) } == true, "\(status)")
    }

    /// Runs `executable` tied, and waits on a dispatch thread for its end and output.
    private static func run(_ executable: String, _ arguments: [String]) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try TiedChild.run(process)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let output = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: output, as: UTF8.self)))
            }
        }
    }
}
#endif
