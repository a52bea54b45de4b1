import NIOCore

/// Reading ``HTTPSClientConfiguration/addressOverrides``: keys are `host` (every port) or `host:port` (that port
/// only, `[host]:port` for an IPv6 host), as curl's `--resolve HOST:PORT:ADDR`; values are IP literals.
package enum AddressOverrides {
    /// The key of an entry for `host` on `port` only.
    package static func key(host: String, port: Int) -> String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// The address `overrides` gives for `host` on `port`: its `host:port` entry, else its `host` entry.
    package static func address(in overrides: [String: String], host: String, port: Int) -> String? {
        overrides[key(host: host, port: port)] ?? overrides[host]
    }

    /// The override for `host` on `port`, as written and as the address to connect to; nil when there is none.
    /// - Throws: ``Refusal`` for an override that is not an IP address, which is never looked up.
    package static func override(in overrides: [String: String], host: String, port: Int) throws(Refusal) -> (text: String, address: SocketAddress)? {
        guard let text = address(in: overrides, host: host, port: port) else { return nil }
        guard let address = socketAddress(text, port: port) else {
            throw Refusal(sentence: "the address override for \(host) is '\(text)', which is not an IPv4 or IPv6 address; overrides are connected to, never looked up")
        }
        return (text, address)
    }

    /// Why an override cannot be used, in a sentence for the caller's error.
    package struct Refusal: Error {
        package let sentence: String
    }

    /// `text` as a socket address on `port` when it is an IPv4 or IPv6 literal (brackets allowed), else nil.
    /// Never a name lookup: an override that is not an address is refused, not resolved.
    package static func socketAddress(_ text: String, port: Int) -> SocketAddress? {
        try? SocketAddress(ipAddress: unbracketed(text), port: port)
    }

    /// An IPv6 literal without the brackets URLs put around it; anything else as it is.
    package static func unbracketed(_ text: String) -> String {
        text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
    }
}
