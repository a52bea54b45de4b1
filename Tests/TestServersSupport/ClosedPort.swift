import Foundation
import ATSTestServers
import NIOConcurrencyHelpers

/// A port on 127.0.0.1 that refuses connections for as long as this is open: bound, so no other test's server can
/// take it, and never listening, so a connection to it is refused at once.
///
/// A port found free and then released is no such thing in a parallel run: on 2026-12-05 another test's TLS server
/// took one between the check and the CONNECT to it, and a test of a refused CONNECT met that server's certificate.
public final class ClosedPort: Sendable {
    public let port: Int
    private let descriptor: NIOLockedValueBox<Int32?>

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError("no socket for a closed port (errno \(errno))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard named else {
            Foundation.close(fd)
            throw TestServerError("cannot bind a closed port on 127.0.0.1 (errno \(errno))")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = NIOLockedValueBox(fd)
    }

    /// Releases the port. Tests call it (or `defer` it) at their end, which also keeps the port held until then.
    public func close() {
        descriptor.withLockedValue { fd in
            if let open = fd { Foundation.close(open) }
            fd = nil
        }
    }

    deinit { close() }
}
