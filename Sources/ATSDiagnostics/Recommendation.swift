import AppTransportSecurity
import TransportClient
import TransportTrust

/// The smallest Info.plist change that makes a URL load, or why none can.
public struct Recommendation: Sendable, Codable, Hashable {
    /// What the diagnosis recommends: nothing, an exception, arbitrary loads or a server change; or that it cannot decide.
    public enum Kind: String, Sendable, Codable {
        /// The default ATS test passed.
        case noneNeeded = "none-needed"
        /// An NSExceptionDomains entry for the host makes the URL load.
        case exception
        /// Only NSAllowsArbitraryLoads (ATS off for every domain) makes it load.
        case arbitraryLoadsOnly = "arbitrary-loads-only"
        /// No ATS key helps; the server must change.
        case noExceptionHelps = "no-exception-helps"
        /// The default ATS test is NOT TESTABLE: the server takes only suites that ATS allows and BoringSSL cannot
        /// offer, so whether Apple's client loads the URL with no exception cannot be decided here.
        case undecided
    }

    /// Whether an exception is needed, and which.
    public var kind: Kind
    /// The id of the least relaxed test that passed (``ATSTestCase/id``), nil when none did.
    public var configuration: String?
    /// The `NSAppTransportSecurity` dictionary to add, nil when none is needed or none helps.
    public var dictionary: [String: PlistValueJSON]?
    /// The same as Info.plist XML, ready to paste inside the top-level `<dict>`.
    public var xml: String?
    /// One line: what to do.
    public var summary: String
    /// What the server's operator should fix so that no exception is needed (empty when the default test passes).
    public var serverFixes: [String]

    /// Chooses from the outcomes: the first configuration in ``ATSTestCase/recommendationOrder`` that loaded.
    static func choose(host: String, outcomes: [TestOutcome]) -> Recommendation {
        let byID = Dictionary(outcomes.map { ($0.test.id, $0) }, uniquingKeysWith: { a, _ in a })
        let loaded = ATSTestCase.recommendationOrder.lazy.compactMap({ byID[$0] }).first(where: \.passed)
        if let first = byID["default"], first.result == .notTestable {
            return undecided(host: host, first: first, loaded: loaded, outcomes: outcomes)
        }
        let fixes = byID["default"].map { ServerFixes.advice(for: $0, host: host) } ?? []
        guard let chosen = loaded else {
            if let first = byID["default"], let target = first.failure?.redirectTarget {
                // No exception for the URL's host reaches the server it redirects to.
                return Recommendation(kind: .noExceptionHelps, configuration: nil, dictionary: nil, xml: nil,
                                      summary: "\(host) redirects to \(target), and the load fails there, where an exception for \(host) does not apply; "
                                          + "diagnose https://\(target)/ itself, or fix that server as below",
                                      serverFixes: ServerFixes.advice(for: first, host: target.host))
            }
            // A configuration whose chain could not be checked here may load on a device: the need for an exception is
            // then open, though the default test's failure, and so the server's fixes, stand. (Suites this client cannot
            // offer leave it closed: the server still failed every suite ATS lets us offer.)
            let untrusted = ATSTestCase.recommendationOrder.compactMap { byID[$0] }.filter { $0.result == .notTestable && $0.unofferedSuites.isEmpty }
            if !untrusted.isEmpty {
                return Recommendation(kind: .undecided, configuration: nil, dictionary: nil, xml: nil,
                                      summary: "cannot be decided here: no configuration loaded here, but \(untrusted.map(\.test.title).joined(separator: ", ")) "
                                          + "could not be tested (\(untrusted[0].notTestableReason ?? "this verifier cannot tell")) and may load on a device; "
                                          + "check with nscurl --ats-diagnostics on a Mac, or fix the server as below",
                                      serverFixes: fixes)
            }
            let untestable = outcomes.contains { $0.result == .notTestable }
            return Recommendation(kind: .noExceptionHelps, configuration: nil, dictionary: nil, xml: nil,
                                  summary: untestable
                                      ? "no configuration loaded here, and some could not be tested with this TLS library; fix the server as below"
                                      : "no ATS exception makes \(host) load; the server must be fixed",
                                  serverFixes: fixes)
        }
        if chosen.test.id == "default" {
            return Recommendation(kind: .noneNeeded, configuration: "default", dictionary: nil, xml: nil,
                                  summary: "none needed: \(host) loads with the default ATS settings", serverFixes: [])
        }
        let dictionary = chosen.test.relaxation.dictionary(host: host)
        let keys = chosen.test.relaxation.exceptionEntry.map { entry in
            entry.keys.sorted().map { "\($0) = \(entry[$0].map(Self.short) ?? "")" }.joined(separator: ", ")
        } ?? "NSAllowsArbitraryLoads = YES"
        if chosen.test.relaxation.allowsArbitraryLoads {
            return Recommendation(kind: .arbitraryLoadsOnly, configuration: chosen.test.id, dictionary: PlistValueJSON.object(dictionary),
                                  xml: PlistRendering.xmlSnippet(dictionary),
                                  summary: "only NSAllowsArbitraryLoads makes \(host) load, and it turns ATS off for every domain; fix the server instead",
                                  serverFixes: fixes)
        }
        return Recommendation(kind: .exception, configuration: chosen.test.id, dictionary: PlistValueJSON.object(dictionary),
                              xml: PlistRendering.xmlSnippet(dictionary),
                              summary: "NSExceptionDomains › \(host): \(keys)", serverFixes: fixes)
    }

