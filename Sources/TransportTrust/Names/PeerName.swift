import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The name a client connects to: a DNS name in canonical A-label form, or an IP address.
public enum PeerName: Sendable, Hashable, CustomStringConvertible {
    /// Lowercased, A-label (punycode) form, without a trailing dot.
    case dns(String)
    /// 4 or 16 bytes.
    case ip([UInt8])

    /// Parses what a user or a URL gives: an IPv4 or IPv6 literal (brackets allowed), or a DNS name
    /// (Unicode labels are converted to A-labels, one trailing dot is ignored).
    ///
    /// A host whose last label is a number is never a DNS name: no top-level domain is all-numeric (RFC 3696 §2),
    /// and URL parsers (WHATWG) read such a host as an IPv4 address. A dotted quad, with or without a trailing
    /// dot, is that address; any other such host (`127.1`, `0300.0.2.1`, `0xc0.0.2.1`, `3221225985`, `foo.1`)
    /// is refused, so that a dNSName can never stand in for an address.
    public init(_ text: String) throws(PeerNameError) {
        // Clients parse the host of every request: an ordinary ASCII name skips the Unicode work below.
        if let name = Self.plainASCIIName(text) {
            self = .dns(name)
            return
        }
        self = try Self.parsedFully(text)
    }

    /// The parse every host gets when ``plainASCIIName(_:)`` does not take it.
    static func parsedFully(_ text: String) throws(PeerNameError) -> PeerName {
        var host = Self.mappingLabelSeparators(Substring(text))
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if host.utf8.contains(UInt8(ascii: ":")) {
            guard let v6 = IPAddressText.parseIPv6(host) else { throw .invalidIP(text) }
            return .ip(v6)
        }
        // RFC 6125 §6.4.3: the name connected to is one host; only a certificate's name may hold a wildcard.
        if host.utf8.contains(UInt8(ascii: "*")) { throw .wildcard(text) }
        let name = host.hasSuffix(".") ? host.dropLast() : host
        if let v4 = IPAddressText.parseIPv4(name) {
            return .ip(v4)
        }
        if IPAddressText.endsInNumber(name) {
            if let bytes = IPAddressText.parseLegacyIPv4(name) { throw .legacyIPv4(text, meaning: IPAddressText.format(bytes)) }
            throw .numericLastLabel(text)
        }
        return .dns(try Self.canonicalDNSName(String(host), original: text))
    }

    /// The canonical form of a host made only of ASCII letters, digits, '-', '_' and dots that the full parse
    /// would accept as a DNS name, or nil for anything else, which the full parse then handles (with its errors).
    static func plainASCIIName(_ text: String) -> String? {
        var bytes = Array(text.utf8)
        if bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        guard !bytes.isEmpty, bytes.count <= 253 else { return nil }
        var labelLength = 0
        for i in bytes.indices {
            let b = bytes[i]
            if b == UInt8(ascii: ".") {
                guard labelLength > 0 else { return nil }
                labelLength = 0
                continue
            }
            if b >= 0x41 && b <= 0x5A { bytes[i] = b | 0x20 } else if !isHostByte(b) { return nil }
            labelLength += 1
            guard labelLength <= 63 else { return nil }
        }
        guard labelLength > 0 else { return nil }
        // A numeric (or hex) last label makes it an address or an error: the full parse says which.
        let name = String(decoding: bytes, as: UTF8.self)
        if IPAddressText.endsInNumber(Substring(name)) { return nil }
        return name
    }

    /// The full stops UTS #46 maps to '.' (ideographic, fullwidth, halfwidth ideographic), as browsers do
    /// before anything else, so that `bücher。example` is `bücher.example`.
    private static let labelSeparators: Set<Unicode.Scalar> = ["\u{3002}", "\u{FF0E}", "\u{FF61}"]

