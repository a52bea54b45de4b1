import Crypto
import Foundation

/// One pin: what a certificate of the chain must be, or must carry, for the pin to match.
///
/// SPKI hashes are the form to prefer: they survive certificate renewals with the same key, and they are what
/// ATS (`SPKI-SHA256-BASE64`), TrustKit, HPKP (`pin-sha256="…"`), Android and OkHttp (`sha256/…`) use. The
/// hash covers the whole SubjectPublicKeyInfo DER, algorithm identifier included, so it can be computed for any
/// key type or size (RSA of any size, EC P-256/384/521, Ed25519), whether or not the key can be used.
public enum Pin: Sendable, Hashable, CustomStringConvertible {
    /// The whole certificate, by DER equality (AFSecurityPolicy certificate mode, Alamofire's pinned certificates).
    case certificate([UInt8])
    /// The SubjectPublicKeyInfo DER (AFSecurityPolicy public-key mode, Alamofire's public keys).
    case publicKey([UInt8])
    /// SHA-256 of the SubjectPublicKeyInfo DER: 32 bytes.
    case spkiSHA256([UInt8])
    /// SHA-1 of the SubjectPublicKeyInfo DER: 20 bytes. Legacy (old OkHttp and HPKP configurations); read with a warning.
    case spkiSHA1([UInt8])

    /// Reads a pin as people write it: `sha256/BASE64` (OkHttp), `pin-sha256="BASE64"` (HPKP), `sha1/BASE64`
    /// (legacy), or a bare base64 SHA-256 (ATS, TrustKit, Android).
    public init(parsing text: String) throws(PinConfigurationError) {
        var body = text.trimmingCharacters(in: .whitespacesAndNewlines)[...]
        var algorithm = "sha256"
        if let prefix = Self.writtenPrefix(of: body) {
            body = body.dropFirst(prefix.count)
            algorithm = prefix.contains("sha1") ? "sha1" : "sha256"
        }
        if body.hasPrefix("\""), body.hasSuffix("\""), body.count >= 2 { body = body.dropFirst().dropLast() }
        // Another hash's prefix would otherwise be called "not valid base64", which sends the reader the wrong way.
        if let slash = body.firstIndex(of: "/"), body[..<slash].lowercased().range(of: #"^(sha-?\d+|md5)$"#, options: .regularExpression) != nil {
            let written = body[..<slash], mark = written.lowercased().replacingOccurrences(of: "-", with: "")
            if mark == "sha256" || mark == "sha1" {
                throw PinConfigurationError(.malformedPin, "the pin \(NameDisplay.quoted(text)) is marked \(written)/, which is not how a pin's hash is named",
                    fix: "Write the prefix as \(mark)/")
            }
            throw PinConfigurationError(.malformedPin, "the pin \(NameDisplay.quoted(text)) is a \(written.uppercased()) hash; pins here are SHA-256 (sha256/) or legacy SHA-1 (sha1/)",
                fix: "Pin the SHA-256 of the SubjectPublicKeyInfo, written sha256/BASE64; `ats pins CERT.pem` prints it")
        }
        guard !body.isEmpty else {
            throw PinConfigurationError(.malformedPin, "the pin \(NameDisplay.quoted(text)) has no hash",
                fix: "Write it as sha256/ followed by the base64 SHA-256 of the SubjectPublicKeyInfo; `ats pins CERT.pem` prints it")
        }
        guard let data = Data(base64Encoded: String(body)) else {
            let hint = body.contains("-") || body.contains("_") ? " (it looks like base64url; use the standard alphabet with + and /)" : ""
            throw PinConfigurationError(.malformedPin, "the pin \(NameDisplay.quoted(text)) is not valid base64\(hint)",
                fix: "Copy the hash again, including any trailing '='; `ats pins CERT.pem` prints it")
        }
        let bytes = Array(data)
        let expected = algorithm == "sha1" ? 20 : 32
        guard bytes.count == expected else {
            throw PinConfigurationError(.wrongHashLength,
                "the pin \(NameDisplay.quoted(text)) decodes to \(bytes.count) bytes, but a \(algorithm == "sha1" ? "SHA-1" : "SHA-256") hash is \(expected)",
                fix: bytes.count == 20 && algorithm == "sha256" ? "It looks like a SHA-1 hash; prefix it with sha1/ or, better, pin the SHA-256 hash" :
                     Self.isHex(body, digits: expected * 2) ? "It looks like the hash in hex; pins are base64 (`echo HEX | xxd -r -p | base64` converts it)" :
                     "Pin base64(SHA-256(SubjectPublicKeyInfo)); `ats pins CERT.pem` prints it")
        }
        self = algorithm == "sha1" ? .spkiSHA1(bytes) : .spkiSHA256(bytes)
    }