    /// The default test could not be decided, so neither can the need for an exception, nor anything the server must
    /// fix: a Mac may load the URL as it is. The least relaxed configuration that loaded here, if any, is kept as the
    /// fallback for when it does not.
    private static func undecided(host: String, first: TestOutcome, loaded: TestOutcome?, outcomes: [TestOutcome]) -> Recommendation {
        var summary = "cannot be decided here: the default ATS test is NOT TESTABLE (\(first.notTestableReason ?? "suites BoringSSL cannot offer")); "
            + "Apple's client may load \(host) with no exception, so check it with nscurl --ats-diagnostics on a Mac"
        if !outcomes.contains(where: { !$0.presented.isEmpty }) {
            summary += "; no handshake completed here, so the server's certificates were not checked either"
        }
        guard let loaded else { return Recommendation(kind: .undecided, summary: summary, serverFixes: []) }
        let dictionary = loaded.test.relaxation.dictionary(host: host)
        summary += "; if it does not load there, \(loaded.test.title) loaded here"
        return Recommendation(kind: .undecided, configuration: loaded.test.id, dictionary: PlistValueJSON.object(dictionary),
                              xml: PlistRendering.xmlSnippet(dictionary), summary: summary, serverFixes: [])
    }

    /// One line for tables: the default result, then what makes the URL load ("FAIL; loads with TLSv1.0").
    package static func outcomeText(defaultResult: String, kind: Kind, configuration: String?) -> String {
        switch kind {
        case .noneNeeded: return defaultResult
        case .exception: return "\(defaultResult); loads with \(configuration.flatMap(ATSTestCase.named).map(\.title) ?? "an exception")"
        case .arbitraryLoadsOnly: return "\(defaultResult); loads only with arbitrary loads"
        case .noExceptionHelps: return "\(defaultResult); no exception helps"
        case .undecided: return "\(defaultResult); cannot be decided here"
        }
    }

    private static func short(_ value: PlistValue) -> String {
        switch value {
        case .boolean(let b): return b ? "YES" : "NO"
        case .string(let s): return s
        default: return value.snippet
        }
    }
}

/// What a server's operator must change, in words, from a failed default test.
enum ServerFixes {
    static func advice(for outcome: TestOutcome, host: String) -> [String] {
        guard let failure = outcome.failure else { return [] }
        var fixes: [String] = []
        for f in outcome.verdict?.failures ?? [] {
            let what: String
            switch f.code {
            case .expired: what = "renew the certificate"
            case .notYetValid: what = "the certificate is not valid yet: check its start date and the server's clock"
            case .hostnameMismatch: what = "issue a certificate whose subjectAltName lists \(host)"
            case .unknownIssuer: what = "send the intermediate certificates with the leaf (the full chain, up to but not including the root)"
            case .selfSignedLeaf, .untrustedRoot:
                what = "use a certificate from a CA the devices trust; an ATS exception cannot make an untrusted chain trusted (installing the root as a trusted profile can)"
            case .weakSignature: what = "reissue the certificate with a SHA-256 or stronger signature"
            case .weakKey: what = "reissue the certificate with an RSA key of at least 2048 bits or an EC key of at least 256 bits"
            case .extendedKeyUsage: what = "reissue the leaf with the serverAuth extended key usage"
            case .revoked: what = "replace the certificate: its CA has revoked it"
            case .revocationUnknown: what = "make the certificate's revocation status reachable: staple an OCSP response or serve its CRL"
            case .certificateTransparency: what = "get a certificate with SCTs from logs Apple trusts (a CA that logs its certificates embeds them)"
            case .validityPeriodTooLong: what = "reissue the certificate within Apple's lifetime limit (398 days for certificates issued since September 2020)"
            case .distrusted: what = "replace the certificate: its CA or key is distrusted"
            case .chainTooLong, .pathBuildingLimit:
                what = "send only the certificates of the path to the root: fewer intermediates, no unrelated or cross-signed extras"
            // No default: a new code does not compile here until someone decides its advice.
            case .basicConstraints, .pathLength, .nameConstraints, .keyUsage, .unhandledCriticalExtension, .unsupportedAlgorithm,
                 .malformedCertificate, .pinMismatch, .hostNotAllowed, .policy, .internalError, .certificatePolicy:
                what = "fix the certificate chain"
            }
            fixes.append("\(what) (\(f.message))")
        }
        if !fixes.isEmpty { return fixes }
        switch failure.kind {
        case TransportError.Kind.atsRefused.rawValue:
            switch failure.apple.sslErrorCode {
            case AppleErrorCode.SSLCode.peerProtocolVersion.rawValue:
                return ["enable TLS 1.2 or later on the server (\(failure.message))"]
            case AppleErrorCode.SSLCode.badCertificate.rawValue:
                return ["use an RSA key of at least 2048 bits or an EC key of at least 256 bits (\(failure.message))"]
            default:
                return ["offer an ECDHE cipher suite with AES-GCM, which gives forward secrecy (\(failure.message))"]
            }
        case TransportError.Kind.insecureHTTPRefused.rawValue, TransportError.Kind.redirectRefused.rawValue:
            return ["serve and redirect over https only (\(failure.message))"]
        case TransportError.Kind.clientCertificateRejected.rawValue:
            return ["the server requires a client certificate: no ATS key supplies one; the app must answer the client-certificate challenge with an identity, or the server must stop requiring one"]
        case TransportError.Kind.timedOut.rawValue, TransportError.Kind.connectionFailed.rawValue,
             TransportError.Kind.connectionClosed.rawValue, TransportError.Kind.malformedResponse.rawValue:
            return ["make the server reachable over TLS at this address (\(failure.message))"]
        default:
            return [failure.message]
        }
    }
}
