import AppTransportSecurity

/// Turns a failed handshake into a ``TransportError`` that says why, using what the ServerHello observer saw
/// and BoringSSL's error text, so that a version or cipher refusal names the ATS key that would allow it and a
/// refused client certificate is not reported as a generic closed connection.
struct HandshakeFailureClassifier {
    let target: Target
    let observation: HandshakeObservation
    let verifier: HandshakeVerifier

    /// TLS alert descriptions (RFC 8446 §6.2).
    static let alertNames: [UInt8: String] = [
        0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 22: "record_overflow", 40: "handshake_failure",
        42: "bad_certificate", 43: "unsupported_certificate", 44: "certificate_revoked", 45: "certificate_expired",
        46: "certificate_unknown", 47: "illegal_parameter", 48: "unknown_ca", 49: "access_denied", 50: "decode_error",
        51: "decrypt_error", 70: "protocol_version", 71: "insufficient_security", 80: "internal_error",
        86: "inappropriate_fallback", 90: "user_canceled", 109: "missing_extension", 110: "unsupported_extension",
        112: "unrecognized_name", 113: "bad_certificate_status_response", 115: "unknown_psk_identity",
        116: "certificate_required", 120: "no_application_protocol",
    ]

    /// The alert in BoringSSL's error text that means the server refused our certificate (or wanted one).
    static func clientCertificateAlert(in text: String) -> String? {
        let upper = text.uppercased()
        let alerts = ["ALERT_CERTIFICATE_REQUIRED": "certificate_required", "ALERT_BAD_CERTIFICATE": "bad_certificate",
                      "ALERT_UNKNOWN_CA": "unknown_ca", "ALERT_CERTIFICATE_UNKNOWN": "certificate_unknown",
                      "ALERT_UNSUPPORTED_CERTIFICATE": "unsupported_certificate", "ALERT_CERTIFICATE_EXPIRED": "certificate_expired",
                      "ALERT_CERTIFICATE_REVOKED": "certificate_revoked", "ALERT_ACCESS_DENIED": "access_denied",
                      "ALERT_DECRYPT_ERROR": "decrypt_error"]
        for (marker, name) in alerts.sorted(by: { $0.key < $1.key }) where upper.contains(marker) { return "a \(name) alert" }
        return nil
    }

    /// One case per kind of handshake failure, most specific first: what the server sent, then BoringSSL's text.
    func classify(_ error: any Error, identityPresented: Bool) -> TransportError {
        var closed = false
        if case ExchangeFailure.closed = error { closed = true }
        let failure = Failure(text: "\(error)", target: target, verifier: verifier)
        switch observation.first {
        case .notTLS(let bytes)?:
            return failure.make(.malformedResponse, "the server did not answer with TLS; its first bytes were \"\(bytes)\" (is this an http:// port?)")
        case .unparsable(let why)?:
            return failure.make(.malformedResponse, "the server's TLS handshake is malformed: \(why)")
        case .alert(_, let description)?:
            return alert(description, failure)
        case .serverHello(let hello)?:
            return afterServerHello(hello, failure, closed: closed, identityPresented: identityPresented)
        case nil:
            let text = failure.text
            if text.contains("closed") || text.contains("uncleanShutdown") || text.contains("reset") || closed {
                return failure.make(.connectionClosed, "the server closed the connection before answering the TLS ClientHello")
            }
            return failure.make(.tlsFailure, failure.worded("the TLS handshake failed before the server answered"))
        }
    }

    /// The error's parts every case words the same way.
    private struct Failure {
        let text: String
        let target: Target
        let verifier: HandshakeVerifier

        func make(_ kind: TransportError.Kind, _ message: String, _ reason: TLSFailureReason?? = nil) -> TransportError {
            let outcome = verifier.outcome
            var error = TransportError(kind, phase: .handshake, host: target.host, port: target.port, message, verdict: outcome?.decision.verdict,
                                       atsEvaluation: outcome?.decision.evaluation, handshake: verifier.handshakeSummary, underlying: text)
            error.tlsReason = reason ?? TLSFailureReason(boringSSLText: text)
            return error
        }

        /// BoringSSL's reason in words; its own text goes only to `underlying`.
        func worded(_ prefix: String) -> String {
            TLSFailureReason(boringSSLText: text).map { "\(prefix): \($0.sentence)" } ?? "\(prefix) for a reason the TLS library gave no known code for (its own text is kept as the error's underlying text)"
        }
    }

