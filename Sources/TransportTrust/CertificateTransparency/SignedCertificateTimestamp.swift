import Foundation

/// One signed certificate timestamp (RFC 6962 §3.2), as a log returned it and the CA embedded it.
///
/// Only version 1 has a defined layout. An SCT of another version keeps its raw bytes and is never counted,
/// as trustd counts only v1.
package struct SignedCertificateTimestamp: Sendable, Hashable {
    /// The `Version` byte: 0 is v1.
    public var version: UInt8
    /// SHA-256 of the log's public key (32 bytes).
    public var logID: [UInt8]
    /// Milliseconds since the Unix epoch, as the log wrote it.
    public var timestamp: UInt64
    public var extensions: [UInt8]
    /// RFC 5246 HashAlgorithm: 4 is SHA-256, the only one RFC 6962 allows.
    public var hashAlgorithm: UInt8
    /// RFC 5246 SignatureAlgorithm: 1 is RSA, 3 is ECDSA.
    public var signatureAlgorithm: UInt8
    public var signature: [UInt8]
    /// Why this entry of the list cannot be read, when it cannot: it is then never counted, and the others still are.
    public var problem: String? = nil

    public var isVersion1: Bool { version == 0 && problem == nil }

    public var date: Date { Date(timeIntervalSince1970: Double(timestamp) / 1000) }

    /// The log ID as the log lists write it.
    public var logIDBase64: String { Data(logID).base64EncodedString() }
}

/// Why an SCT list cannot be read. Each case names where the bytes went wrong.
package enum SCTListError: Error, Sendable, Hashable, CustomStringConvertible {
    case notAnOctetString
    case truncated(at: Int, needed: Int, have: Int)
    case lengthMismatch(declared: Int, actual: Int)
    case empty
    case emptySCT(index: Int)
    case trailingBytes(index: Int, count: Int)
    case tooMany(limit: Int)

    public var description: String {
        switch self {
        case .notAnOctetString:
            return "its value is not the OCTET STRING RFC 6962 §3.3 defines"
        case .truncated(let at, let needed, let have):
            return "it ends early: \(needed) bytes were declared at byte \(at), \(have) remain"
        case .lengthMismatch(let declared, let actual):
            return "its list length says \(declared) bytes but \(actual) follow"
        case .empty:
            return "it holds no SCT (RFC 6962 requires at least one)"
        case .emptySCT(let index):
            return "SCT \(index) is empty"
        case .trailingBytes(let index, let count):
            return "SCT \(index) has \(count) bytes after its signature"
        case .tooMany(let limit):
            return "it holds more than \(limit) SCTs, far more than any CA embeds; it was not read further"
        }
    }
}

/// Reads the TLS-encoded `SignedCertificateTimestampList` of RFC 6962 §3.3, strictly and bounded: every length
/// must match exactly, and the work is linear in the input with at most ``maximumCount`` SCTs.
package enum SCTListReader {
    /// Real certificates carry two to five; Apple's policy never asks for more than five.
    package static let maximumCount = 32

    /// Entries whose version is not v1 are returned with only their version set: their layout is unknown. An entry
    /// that cannot be read is returned with its ``SignedCertificateTimestamp/problem``, as trustd drops only that SCT;
    /// only the list's own framing (its length, each entry's length) makes the whole list unreadable.
    package static func read(_ bytes: ArraySlice<UInt8>) throws(SCTListError) -> [SignedCertificateTimestamp] {
        var reader = TLSReader(bytes)
        let declared = try reader.length(bytes: 2)
        guard declared == reader.remaining else { throw .lengthMismatch(declared: declared, actual: reader.remaining) }
        guard declared > 0 else { throw .empty }
        var result: [SignedCertificateTimestamp] = []
        while reader.remaining > 0 {
            guard result.count < maximumCount else { throw .tooMany(limit: maximumCount) }
            let length = try reader.length(bytes: 2)
            let body = try reader.take(length)
            do {
                result.append(try readOne(body, index: result.count))
            } catch {
                let why: String
                switch error {
                case .emptySCT: why = "it is empty"
                case .trailingBytes(_, let count): why = "it has \(count) bytes after its signature"
                default: why = error.description
                }
                result.append(SignedCertificateTimestamp(version: 0, logID: [], timestamp: 0, extensions: [], hashAlgorithm: 0,
                                                         signatureAlgorithm: 0, signature: [], problem: "it cannot be read: \(why)"))
            }
        }
        return result
    }

    private static func readOne(_ bytes: ArraySlice<UInt8>, index: Int) throws(SCTListError) -> SignedCertificateTimestamp {
        guard !bytes.isEmpty else { throw .emptySCT(index: index) }
        var reader = TLSReader(bytes)
        let version = try reader.byte()
        guard version == 0 else {
            return SignedCertificateTimestamp(version: version, logID: [], timestamp: 0, extensions: [], hashAlgorithm: 0,
                                              signatureAlgorithm: 0, signature: [])
        }
        let logID = Array(try reader.take(32))
        let timestamp = try reader.uint64()
        let extensions = Array(try reader.take(try reader.length(bytes: 2)))
        let hash = try reader.byte()
        let signatureAlgorithm = try reader.byte()
        let signature = Array(try reader.take(try reader.length(bytes: 2)))
        guard reader.remaining == 0 else { throw .trailingBytes(index: index, count: reader.remaining) }
        return SignedCertificateTimestamp(version: version, logID: logID, timestamp: timestamp, extensions: extensions,
                                          hashAlgorithm: hash, signatureAlgorithm: signatureAlgorithm, signature: signature)
    }
}

/// A cursor over TLS presentation-language bytes (RFC 5246 §4): big-endian integers and length-prefixed vectors.
struct TLSReader {
    private var bytes: ArraySlice<UInt8>
    private let start: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.start = bytes.startIndex
    }

    var remaining: Int { bytes.count }

    mutating func take(_ n: Int) throws(SCTListError) -> ArraySlice<UInt8> {
        guard n <= bytes.count else { throw .truncated(at: bytes.startIndex - start, needed: n, have: bytes.count) }
        let out = bytes.prefix(n)
        bytes = bytes.dropFirst(n)
        return out
    }

    mutating func byte() throws(SCTListError) -> UInt8 {
        guard let b = bytes.first else { throw .truncated(at: bytes.startIndex - start, needed: 1, have: 0) }
        bytes = bytes.dropFirst()
        return b
    }

    mutating func length(bytes n: Int) throws(SCTListError) -> Int {
        var value = 0
        for b in try take(n) { value = value << 8 | Int(b) }
        return value
    }

    mutating func uint64() throws(SCTListError) -> UInt64 {
        var value: UInt64 = 0
        for b in try take(8) { value = value << 8 | UInt64(b) }
        return value
    }
}

/// Writes the TLS structures an SCT signature covers (RFC 6962 §3.2).
struct TLSWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func integer(_ value: UInt64, bytes n: Int) {
        for shift in stride(from: (n - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func vector<C: Collection>(_ data: C, lengthBytes n: Int) where C.Element == UInt8 {
        integer(UInt64(data.count), bytes: n)
        bytes.append(contentsOf: data)
    }
}
