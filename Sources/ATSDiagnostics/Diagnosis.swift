import AppTransportSecurity
import Foundation
import TransportClient
import TransportTrust

/// How one test ended.
public enum TestResult: String, Sendable, Codable {
    /// The load completed (any HTTP status): nscurl's "nil error".
    case pass = "PASS"
    /// The load failed under the test's ATS dictionary; the ``TestFailure`` says why.
    case fail = "FAIL"
    /// The server accepted none of the suites offered, and the ATS dictionary allows suites this TLS library
    /// (BoringSSL) cannot offer, so Apple's client might still succeed. Never reported as FAIL.
    case notTestable = "NOT TESTABLE"
}

/// Why a test failed: the closest Apple error and our own reasons.
public struct TestFailure: Sendable, Codable, Hashable {
    /// `TransportError.Kind` raw value.
    public var kind: String
    /// Where the load stopped: `connect`, `tls`, `trust`, `ats`, `http` and the like.
    public var phase: String
    /// What went wrong, in one sentence.
    public var message: String
    /// The URLSession error Apple's stack would most likely have given.
    public var apple: AppleErrorCode
    /// Every reason, in plain words: the trust verdict's failures and the ATS checks that blocked.
    public var reasons: [String]
    /// The redirect target where the load failed; nil when it failed at the URL's own server. The test's ATS
    /// exception names only the URL's host, so a target elsewhere is held to the default rules.
    public var redirectTarget: RedirectTarget?

    init(_ error: TransportError) {
        kind = error.kind.rawValue
        phase = error.phase.rawValue
        message = error.message
        apple = AppleErrorCode(error)
        var reasons = error.verdict?.failures.map { f in f.certificate.map { "certificate \($0): \(f.message)" } ?? f.message } ?? []
        reasons += error.atsEvaluation?.blockingReasons.filter { $0.kind != .certificate }.map { "ATS \($0.check): \($0.message)" } ?? []
        self.reasons = reasons
    }
}

/// A server a URL redirected to: `host:port` as text, `[host]:port` for an IPv6 address.
public struct RedirectTarget: Sendable, Codable, Hashable, CustomStringConvertible {
    /// The host redirected to.
    public var host: String
    /// Nil when the failure did not say.
    public var port: Int?

    public var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(shown):\($0)" } ?? shown
    }
}

/// One test's outcome.
public struct TestOutcome: Sendable, Codable {
    /// Which of nscurl's tests.
    public var test: ATSTestCase
    /// Passed, failed, or not testable here.
    public var result: TestResult
    /// The `NSAppTransportSecurity` dictionary the test used.
    public var dictionary: [String: PlistValueJSON]
    /// The final HTTP status, when the load completed.
    public var status: Int?
    /// The negotiated version and suite, when the handshake got far enough to see the ServerHello.
    public var tlsVersion: String?
    /// The negotiated suite's IANA name, when the handshake got as far.
    public var cipherSuite: String?
    /// The protocol the server chose through ALPN (`h2`, `http/1.1`), when the load completed; nil when it chose none.
    public var alpn: String?
    /// Why the load failed, when it did.
    public var failure: TestFailure?
    /// Why the test could not be judged here (``TestResult/notTestable``).
    public var notTestableReason: String?
    /// How long the test took, wall clock.
    public var milliseconds: Int

    /// The trust verdict and the certificates as presented, kept for the chain report.
    var verdict: TrustVerdict?
    var presented: [[UInt8]] = []
    /// Allowed suites we could not offer, when the test failed on suite negotiation.
    var unofferedSuites: [CipherSuite] = []

    enum CodingKeys: String, CodingKey {
        case test, result, dictionary, status, tlsVersion, cipherSuite, alpn, failure, notTestableReason, milliseconds
    }

    /// Whether the load completed.
    public var passed: Bool { result == .pass }
}

/// A plist value as JSON: Booleans, numbers, strings and nested objects, as the ATS dictionaries hold.
public enum PlistValueJSON: Sendable, Codable, Hashable {
    /// A Boolean.
    case bool(Bool)
    /// A string; dates and data are written as strings (RFC 3339, base64).
    case string(String)
    /// An integer or a real.
    case number(Double)
    /// A dictionary.
    case object([String: PlistValueJSON])
    /// An array.
    case array([PlistValueJSON])

    init(_ value: PlistValue) {
        switch value {
        case .boolean(let b): self = .bool(b)
        case .integer(let i): self = .number(Double(i))
        case .real(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .date(let d): self = .string(RFC3339.format(d))
        case .data(let d): self = .string(d.base64EncodedString())
        case .array(let a): self = .array(a.map(PlistValueJSON.init))
        case .dictionary(let d): self = .object(d.mapValues(PlistValueJSON.init))
        }
    }

    static func object(_ dictionary: [String: PlistValue]) -> [String: PlistValueJSON] { dictionary.mapValues(PlistValueJSON.init) }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .bool(let b): try c.encode(b)
        case .string(let s): try c.encode(s)
        case .number(let n): try c.encode(n)
        case .object(let o): try c.encode(o)
        case .array(let a): try c.encode(a)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([PlistValueJSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: PlistValueJSON].self)) }
    }
}

