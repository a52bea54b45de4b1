/// Whether a described connection meets the requirements, with one reason per check.
public struct ConnectionEvaluation: Sendable, Equatable {
    /// What a reason checks.
    public enum Check: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// `http` is allowed only where plain loads are.
        case scheme
        /// The negotiated version is at least the minimum.
        case tlsVersion = "tls-version"
        /// The negotiated suite is one ATS allows (forward secrecy included).
        case cipherSuite = "cipher-suite"
        /// The chain is trusted under the certificate requirements.
        case certificate
        /// The chain matches the pinned identities, where the domain pins.
        case pins

        public var description: String { rawValue }
    }

    /// One check and its result.
    public struct Reason: Sendable, Equatable {
        /// What was checked.
        public var kind: Check
        /// Whether the connection met it.
        public var passed: Bool
        /// What was found, in words.
        public var message: String
        /// The key and rule that set the requirement.
        public var because: Provenance

        /// The check's name as the CLI and JSON print it (`tls-version`).
        public var check: String { kind.rawValue }
    }

    /// One reason per check made.
    public var reasons: [Reason]

    /// Allowed when every check passed.
    public var isAllowed: Bool { reasons.allSatisfy(\.passed) }
    /// The failed checks.
    public var blockingReasons: [Reason] { reasons.filter { !$0.passed } }
}

extension ConnectionRequirements {
    /// Checks a described connection against these requirements.
    public func evaluate(_ connection: ConnectionDescription) -> ConnectionEvaluation {
        var reasons: [ConnectionEvaluation.Reason] = []
        func add(_ check: ConnectionEvaluation.Check, _ passed: Bool, _ message: String, _ because: Provenance) {
            reasons.append(.init(kind: check, passed: passed, message: message, because: because))
        }
        if connection.scheme != "https" {
            add(.scheme, allowsInsecureHTTP.value,
                allowsInsecureHTTP.value ? "plain HTTP is allowed" : "plain HTTP is blocked; use https", allowsInsecureHTTP.because)
            return ConnectionEvaluation(reasons: reasons)
        }
        if let version = connection.tlsVersion {
            let ok = version >= minimumTLSVersion.value
            add(.tlsVersion, ok, ok ? "\(version) meets the minimum \(minimumTLSVersion.value)"
                : "\(version) is below the minimum \(minimumTLSVersion.value)", minimumTLSVersion.because)
        }
        if let name = connection.cipherSuite {
            let (passed, message) = cipherSuiteVerdict(name, tlsVersion: connection.tlsVersion)
            add(.cipherSuite, passed, message, cipherSuites.because)
        }
        if let verdict = certificateVerdict(connection.trust) {
            add(.certificate, verdict.passed, verdict.message, certificate.because)
        }
        if let pins = pins.value, let matched = connection.pinsMatched {
            add(.pins, matched, matched ? "the chain matches the pins of \(pins.domain)" : "the chain matches none of the pins of \(pins.domain)", self.pins.because)
        }
        return ConnectionEvaluation(reasons: reasons)
    }

    /// Whether the negotiated suite passes, and why: first whether it can be negotiated with the version at all.
    private func cipherSuiteVerdict(_ name: String, tlsVersion: TLSVersion?) -> (passed: Bool, message: String) {
        let suite = CipherSuite(lookup: name)
        let display = suite?.name ?? name
        if let suite, suite.isTLS13, let v = tlsVersion, v < .tls13 {
            return (false, "\(display) is a TLS 1.3 suite but \(v) was negotiated")
        } else if let suite, let v = tlsVersion, v < suite.minimumTLSVersion {
            return (false, "\(display) needs TLS 1.2 or later, so it cannot be negotiated with \(v): TLS 1.0 and 1.1 define no AEAD or SHA-256/384 suites")
        } else if let suite, !suite.isTLS13, tlsVersion == .tls13 {
            return (false, "\(display) cannot be negotiated with TLS 1.3")
        } else if !cipherSuitesRestricted, profile.generation >= .ats2, suite?.isRC4 == true {
            return (false, "\(display) is an RC4 suite, which Apple's TLS client no longer offers, even where ATS does not apply")
        } else if !cipherSuitesRestricted {
            return (true, "ATS does not restrict cipher suites here")
        }
        let ok = suite.map { cipherSuites.value.contains($0) } ?? false
        var message = ok ? "\(display) is allowed" : "\(display) is not an allowed suite"
        if !ok, let suite, CipherSuite.atsRSAKeyExchange.contains(suite) {
            message += " (RSA key exchange needs NSExceptionRequiresForwardSecrecy = NO)"
        }
        if suite == nil { message = "\(name) is not a cipher suite this tool knows; ATS allows only the suites listed by `ats check`" }
        return (ok, message)
    }

    /// Whether the chain's trust passes, and why; nil when it was not evaluated.
    private func certificateVerdict(_ trust: ConnectionDescription.Trust) -> (passed: Bool, message: String)? {
        switch trust {
        case .notEvaluated:
            return nil
        case .trusted(let strong):
            if certificate.value.requiresATSKeyStrength && !strong {
                return (false, "the certificate key is below ATS strength (RSA 2048, EC 256 bits)")
            }
            return (true, "the certificate chain is trusted")
        case .untrusted(let reason):
            var message = "the certificate chain is not trusted: \(reason)"
            if certificate.value.validation == .relaxed {
                message += " (the app may still accept it through its own server trust handling, which this exception permits)"
            }
            return (false, message)
        }
    }
}
