import Crypto
import Foundation
import SwiftASN1
import X509

/// Certificates and keys never to trust on any path, whoever issued them (`ats verify --distrust FILE`), as a
/// value: a ``TrustPolicy`` holds its lists, and `DistrustRule` enforces each.
///
/// A list is read from one file of any mix of:
/// - certificates, PEM (`CERTIFICATE`) or a single DER certificate: a path through that very certificate is refused;
/// - keys, as `sha256/BASE64` lines (the SHA-256 of the SubjectPublicKeyInfo, as OkHttp, HPKP and `ats pins` write
///   it) or PEM `PUBLIC KEY` blocks: a path through any certificate of that key is refused (a re-issued or
///   cross-signed certificate of a distrusted key included).
///
/// Blank lines and lines starting with `#` are comments. Anything else is an error naming its line.
public struct DistrustList: Sendable, Hashable, CustomStringConvertible {
    /// Where the list came from, named in refusals.
    public let source: String
    /// SHA-256 of each listed certificate's DER.
    let certificates: Set<[UInt8]>
    /// SHA-256 of each listed SubjectPublicKeyInfo.
    let keys: Set<[UInt8]>

    /// A list of these certificates and keys (`spkiSHA256`: SHA-256 hashes of SubjectPublicKeyInfo DER, 32 bytes each).
    public init(source: String, certificates: [InputCertificate] = [], spkiSHA256: [[UInt8]] = []) throws(DistrustListError) {
        var keys = Set<[UInt8]>()
        for hash in spkiSHA256 {
            guard hash.count == 32 else { throw DistrustListError(source: source, line: nil, "a key hash is \(hash.count) bytes; a SHA-256 hash is 32") }
            keys.insert(hash)
        }
        self.source = source
        self.certificates = Set(certificates.map { Array(SHA256.hash(data: $0.der)) })
        self.keys = keys
    }

    /// Reads a list from a file's bytes. - Parameter source: the file's name, for messages.
    public init(source: String, contents bytes: [UInt8]) throws(DistrustListError) {
        if !ByteSearch.contains(Array("-----BEGIN ".utf8), in: bytes), bytes.first == 0x30 {
            let loaded: [InputCertificate]
            do { loaded = try CertificateLoader.certificates(from: bytes, source: source) } catch {
                throw DistrustListError(source: source, line: nil, "\(error)")
            }
            try self.init(source: source, certificates: loaded)
            return
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw DistrustListError(source: source, line: nil, "it is neither text (PEM, sha256/ lines) nor a DER certificate")
        }
        var certificates: [InputCertificate] = []
        var keys: [[UInt8]] = []
        // An open block is its label and its BEGIN line's index; its lines are taken at its END, once, so that a long
        // block costs its length and not its length squared.
        var block: (label: String, start: Int)?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (n, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if let open = block {
                guard line.hasPrefix("-----END ") else { continue }
                block = nil
                let pem = lines[(open.start - 1)...n].map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n") + "\n"
                switch open.label {
                case "CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CERTIFICATE":
                    do { certificates += try CertificateLoader.certificates(from: Array(pem.utf8), source: "\(source) line \(open.start)") } catch {
                        throw DistrustListError(source: source, line: open.start, "\(error)")
                    }
                case "PUBLIC KEY":
                    guard let document = try? PEMDocument(pemString: pem), (try? DER.parse(document.derBytes)) != nil else {
                        throw DistrustListError(source: source, line: open.start, "the PUBLIC KEY block does not decode to a SubjectPublicKeyInfo")
                    }
                    keys.append(Array(SHA256.hash(data: document.derBytes)))
                default:
                    throw DistrustListError(source: source, line: open.start, "a '\(open.label)' block; give CERTIFICATE or PUBLIC KEY blocks")
                }
            } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") {
                block = (String(line.dropFirst("-----BEGIN ".count).dropLast(5)), n + 1)
            } else if line.isEmpty || line.hasPrefix("#") {
                continue
            } else if line.lowercased().hasPrefix("sha256/") {
                let pin: Pin
                do { pin = try Pin(parsing: line) } catch {
                    throw DistrustListError(source: source, line: n + 1, "\(error.problem); \(error.fix)")
                }
                guard case .spkiSHA256(let hash) = pin else { throw DistrustListError(source: source, line: n + 1, "'\(line)' is not a SHA-256 key hash") }
                keys.append(hash)
            } else {
                throw DistrustListError(source: source, line: n + 1,
                    "'\(line.prefix(60))' is neither a PEM block nor a key hash; write keys as sha256/BASE64 (the SHA-256 of the SubjectPublicKeyInfo)")
            }
        }
        if let open = block { throw DistrustListError(source: source, line: open.start, "the \(open.label) block has no END line") }
        guard !certificates.isEmpty || !keys.isEmpty else {
            throw DistrustListError(source: source, line: nil, "it lists no certificate and no key")
        }
        try self.init(source: source, certificates: certificates, spkiSHA256: keys)
    }

    /// How many certificates and keys the list holds.
    public var count: Int { certificates.count + keys.count }

    public var description: String { "\(source) (\(certificates.count) certificate\(certificates.count == 1 ? "" : "s"), \(keys.count) key\(keys.count == 1 ? "" : "s"))" }

    /// Why `certificate` is on this list, or nil.
    func reason(for certificate: Certificate) -> String? {
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(certificate)) != nil else { return "it cannot be encoded to be checked against \(source)" }
        let der = serializer.serializedBytes
        if certificates.contains(Array(SHA256.hash(data: der))) { return "the certificate is listed in \(source)" }
        // A certificate of this package's own reading; swift-certificates reserialises keys.
        guard let raw = try? RawCertificate(der: der) else { return "its key cannot be read to be checked against \(source)" }
        if keys.contains(Array(SHA256.hash(data: raw.subjectPublicKeyInfo))) {
            return "its key (sha256/\(raw.spkiSHA256Base64)) is listed in \(source)"
        }
        return nil
    }
}

/// A distrust list that cannot be read: which file, which line, and what is wrong.
public struct DistrustListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The list's file, for messages.
    public var source: String
    /// The line at fault, from 1, when one is.
    public var line: Int?
    /// What is wrong, and how to write it.
    public var reason: String

    init(source: String, line: Int?, _ reason: String) {
        self.source = source
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(source)\(line.map { " line \($0)" } ?? ""): \(reason)" }
}
