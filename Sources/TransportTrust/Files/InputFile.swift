import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the files people hand to the tools, including the ones that are not regular files: `-` for standard
/// input, `/dev/stdin`, and a shell's `<(…)`. Foundation's `Data(contentsOf:)` refuses those on Linux with
/// "You don't have permission", which sends people looking at file modes.
package enum InputFile {
    /// Why a file could not be read: a sentence for the caller to place in its own error.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    /// The most bytes read from a stream. A regular file's size is known before it is read; a stream's is not, and
    /// one such as `/dev/zero` never ends.
    package static let streamLimit = 64 << 20

    /// The path as messages place it (`path:line: …`): `<stdin>` for `-`.
    package static func source(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// Whether `path` is a regular file (following links): what a file inside a bundle must be. A pipe there would
    /// wait for a writer that never comes, and a device such as `/dev/zero` never ends.
    package static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// The bytes of the file at `path`, or of standard input for `-`.
    package static func read(_ path: String) throws(Failure) -> Data {
        if path == "-" { return try readStream(FileHandle.standardInput) }
        let files = FileManager.default
        guard files.fileExists(atPath: path) else { throw Failure(reason: "there is no such file") }
        guard files.isReadableFile(atPath: path) else { throw Failure(reason: "it is not readable (permission denied)") }
        // stat, not FileManager's lstat: `/dev/stdin` is a link to a pipe, and a link to a file is a file.
        var status = stat()
        let known = stat(path, &status) == 0
        if known && (status.st_mode & S_IFMT) == S_IFDIR {
            throw Failure(reason: "it is a directory; give a file in it")
        }
        let isStream = known && (status.st_mode & S_IFMT) != S_IFREG
        guard isStream else {
            do { return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe) } catch {
                throw Failure(reason: (error as NSError).localizedDescription)
            }
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure(reason: "it cannot be opened for reading") }
        defer { try? handle.close() }
        return try readStream(handle)
    }

    private static func readStream(_ handle: FileHandle) throws(Failure) -> Data {
        var data = Data()
        do {
            while let chunk = try handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                data.append(chunk)
                guard data.count <= streamLimit else {
                    throw Failure(reason: "it goes on past \(streamLimit >> 20) MiB; give a file or a stream that ends")
                }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(reason: (error as NSError).localizedDescription)
        }
        return data
    }
}