    static func mappingLabelSeparators(_ text: Substring) -> Substring {
        guard text.unicodeScalars.contains(where: labelSeparators.contains) else { return text }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.map { labelSeparators.contains($0) ? "." : $0 })
        return Substring(String(scalars))
    }

    static func canonicalDNSName(_ host: String, original: String) throws(PeerNameError) -> String {
        var name = host
        // NFC, as IDNA 2008 and UTS #46 require before Punycode: `bu\u{308}cher` and `bücher` are one name.
        if !name.unicodeScalars.allSatisfy(\.isASCII) { name = name.lowercased().precomposedStringWithCanonicalMapping }
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty else { throw .empty }
        guard name.utf8.count <= 253 * 4 else { throw .tooLong(original) }
        var labels: [String] = []
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty else { throw .emptyLabel(original) }
            var ascii: String
            if label.unicodeScalars.allSatisfy(\.isASCII) {
                ascii = label.lowercased()
            } else {
                guard let encoded = Punycode.encode(String(label).lowercased()) else { throw .invalidCharacter(original) }
                ascii = "xn--" + encoded
            }
            guard ascii.utf8.count <= 63 else { throw .labelTooLong(original) }
            guard ascii.utf8.allSatisfy({ Self.isHostByte($0) }) else { throw .invalidCharacter(original) }
            labels.append(ascii)
        }
        let joined = labels.joined(separator: ".")
        guard joined.utf8.count <= 253 else { throw .tooLong(original) }
        return joined
    }

    // Underscores appear in real hostnames (SRV-style, some CDNs); browsers and Apple accept them.
    private static func isHostByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F
    }

    public var description: String {
        switch self {
        case .dns(let name): return name
        case .ip(let bytes): return IPAddressText.format(bytes)
        }
    }

    /// True for an IP address, false for a DNS name.
    public var isIPAddress: Bool { if case .ip = self { return true } else { return false } }
}

/// Why a host cannot be used as a peer name: what is wrong with it, and where.
public enum PeerNameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No name was given.
    case empty
    /// The name has an empty label (`a..b`).
    case emptyLabel(String)
    /// A label is longer than 63 bytes.
    case labelTooLong(String)
    /// The name is longer than 253 bytes.
    case tooLong(String)
    /// The name has a character no host name may have.
    case invalidCharacter(String)
    /// It looks like an IP address but is not one.
    case invalidIP(String)
    /// An IPv4 address in a form other than the dotted quad (octal, hex, fewer than four parts, one number),
    /// and the dotted quad URL parsers read it as.
    case legacyIPv4(String, meaning: String)
    /// A name whose last label is all-numeric (or a hex number) that is no IPv4 address in any form.
    case numericLastLabel(String)
    /// A wildcard: a certificate may name `*.example.org`, but a connection is to one host.
    case wildcard(String)

    public var description: String {
        switch self {
        case .empty: return "the host name is empty; give a DNS name such as example.com or an IP address"
        case .emptyLabel(let n): return "\(NameDisplay.quoted(n)) has an empty label (two dots in a row, or a leading dot)"
        case .labelTooLong(let n): return "\(NameDisplay.quoted(n)) has a label longer than 63 bytes"
        case .tooLong(let n): return "\(NameDisplay.quoted(n)) is longer than 253 bytes"
        case .invalidCharacter(let n): return "\(NameDisplay.quoted(n)) has a character that cannot appear in a host name"
        case .invalidIP(let n): return "\(NameDisplay.quoted(n)) looks like an IPv6 address but is not a valid one"
        case .legacyIPv4(let n, let meaning):
            return "\(NameDisplay.quoted(n)) is an IPv4 address in a legacy form (octal, hex, or fewer than four parts), which URL parsers read as \(meaning); write it as the dotted quad \(meaning)"
        case .wildcard(let n):
            return "\(NameDisplay.quoted(n)) has a wildcard; give the one host connected to, such as \(Self.example(replacingWildcardIn: n)) (a wildcard belongs in a certificate's name, never in the name checked against it, RFC 6125 §6.4.3)"
        case .numericLastLabel(let n):
            return "\(NameDisplay.quoted(n)) ends in a numeric label, so it is not a DNS name (no top-level domain is all-numeric, RFC 3696 §2), nor an IPv4 address; write an IPv4 address as a dotted quad such as 192.0.2.1"
        }
    }

    private static func example(replacingWildcardIn name: String) -> String {
        guard name.hasPrefix("*."), name.count > 2 else { return "www.example.org" }
        return "www" + name.dropFirst()
    }
}

