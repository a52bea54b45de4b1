import Crypto
import Foundation

/// One challenge from a `WWW-Authenticate` header (RFC 9110 §11.6.1).
package struct HTTPAuthChallenge: Sendable, Equatable {
    /// The scheme, lowercased: `basic`, `digest`, …
    public var scheme: String
    /// Parameters by lowercased name, unquoted.
    public var parameters: [String: String]

    public var realm: String? { parameters["realm"] }

    /// Parses every challenge in the given header values. Unparsable parts are skipped.
    public static func parse(_ values: [String]) -> [HTTPAuthChallenge] {
        values.flatMap { parse(header: $0) }
    }

    static func parse(header: String) -> [HTTPAuthChallenge] {
        var scanner = Tokenizer(Array(header.utf8))
        var challenges: [HTTPAuthChallenge] = []
        while true {
            scanner.skip(whitespaceAndCommas: true)
            guard let scheme = scanner.token() else { break }
            var challenge = HTTPAuthChallenge(scheme: scheme.lowercased(), parameters: [:])
            // Parameters until the next "token SP" that is not followed by '=' (the next challenge).
            while true {
                scanner.skip(whitespaceAndCommas: true)
                let mark = scanner.position
                guard let name = scanner.token() else { break }
                scanner.skip(whitespaceAndCommas: false)
                if scanner.consume(UInt8(ascii: "=")) {
                    scanner.skip(whitespaceAndCommas: false)
                    if let value = scanner.quoted() ?? scanner.token() {
                        challenge.parameters[name.lowercased()] = value
                    }
                } else {
                    scanner.position = mark
                    break
                }
            }
            challenges.append(challenge)
        }
        return challenges
    }

    private struct Tokenizer {
        let bytes: [UInt8]
        var position = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func skip(whitespaceAndCommas commas: Bool) {
            while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x09 || (commas && bytes[position] == 0x2C) {
                position += 1
            }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// A token (tchar) or token68-ish run, stopping at whitespace, ',', '=' (except trailing '=' padding).
        mutating func token() -> String? {
            let start = position
            while position < bytes.count {
                let b = bytes[position]
                if b == 0x20 || b == 0x09 || b == 0x2C || b == 0x3D || b == 0x22 { break }
                position += 1
            }
            return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }

        mutating func quoted() -> String? {
            guard consume(0x22) else { return nil }
            var out: [UInt8] = []
            while position < bytes.count {
                let b = bytes[position]
                position += 1
                if b == 0x5C, position < bytes.count {
                    out.append(bytes[position])
                    position += 1
                } else if b == 0x22 {
                    return String(decoding: out, as: UTF8.self)
                } else {
                    out.append(b)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}

/// Builds `Authorization` headers for Basic (RFC 7617) and Digest (RFC 7616).
package enum HTTPAuthorization {
    /// `Basic base64(user:password)`, UTF-8.
    public static func basic(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// The Digest algorithms supported: MD5, SHA-256 and their `-sess` forms.
    public enum DigestAlgorithm: String, Sendable, CaseIterable {
        case md5 = "MD5"
        case md5Session = "MD5-sess"
        case sha256 = "SHA-256"
        case sha256Session = "SHA-256-sess"

        /// Parses the `algorithm` parameter (case-insensitive); absent means MD5 (RFC 7616 §3.3).
        public init?(parameter: String?) {
            guard let parameter else { self = .md5; return }
            guard let found = Self.allCases.first(where: { $0.rawValue.lowercased() == parameter.lowercased() }) else { return nil }
            self = found
        }

        var isSession: Bool { self == .md5Session || self == .sha256Session }

        /// Stronger algorithms first, for choosing between challenges.
        var strength: Int { (self == .sha256 || self == .sha256Session) ? 2 : 1 }

        func hash(_ text: String) -> String {
            switch self {
            case .md5, .md5Session: return Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
            case .sha256, .sha256Session: return SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
            }
        }
    }

    /// Why a Digest challenge cannot be answered.
    public struct DigestError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Why ``digest(challenge:user:password:method:uri:nonceCount:cnonce:)`` cannot answer `challenge`, or nil
    /// when it can. A client offered several challenges answers one it can (RFC 9110 §11.6.1).
    public static func digestProblem(_ challenge: HTTPAuthChallenge) -> DigestError? {
        guard challenge.parameters["nonce"] != nil else { return DigestError(description: "the Digest challenge has no nonce") }
        guard DigestAlgorithm(parameter: challenge.parameters["algorithm"]) != nil else {
            return DigestError(description: "unsupported Digest algorithm '\(challenge.parameters["algorithm"] ?? "")'; MD5, SHA-256 and their -sess forms are supported")
        }
        let qops = qopOptions(challenge)
        if !qops.isEmpty && !qops.contains("auth") {
            return DigestError(description: "the server offers qop=\(qops.joined(separator: ",")); only qop=auth is supported")
        }
        return nil
    }

    private static func qopOptions(_ challenge: HTTPAuthChallenge) -> [String] {
        (challenge.parameters["qop"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// The `Authorization` value answering a Digest challenge for `method` and `uri` (the request target).
    /// Supports qop=auth and the legacy no-qop form; auth-int and userhash are not supported.
    public static func digest(challenge: HTTPAuthChallenge, user: String, password: String, method: String, uri: String,
                              nonceCount: Int = 1, cnonce: String? = nil) throws(DigestError) -> String {
        if let problem = digestProblem(challenge) { throw problem }
        guard let nonce = challenge.parameters["nonce"], let algorithm = DigestAlgorithm(parameter: challenge.parameters["algorithm"]) else {
            throw DigestError(description: "the Digest challenge cannot be answered")
        }
        let realm = challenge.realm ?? ""
        let useQop = qopOptions(challenge).contains("auth")
        let cnonce = cnonce ?? (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let nc = String(format: "%08x", nonceCount)
        var ha1 = algorithm.hash("\(user):\(realm):\(password)")
        if algorithm.isSession { ha1 = algorithm.hash("\(ha1):\(nonce):\(cnonce)") }
        let ha2 = algorithm.hash("\(method):\(uri)")
        let response = useQop ? algorithm.hash("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)") : algorithm.hash("\(ha1):\(nonce):\(ha2)")
        func q(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
        var parts = ["username=\(q(user))", "realm=\(q(realm))", "uri=\(q(uri))", "algorithm=\(algorithm.rawValue)", "nonce=\(q(nonce))"]
        if useQop || algorithm.isSession { parts += ["nc=\(nc)", "cnonce=\(q(cnonce))"] }
        if useQop { parts.append("qop=auth") }
        parts.append("response=\(q(response))")
        if let opaque = challenge.parameters["opaque"] { parts.append("opaque=\(q(opaque))") }
        return "Digest " + parts.joined(separator: ", ")
    }
}
