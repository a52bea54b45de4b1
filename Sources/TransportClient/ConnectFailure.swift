import Foundation
import NIOCore
import NIOPosix

/// Why a TCP connection did not open, read from NIO's error so that messages say it in words. NIO's own text
/// ("Connection errors: SingleConnectionFailure(…)") is for ``TransportError/underlying`` only.
enum ConnectFailure: Equatable, Sendable {
    /// The name has no address (`temporary`: the resolver did not answer).
    case hostNotFound(temporary: Bool)
    case refused
    case reset
    case timedOut
    case unreachable
    case denied
    /// Any other system error, as the system words it; nil when NIO gave none.
    case other(String?)

    init(_ error: any Error) {
        if let failed = error as? NIOConnectionError {
            if let dns = failed.dnsAError ?? failed.dnsAAAAError {
                self = Self(dns)
            } else if failed.connectionErrors.isEmpty {
                // The lookups succeeded with no address at all.
                self = .hostNotFound(temporary: false)
            } else {
                // Of every address tried, the most telling: a refusal shows the host was reached.
                self = failed.connectionErrors.map { Self($0.error) }.min { $0.rank < $1.rank } ?? .other(nil)
            }
            return
        }
        if let unknown = error as? SocketAddressError.UnknownHost {
            self = .hostNotFound(temporary: unknown.errorCode == Int(EAI_AGAIN))
            return
        }
        if case ChannelError.connectTimeout = error {
            self = .timedOut
            return
        }
        guard let io = error as? IOError else {
            self = .other(nil)
            return
        }
        switch io.errnoCode {
        case ECONNREFUSED: self = .refused
        case ECONNRESET: self = .reset
        case ETIMEDOUT: self = .timedOut
        case ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL, ENETDOWN, EHOSTDOWN: self = .unreachable
        case EACCES, EPERM: self = .denied
        default: self = .other(String(cString: strerror(io.errnoCode)))
        }
    }

    private var rank: Int {
        switch self {
        case .refused: 0
        case .reset: 1
        case .denied: 2
        case .timedOut: 3
        case .unreachable: 4
        case .hostNotFound: 5
        case .other: 6
        }
    }

    /// What happened connecting to `address` (the host, or its override) on `port`, and what to check.
    func sentence(address: String, port: Int) -> String {
        let place = AddressOverrides.key(host: address, port: port)
        switch self {
        case .hostNotFound(temporary: false):
            return "the host name \(address) was not found (the lookup gave no address); check its spelling, or give its address as an address override"
        case .hostNotFound(temporary: true):
            return "the host name \(address) could not be looked up: the DNS resolver did not answer; check the network and the resolver, then try again"
        case .refused:
            return "\(place) refused the connection: nothing listens on port \(port) there; check the port, and that the server is running"
        case .reset:
            return "\(place) reset the connection as it opened; the server, or a firewall in between, turned it away"
        case .timedOut:
            return "\(place) did not answer the connection (it timed out); check the address, and any firewall in between"
        case .unreachable:
            return "there is no route to \(place) (network or host unreachable); check the network connection and the address"
        case .denied:
            return "the system did not allow a connection to \(place) (permission denied); check the local firewall rules"
        case .other(let reason?):
            return "cannot connect to \(place): \(reason)"
        case .other(nil):
            return "cannot connect to \(place)"
        }
    }
}
