import TestSupport
import Foundation
import Testing

@testable import TransportTrust

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that are streams, which Foundation's `Data(contentsOf:)` refuses on Linux as a permission problem.
@Suite struct InputFileTests {
    let dir = try! TemporaryDirectory()

    /// A named pipe fed by a writer thread; reading it is what `ats verify /dev/stdin` or `<(…)` does. Opening a pipe
    /// blocks until the other end opens, so the writer has a thread of its own, never one of the test pool's.
    func pipe(_ name: String, carrying bytes: [UInt8]) throws -> (path: String, written: AsyncStream<Void>) {
        let path = dir.file(name)
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let (written, done) = AsyncStream<Void>.makeStream()
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: path) {
                handle.write(Data(bytes))
                try? handle.close()
            }
            done.finish()
        }
        writer.start()
        return (path, written)
    }

    @Test func readsARegularFile() throws {
        let path = try dir.write("a.txt", "hello")
        #expect(try InputFile.read(path) == Data("hello".utf8))
    }

    @Test func readsANamedPipe() async throws {
        let bytes = (0..<200_000).map { UInt8($0 % 251) }
        let (path, written) = try pipe("p", carrying: bytes)
        #expect(Array(try InputFile.read(path)) == bytes)
        for await _ in written {}
    }

    @Test func certificatesComeThroughAPipeUnderItsPath() async throws {
        let (root, intermediate, leaf) = PKI.chain()
        let (path, written) = try pipe("chain", carrying: Array((leaf.pem + intermediate.pem).utf8))
        let read = try CertificateLoader.certificates(atPath: path)
        #expect(read.map(\.der) == [leaf.der, intermediate.der])
        for await _ in written {}
        _ = root
    }

    /// A link to a file is read as the file, whatever its size, not as a stream.
    @Test func aLinkToAFileIsAFile() throws {
        let bytes = [UInt8](repeating: 0x41, count: InputFile.streamLimit + 1)
        let target = try dir.write("big.txt", bytes: bytes)
        try FileManager.default.createSymbolicLink(atPath: dir.file("link"), withDestinationPath: target)
        #expect(try InputFile.read(dir.file("link")).count == bytes.count)
    }

    @Test func aStreamThatDoesNotEndIsCutOffWithAReason() {
        #expect(InputFile.source("-") == "<stdin>")
        do {
            _ = try InputFile.read("/dev/zero")
            Issue.record("an endless stream was read")
        } catch {
            #expect(error.reason.contains("goes on past 64 MiB"))
        }
    }

    @Test func aDirectorySaysItIsOne() {
        do {
            _ = try InputFile.read(dir.url.path)
            Issue.record("a directory was read")
        } catch {
            #expect(error.reason == "it is a directory; give a file in it")
        }
    }

    @Test func aMissingFileSaysSo() {
        do {
            _ = try InputFile.read(dir.file("missing"))
            Issue.record("a missing file was read")
        } catch {
            #expect(!error.reason.isEmpty)
        }
    }
}
