import ArgumentParser
import TransportClient
import TransportTrust

/// `--resolve HOST:PORT:ADDRESS` (curl's form) or `HOST:ADDRESS` (every port), shared by the commands that connect.
struct ResolveOptions: ParsableArguments {
    @Option(name: .customLong("resolve"),
            help: "HOST:PORT:ADDRESS (as curl) or HOST:ADDRESS (any port): connect to the IP address ADDRESS for HOST, which is never looked up. Repeatable.")
    var entries: [String] = []

    /// One entry: the host (lowercased, no trailing dot), the port it applies to (nil: every port), the address.
    struct Entry: Equatable {
        var host: String
        var port: Int?
        var address: String
    }

    func validate() throws {
        for text in entries { _ = try Self.entry(text) }
    }

    /// Parses one entry. curl's HOST:PORT:ADDRESS is tried first, so 'b.test:9443:127.0.0.1' is port 9443, not the
    /// address '9443:127.0.0.1'. An unbracketed IPv6 ADDRESS works in both forms.
    static func entry(_ text: String) throws -> Entry {
        let usage = "--resolve takes HOST:PORT:ADDRESS or HOST:ADDRESS, with ADDRESS an IPv4 or IPv6 address (127.0.0.1, ::1 or [::1]), not '\(text)'"
        guard let colon = text.firstIndex(of: ":") else { throw ValidationError(usage) }
        // The client looks overrides up by the URL's host in canonical form (lower case, A-labels, no trailing dot).
        guard !text[..<colon].contains("["), let peer = try? PeerName(String(text[..<colon])) else { throw ValidationError(usage) }
        let host = peer.description
        let rest = text[text.index(after: colon)...]
        if let second = rest.firstIndex(of: ":"), rest[..<second].allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(rest[..<second]) {
            let address = String(rest[rest.index(after: second)...])
            if AddressOverrides.socketAddress(address, port: 0) != nil {
                guard (1...65535).contains(port) else { throw ValidationError("--resolve '\(text)': port \(port) is out of range (1–65535)") }
                return Entry(host: host, port: port, address: AddressOverrides.unbracketed(address))
            }
        }
        guard AddressOverrides.socketAddress(String(rest), port: 0) != nil else {
            throw ValidationError(usage + "; names are not looked up")
        }
        return Entry(host: host, port: nil, address: AddressOverrides.unbracketed(String(rest)))
    }

    /// For `HTTPSClientConfiguration.addressOverrides`: `host` or `host:port` → address.
    var addressOverrides: [String: String] {
        var overrides: [String: String] = [:]
        for entry in entries.compactMap({ try? Self.entry($0) }) {
            overrides[entry.port.map { AddressOverrides.key(host: entry.host, port: $0) } ?? entry.host] = entry.address
        }
        return overrides
    }
}
