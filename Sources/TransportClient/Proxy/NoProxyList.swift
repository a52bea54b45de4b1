import Foundation

/// Hosts that bypass the proxy, read as curl reads `NO_PROXY` and `--noproxy` (curl 8):
///
/// - entries are separated by commas or spaces;
/// - the list `*` alone bypasses the proxy for every host;
/// - a name matches itself and every name below it (`example.com` matches `www.example.com`, not
///   `notexample.com`); a leading dot is ignored, as are trailing dots on both sides; case does not matter;
/// - an IP address matches an IP literal host exactly, and `ADDRESS/BITS` matches the range (IPv4 and IPv6);
///   names never match addresses, since nothing is looked up.
public struct NoProxyList: Sendable, Equatable, CustomStringConvertible {
    /// The list as given.
    public var text: String

    /// A list as `NO_PROXY` writes it, entries separated by commas or spaces; empty by default.
    public init(_ text: String = "") { self.text = text }

    public var description: String { text }

    /// The entries, in order.
    var entries: [Substring] { text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) }

    /// Whether `host` (as in a URL; an IPv6 literal with or without brackets) is reached directly.
    public func matches(_ host: String) -> Bool {
        if text.trimmingCharacters(in: .whitespaces) == "*" { return true }
        let name = AddressOverrides.unbracketed(host)
        if let address = IPAddressBytes(name) {
            return entries.contains { entry in
                var token = String(entry)
                var bits: Int?
                if let slash = token.firstIndex(of: "/") {
                    guard let value = Int(token[token.index(after: slash)...]) else { return false }
                    bits = value
                    token = String(token[..<slash])
                }
                guard let network = IPAddressBytes(AddressOverrides.unbracketed(token)) else { return false }
                return address.isIn(network, bits: bits)
            }
        }
        let hostName = Self.withoutTrailingDot(name.lowercased())
        return entries.contains { entry in
            var token = Self.withoutTrailingDot(entry.lowercased())
            if token.hasPrefix(".") { token.removeFirst() }
            guard !token.isEmpty else { return false }
            return hostName == token || hostName.hasSuffix("." + token)
        }
    }

    private static func withoutTrailingDot(_ text: String) -> String { text.hasSuffix(".") ? String(text.dropLast()) : text }
}

/// An IPv4 or IPv6 address's bytes, for range checks.
struct IPAddressBytes: Equatable {
    var bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// Whether the first `bits` bits equal `network`'s; nil or 0 bits means the whole address, as curl reads it.
    func isIn(_ network: IPAddressBytes, bits: Int?) -> Bool {
        guard bytes.count == network.bytes.count else { return false }
        let total = bytes.count * 8
        let prefix = bits ?? 0
        guard (0...total).contains(prefix) else { return false }
        let count = prefix == 0 ? total : prefix
        let whole = count / 8
        guard bytes[..<whole] == network.bytes[..<whole] else { return false }
        let rest = count % 8
        guard rest > 0 else { return true }
        let mask = UInt8(0xFF) << (8 - rest)
        return bytes[whole] & mask == network.bytes[whole] & mask
    }
}
