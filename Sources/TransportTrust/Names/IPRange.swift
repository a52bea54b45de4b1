/// An IPv4 or IPv6 address range in CIDR notation (`192.168.0.0/16`, `fd00::/8`).
///
/// Apple: "In iOS 17, iPadOS 17, and macOS 14, you can … specify a range of IP addresses" in
/// NSExceptionDomains (https://developer.apple.com/documentation/bundleresources/information-property-list/nsapptransportsecurity/nsexceptiondomains).
public struct IPRange: Sendable, Hashable, CustomStringConvertible {
    /// The network address, 4 or 16 bytes, with the host bits as written.
    public var address: [UInt8]
    /// How many leading bits of the address the range fixes.
    public var prefixLength: Int

    /// Parses `address/prefix`; nil unless both halves are valid and the prefix fits the family.
    public init?(cidr text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let prefix = Int(parts[1]), parts[1].allSatisfy(\.isASCII) else { return nil }
        guard let peer = try? PeerName(String(parts[0])), case .ip(let bytes) = peer else { return nil }
        guard prefix >= 0, prefix <= bytes.count * 8 else { return nil }
        self.address = bytes
        self.prefixLength = prefix
    }

    /// Whether `ip` (4 or 16 bytes) is inside the range. Families never cross.
    public func contains(_ ip: [UInt8]) -> Bool {
        guard ip.count == address.count else { return false }
        var bits = prefixLength
        for i in 0..<ip.count where bits > 0 {
            let take = min(8, bits)
            let mask: UInt8 = take == 8 ? 0xFF : ~(0xFF >> UInt8(take))
            if ip[i] & mask != address[i] & mask { return false }
            bits -= take
        }
        return true
    }

    public var description: String { "\(PeerName.ip(address))/\(prefixLength)" }
}