    /// A pin as TrustKit and Android read it: only the base64 of a 32-byte SHA-256. Both refuse anything else at
    /// start-up, which ``init(parsing:)`` would accept: an OkHttp or HPKP prefix, quotes, spaces, a SHA-1 hash.
    package init(bareSHA256 text: String, system: String) throws(PinConfigurationError) {
        if let mark = Self.writtenPrefix(of: text) {
            let written = String(text.prefix(mark.count))
            throw PinConfigurationError(.malformedPin,
                "the pin \(NameDisplay.quoted(text)) starts with '\(written)', a prefix OkHttp and HPKP use; \(system) reads the hash as plain base64 and refuses the file",
                fix: mark.contains("sha1") ? "\(system) pins are SHA-256: pin base64(SHA-256(SubjectPublicKeyInfo)); `ats pins CERT.pem` prints it"
                                           : "Remove the '\(written)' prefix and keep only the base64 hash")
        }
        let pin: Pin
        do { pin = try Pin(parsing: text) } catch where error.code == .wrongHashLength {
            throw PinConfigurationError(.wrongHashLength, "\(error.problem); \(system) pins are SHA-256 only",
                fix: "Pin base64(SHA-256(SubjectPublicKeyInfo)); `ats pins CERT.pem` prints it")
        }
        guard !text.contains("\""), text.trimmingCharacters(in: .whitespacesAndNewlines) == text else {
            throw PinConfigurationError(.malformedPin, "the pin \(NameDisplay.quoted(text)) has spaces or quotes around the hash; \(system) reads the string as it is and refuses it",
                fix: "Write only the base64 hash")
        }
        self = pin
    }

    /// The OkHttp or HPKP prefix `text` starts with, in any case (`sha256/`, `sha1/`, `pin-sha256=`, `pin-sha1=`), or
    /// nil. Systems that read a bare base64 hash (iOS, TrustKit, Android) refuse or never match a pin written so.
    package static func writtenPrefix<S: StringProtocol>(of text: S) -> String? {
        let lower = text.lowercased()
        return ["sha256/", "sha1/", "pin-sha256=", "pin-sha1="].first(where: lower.hasPrefix)
    }

    static func isHex(_ text: Substring, digits: Int) -> Bool {
        text.count == digits && text.allSatisfy(\.isHexDigit)
    }

    /// The SPKI SHA-256 pin of `certificate`; works for every key type, parseable or not.
    public static func spkiSHA256(of certificate: InputCertificate) throws(PinConfigurationError) -> Pin {
        guard let raw = certificate.raw else {
            throw PinConfigurationError(.unreadableCertificate, "the certificate cannot be read to compute its SPKI hash",
                fix: "Give a valid X.509 certificate in PEM or DER")
        }
        return .spkiSHA256(Array(SHA256.hash(data: raw.subjectPublicKeyInfo)))
    }

    /// The public-key pin of `certificate`: its SubjectPublicKeyInfo DER.
    public static func publicKey(of certificate: InputCertificate) throws(PinConfigurationError) -> Pin {
        guard let raw = certificate.raw else {
            throw PinConfigurationError(.unreadableCertificate, "the certificate cannot be read to extract its public key",
                fix: "Give a valid X.509 certificate in PEM or DER")
        }
        return .publicKey(raw.subjectPublicKeyInfo)
    }

    /// Whether this is a legacy SHA-1 pin.
    public var isLegacySHA1: Bool { if case .spkiSHA1 = self { return true } else { return false } }

    /// Whether the certificate with these fingerprints matches the pin.
    package func matches(_ fingerprint: CertificateFingerprint) -> Bool {
        // An empty value is never a match: it is both the hash of a certificate that cannot be read and the pin ATS
        // makes of a malformed identity, which must match nothing.
        switch self {
        case .certificate(let der): return !der.isEmpty && fingerprint.der == der
        case .publicKey(let spki): return !spki.isEmpty && fingerprint.subjectPublicKeyInfo == spki
        case .spkiSHA256(let hash): return !hash.isEmpty && fingerprint.spkiSHA256 == hash
        case .spkiSHA1(let hash): return !hash.isEmpty && fingerprint.spkiSHA1 == hash
        }
    }

    /// The same pin as an SPKI SHA-256 hash, the form every configuration format can carry. nil for SHA-1 pins,
    /// which cannot be converted.
    public var asSPKISHA256: Pin? {
        switch self {
        case .spkiSHA256: return self
        case .spkiSHA1: return nil
        case .publicKey(let spki): return .spkiSHA256(Array(SHA256.hash(data: spki)))
        case .certificate(let der):
            guard let raw = try? RawCertificate(der: der) else { return nil }
            return .spkiSHA256(Array(SHA256.hash(data: raw.subjectPublicKeyInfo)))
        }
    }

    /// The base64 of a hash pin; nil for certificate and public-key pins.
    public var base64: String? {
        switch self {
        case .spkiSHA256(let h), .spkiSHA1(let h): return Base64.encode(h)
        case .certificate, .publicKey: return nil
        }
    }

    /// `sha256/…` or `sha1/…` for hash pins; a short label for the others.
    public var description: String {
        switch self {
        case .spkiSHA256(let h): return "sha256/" + Base64.encode(h)
        case .spkiSHA1(let h): return "sha1/" + Base64.encode(h)
        case .certificate(let der): return "certificate sha256/" + Base64.encode(Array(SHA256.hash(data: der))) + " (of the whole certificate)"
        case .publicKey(let spki): return "public key sha256/" + Base64.encode(Array(SHA256.hash(data: spki)))
        }
    }
}