/// One certificate of the server's chain, as the report shows it.
public struct ChainEntry: Sendable, Codable, Hashable {
    /// `leaf`, `intermediate`, or `anchor` (the trusted root, which the server may not have sent).
    public var role: String
    /// Whether the server sent it.
    public var presented: Bool
    /// The subject's distinguished name.
    public var subject: String
    /// The issuer's distinguished name.
    public var issuer: String
    /// `EC P-256`, `RSA 2048`, …
    public var keyType: String
    /// The key's size in bits, when known.
    public var keySize: Int?
    /// The signature algorithm, e.g. `ecdsaWithSHA256`.
    public var signatureAlgorithm: String
    /// The start of the validity period, when readable.
    public var notValidBefore: Date?
    /// The end of the validity period, when readable.
    public var notValidAfter: Date?
    /// The subjectAltName entries, each with its kind (`DNS:`, `IP:`, …).
    public var subjectAlternativeNames: [String]
    /// For the leaf: whether a subjectAltName names the host. Nil for CA certificates.
    public var sanMatchesHost: Bool?
    /// base64(SHA-256(SubjectPublicKeyInfo)), the NSPinnedDomains form.
    public var spkiSHA256: String
    /// `ok`, or the failures the default ATS evaluation found in this certificate.
    public var atsVerdict: [String]
    /// The leaf's embedded SCTs as Apple's CT policy saw them; empty for the other certificates.
    public var scts: [SCTReport] = []
}

/// The diagnosis of one URL: every test, the chain, and the smallest exception.
public struct HostDiagnosis: Sendable, Codable {
    /// The URL diagnosed, as given.
    public var url: String
    /// Its host.
    public var host: String
    /// Its port.
    public var port: Int
    /// The release whose ATS rules the tests followed.
    public var profile: PlatformProfile
    /// The Apple release whose TLS server rules the chain was held to ("iOS 26"); nil in documents from before it was kept.
    public var platform: String?
    /// Where the public roots came from: "system" (this machine's) or "apple" (Apple's trust store, see ``trustStoreVersion``).
    public var trustStore: String?
    /// The version of Apple's trust store, when it was the one used.
    public var trustStoreVersion: Int?
    /// nscurl's tests in its order, then the probes.
    public var tests: [TestOutcome]
    /// The chain, leaf first, each certificate marked as sent by the server or not.
    public var chain: [ChainEntry]
    /// What Apple's CT policy made of the leaf, from the verdict the chain report shows; nil when CT did not look.
    public var certificateTransparency: CertificateTransparencyReport? = nil
    /// Whether CT was enforced in this diagnosis, and with which log list; nil in documents from before it was kept.
    public var certificateTransparencyStatus: CertificateTransparencyStatus? = nil
    /// The smallest Info.plist change that makes the URL load, or that none is needed.
    public var recommendation: Recommendation
    /// ATS-allowed suites this TLS library cannot offer: no test here proves or disproves them.
    public var untestableSuites: [String]
    /// How long the whole diagnosis took, wall clock.
    public var milliseconds: Int

    /// Whether the default ATS test passed.
    public var defaultPasses: Bool { outcome("default")?.passed == true }

    /// The default ATS test's result, which decides the exit status (FAIL if it is missing).
    public var defaultResult: TestResult { outcome("default")?.result ?? .fail }

    /// The exit status of `ats diagnose` for the default results of its URLs: 1 when any FAILs; otherwise 3 when any is
    /// NOT TESTABLE (undecided here, which is not a failure); otherwise 0.
    public static func exitStatus(defaultResults: some Sequence<TestResult>) -> Int32 {
        var undecided = false
        for result in defaultResults {
            if result == .fail { return 1 }
            if result == .notTestable { undecided = true }
        }
        return undecided ? 3 : 0
    }

    /// The outcome of the test with this id (`default`, `tls1.2`, …), when it ran.
    public func outcome(_ id: String) -> TestOutcome? { tests.first { $0.test.id == id } }

    /// What the diagnosis answers, when it is more than nscurl's question: with Apple's trust store, whether an Apple
    /// device would trust the server.
    public var question: String? {
        guard trustStore == TrustAnchors.Store.apple.rawValue, let platform else { return nil }
        let store = "Apple's trust store \(trustStoreVersion.map(String.init) ?? "")".trimmingCharacters(in: .whitespaces)
        let device = platform.hasPrefix("macOS") ? "a Mac on \(platform)" : "an iPhone on \(platform)"
        let storeNote = platform == ApplePlatform.newest.description ? "" : " (given the iOS 26 store)"
        return "Trust is evaluated with \(store) and the TLS server rules of \(platform): it answers whether \(device)\(storeNote) would trust this server."
    }

    /// nscurl's tests only.
    public var nscurlTests: [TestOutcome] { tests.filter { $0.test.section != nil } }

    /// nscurl's 16 results in its order, one letter each: `P` pass, `F` fail, `N` not testable.
    public var matrix: String {
        String(nscurlTests.map { o -> Character in o.result == .pass ? "P" : (o.result == .fail ? "F" : "N") })
    }
}
