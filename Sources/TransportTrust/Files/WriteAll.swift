#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes every byte to `fd`, going on after a short write or an interrupted call; the reason in words when a write
/// fails. Used where a file must hold a whole record or nothing new (the kept CT log list, `diagnose --resume`).
package func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> String? {
    var written = 0
    while written < bytes.count {
        let n = bytes.withUnsafeBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            return write(fd, base + written, buffer.count - written)
        }
        if n < 0 {
            if errno == EINTR { continue }
            return String(cString: strerror(errno))
        }
        if n == 0 { return "the file took no bytes" }
        written += n
    }
    return nil
}