enum IPAddressText {
    static func parseIPv4(_ s: Substring) -> [UInt8]? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 3, p.allSatisfy(\.isASCII), p.allSatisfy(\.isNumber),
                let v = UInt8(p), !(p.count > 1 && p.first == "0")
            else { return nil }
            out.append(v)
        }
        return out
    }

    /// Whether the last label is a number as the WHATWG URL host parser sees one (`1`, `0300`, `0x`, `0xc0`):
    /// such a host is an IPv4 address to it, never a domain.
    static func endsInNumber(_ s: Substring) -> Bool {
        let last = s[(s.lastIndex(of: ".").map(s.index(after:)) ?? s.startIndex)...]
        guard !last.isEmpty else { return false }
        if last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        guard last.hasPrefix("0x") || last.hasPrefix("0X") else { return false }
        return last.utf8.dropFirst(2).allSatisfy(isHexDigit)
    }

    /// The address inet_aton reads from the classic BSD spellings: octal (`0300`), hex (`0xc0`), fewer than four
    /// parts (`127.1`, `3221225985`), which are also the ones URL parsers accept; nil when it is not one.
    static func parseLegacyIPv4(_ s: Substring) -> [UInt8]? {
        // Only digits, hex digits, 'x' and dots: inet_aton would also stop at a blank and ignore what follows.
        guard !s.isEmpty, s.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "x") || $0 == UInt8(ascii: "X") })
        else { return nil }
        var address = in_addr()
        guard inet_aton(String(s), &address) != 0 else { return nil }
        // s_addr is in network byte order, so its bytes in memory are the address.
        return withUnsafeBytes(of: address.s_addr) { Array($0) }
    }

    static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46)
    }

    static func parseIPv6(_ s: Substring) -> [UInt8]? {
        var s = s
        if let pct = s.firstIndex(of: "%") {
            // A zone (fe80::1%eth0) names an interface and is not part of the address; a bare '%' names none.
            guard s.index(after: pct) < s.endIndex else { return nil }
            s = s[..<pct]
        }
        let halves = s.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        // An embedded IPv4 address may only end the whole address (RFC 4291 §2.2), never come before '::'.
        func groups(_ part: String, endsTheAddress: Bool) -> [UInt8]? {
            if part.isEmpty { return [] }
            var out: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (i, piece) in pieces.enumerated() {
                if endsTheAddress, i == pieces.count - 1, piece.utf8.contains(UInt8(ascii: ".")), let v4 = parseIPv4(piece) {
                    out += v4
                    continue
                }
                // Hex digits only: UInt16(_:radix:) would also take a sign ('+1', '-0').
                guard !piece.isEmpty, piece.utf8.count <= 4, piece.utf8.allSatisfy(isHexDigit), let v = UInt16(piece, radix: 16)
                else { return nil }
                out += [UInt8(v >> 8), UInt8(v & 0xFF)]
            }
            return out
        }
        guard let head = groups(halves[0], endsTheAddress: halves.count == 1) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1], endsTheAddress: true), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    static func format(_ b: [UInt8]) -> String {
        if b.count == 4 { return b.map(String.init).joined(separator: ".") }
        guard b.count == 16 else { return b.map { String(format: "%02x", $0) }.joined() }
        var groups: [UInt16] = []
        for i in stride(from: 0, to: 16, by: 2) { groups.append(UInt16(b[i]) << 8 | UInt16(b[i + 1])) }
        // RFC 5952: compress the longest run of two or more zero groups.
        var best = (start: -1, len: 0)
        var i = 0
        while i < 8 {
            if groups[i] == 0 {
                var j = i
                while j < 8 && groups[j] == 0 { j += 1 }
                if j - i > best.len && j - i >= 2 { best = (i, j - i) }
                i = j
            } else { i += 1 }
        }
        let hex = groups.map { String($0, radix: 16) }
        if best.start < 0 { return hex.joined(separator: ":") }
        let left = hex[..<best.start].joined(separator: ":")
        let right = hex[(best.start + best.len)...].joined(separator: ":")
        return left + "::" + right
    }
}