    /// The server ended the handshake with an alert. An ATS refusal, with the key that would change it, only where
    /// ATS sets what was offered; otherwise the server and this client simply have nothing in common.
    private func alert(_ description: UInt8, _ failure: Failure) -> TransportError {
        let requirements = target.requirements
        let name = Self.alertNames[description] ?? "alert \(description)"
        let minimum = requirements.minimumTLSVersion
        let enforced = requirements.atsEnforced.value
        switch description {
        case 70:
            guard enforced && minimum.value > .tls10 else {
                return failure.make(.tlsFailure, "the server supports no TLS version this client offers, from \(minimum.value) up (it sent \(name))")
            }
            let versionHint = entryCanHelp ? "; \(Self.versionKey) for this domain would allow an older version"
                : "; no exception can lower it for an IP address before iOS 17 / macOS 14"
            return failure.make(.atsRefused, "the server supports no TLS version from \(minimum.value) up (it sent \(name)); the minimum comes from \(minimum.because)\(versionHint)")
        case 40, 71:
            // handshake_failure also means no shared key-exchange group or signature algorithm, not only suites.
            let what = "the server accepts none of the offered cipher suites, or none of the key-exchange groups or signature algorithms (it sent \(name))"
            guard enforced else { return failure.make(.tlsFailure, what) }
            let rsaHint = requirements.requiresForwardSecrecy.value && minimum.value < .tls13 && description == 40 && entryCanHelp
            // Suites ATS allows that BoringSSL lacks: the server may take one of them, as an iPhone would.
            let unoffered = HTTPSClient.unofferable(requirements.cipherSuites.value).map(\.name)
            let unofferedHint = unoffered.isEmpty ? ""
                : "; ATS also allows \(unoffered.joined(separator: ", ")), which this client cannot offer, so an iPhone may still load it (ats diagnose asks the server)"
            return failure.make(.atsRefused, "\(what); the suites come from \(requirements.cipherSuites.because)\(rsaHint ? "; if the server only has RSA key exchange, NSExceptionRequiresForwardSecrecy = NO for this domain would allow it" : "")\(unofferedHint)")
        default:
            guard let reason = TLSFailureReason(alert: description) else {
                return failure.make(.tlsFailure, "the server ended the handshake with \(name)", .some(nil))
            }
            let kind: TransportError.Kind = reason.fixedBy == .client && Self.clientCertificateAlert(in: reason.rawValue) != nil
                ? .clientCertificateRejected : .tlsFailure
            return failure.make(kind, reason.sentence, reason)
        }
    }

    /// The server answered, then the handshake failed: an ATS refusal of what it chose, a refused client
    /// certificate, a closed connection, or BoringSSL's reason.
    private func afterServerHello(_ hello: ServerHelloInfo, _ failure: Failure, closed: Bool, identityPresented: Bool) -> TransportError {
        let requirements = target.requirements
        let minimum = requirements.minimumTLSVersion
        let text = failure.text
        if let version = hello.version, version < minimum.value {
            return failure.make(.atsRefused, "the server negotiated \(version), below the minimum \(minimum.value) (\(minimum.because)); \(Self.versionKey) would allow it")
        }
        if hello.version != .tls13 && !requirements.cipherSuites.value.contains(where: { $0.code == hello.cipherSuiteCode }) {
            return failure.make(.atsRefused, "the server chose \(hello.cipherSuiteName), which is not an allowed suite (\(requirements.cipherSuites.because))")
        }
        if let alert = Self.clientCertificateAlert(in: text) ?? (verifier.outcome != nil && text.uppercased().contains("ALERT_HANDSHAKE_FAILURE") ? "a handshake_failure alert" : nil) {
            let presented = identityPresented ? "the client certificate was rejected" : "the server requires a client certificate and none is configured for \(target.host)"
            return failure.make(.clientCertificateRejected, "client certificate rejected: \(presented) (the server sent \(alert))")
        }
        if text.contains("closed") || text.contains("uncleanShutdown") || closed {
            return failure.make(.connectionClosed, "the server closed the connection during the TLS handshake")
        }
        return failure.make(.tlsFailure, failure.worded("the TLS handshake failed"))
    }

    static let versionKey = "NSExceptionMinimumTLSVersion"

    /// Whether an exception entry for this host could change what is offered: before iOS 17 / macOS 14 the system
    /// ignores NSExceptionDomains entries for IP addresses, so no key names a fix there.
    private var entryCanHelp: Bool {
        !target.requirements.target.isIP || target.requirements.profile.generation >= .ats3
    }
}
