#if os(Linux)
import Foundation
import Glibc

/// A TCP listener on 127.0.0.1 that never accepts, with its queue filled: the kernel drops every further SYN, so a
/// connect to it waits (retrying) until its own limit. Nothing leaves the machine.
final class FullListener: Sendable {
    let port: Int
    private let sockets: [Int32]
    /// The fillers' local ports.
    private let fillers: [Int]

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && listen(listener, 0) == 0
                && getsockname(listener, $0, &length) == 0 }
        }
        guard bound else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            Glibc.close(listener)
            throw POSIXError(code)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Backlog 0 queues one connection; the next ones stay in SYN_SENT. Fillers, non-blocking.
        var sockets = [listener]
        var fillers: [Int] = []
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard filler >= 0 else { continue }
            var local = sockaddr_in()
            var localLength = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            withUnsafeMutablePointer(to: &local) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(filler, $0, &localLength) }
            }
            sockets.append(filler)
            fillers.append(Int(UInt16(bigEndian: local.sin_port)))
        }
        self.sockets = sockets
        self.fillers = fillers
    }

    /// The state (`/proc/net/tcp`: 01 established, 02 SYN sent) of each socket of this machine connecting to the
    /// listener, by its local port.
    func states() -> [Int: String] {
        // Read to its end: the file has no size, and a read sized by it stops after the first page.
        guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return [:] }
        defer { try? file.close() }
        let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        var states: [Int: String] = [:]
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 3, let remote = fields[2].split(separator: ":").last, Int(remote, radix: 16) == port,
                  let local = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }) else { continue }
            states[local] = String(fields[3])
        }
        return states
    }

    /// Whether the queue is full: one filler queued, the others' SYNs dropped. Read from the kernel's table, which
    /// settles within the loopback's own handling of the fillers' SYNs.
    var isFull: Bool {
        let states = states()
        let filling = fillers.compactMap { states[$0] }
        return filling.count == fillers.count && filling.allSatisfy { $0 == "01" || $0 == "02" } && filling.contains("02")
    }

    /// Whether a socket other than the fillers has begun connecting to the listener.
    var hasOtherConnection: Bool { states().keys.contains { !fillers.contains($0) } }

    func close() { for socket in sockets { Glibc.close(socket) } }
}
#endif
