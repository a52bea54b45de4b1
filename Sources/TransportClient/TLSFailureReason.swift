/// Why BoringSSL ended a TLS handshake, in words: what is wrong and who must fix it.
///
/// The raw value is BoringSSL's reason code (`KEY_USAGE_BIT_INCORRECT`), which only `--verbose` and JSON show.
/// Alerts the peer sent are here as the reasons BoringSSL reports them under (`SSLV3_ALERT_HANDSHAKE_FAILURE`).
public enum TLSFailureReason: String, Sendable, Codable, CaseIterable {
    // Alerts the server sent.
    /// The alert BoringSSL reports as `SSLV3_ALERT_HANDSHAKE_FAILURE`.
    case alertHandshakeFailure = "SSLV3_ALERT_HANDSHAKE_FAILURE"
    /// The alert BoringSSL reports as `TLSV1_ALERT_PROTOCOL_VERSION`.
    case alertProtocolVersion = "TLSV1_ALERT_PROTOCOL_VERSION"
    /// The alert BoringSSL reports as `TLSV1_ALERT_INSUFFICIENT_SECURITY`.
    case alertInsufficientSecurity = "TLSV1_ALERT_INSUFFICIENT_SECURITY"
    /// The alert BoringSSL reports as `TLSV1_ALERT_INTERNAL_ERROR`.
    case alertInternalError = "TLSV1_ALERT_INTERNAL_ERROR"
    /// The alert BoringSSL reports as `TLSV1_ALERT_UNRECOGNIZED_NAME`.
    case alertUnrecognizedName = "TLSV1_ALERT_UNRECOGNIZED_NAME"
    /// The alert BoringSSL reports as `TLSV1_ALERT_NO_APPLICATION_PROTOCOL`.
    case alertNoApplicationProtocol = "TLSV1_ALERT_NO_APPLICATION_PROTOCOL"
    /// The alert BoringSSL reports as `TLSV1_ALERT_INAPPROPRIATE_FALLBACK`.
    case alertInappropriateFallback = "TLSV1_ALERT_INAPPROPRIATE_FALLBACK"
    /// The alert BoringSSL reports as `TLSV1_ALERT_DECODE_ERROR`.
    case alertDecodeError = "TLSV1_ALERT_DECODE_ERROR"
    /// The alert BoringSSL reports as `SSLV3_ALERT_ILLEGAL_PARAMETER`.
    case alertIllegalParameter = "SSLV3_ALERT_ILLEGAL_PARAMETER"
    /// The alert BoringSSL reports as `SSLV3_ALERT_UNEXPECTED_MESSAGE`.
    case alertUnexpectedMessage = "SSLV3_ALERT_UNEXPECTED_MESSAGE"
    /// The alert BoringSSL reports as `TLSV1_ALERT_DECRYPT_ERROR`.
    case alertDecryptError = "TLSV1_ALERT_DECRYPT_ERROR"
    /// The alert BoringSSL reports as `SSLV3_ALERT_BAD_RECORD_MAC`.
    case alertBadRecordMAC = "SSLV3_ALERT_BAD_RECORD_MAC"
    /// The alert BoringSSL reports as `TLSV1_ALERT_RECORD_OVERFLOW`.
    case alertRecordOverflow = "TLSV1_ALERT_RECORD_OVERFLOW"
    /// The alert BoringSSL reports as `TLSV1_ALERT_UNSUPPORTED_EXTENSION`.
    case alertUnsupportedExtension = "TLSV1_ALERT_UNSUPPORTED_EXTENSION"
    /// The alert BoringSSL reports as `TLSV1_ALERT_MISSING_EXTENSION`.
    case alertMissingExtension = "TLSV1_ALERT_MISSING_EXTENSION"
    /// The alert BoringSSL reports as `TLSV1_ALERT_USER_CANCELLED`.
    case alertUserCancelled = "TLSV1_ALERT_USER_CANCELLED"
    /// The alert BoringSSL reports as `SSLV3_ALERT_CLOSE_NOTIFY`.
    case alertCloseNotify = "SSLV3_ALERT_CLOSE_NOTIFY"
    /// The alert BoringSSL reports as `TLSV1_ALERT_ACCESS_DENIED`.
    case alertAccessDenied = "TLSV1_ALERT_ACCESS_DENIED"
    /// The alert BoringSSL reports as `SSLV3_ALERT_BAD_CERTIFICATE`.
    case alertBadCertificate = "SSLV3_ALERT_BAD_CERTIFICATE"
    /// The alert BoringSSL reports as `SSLV3_ALERT_UNSUPPORTED_CERTIFICATE`.
    case alertUnsupportedCertificate = "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE"
    /// The alert BoringSSL reports as `SSLV3_ALERT_CERTIFICATE_REVOKED`.
    case alertCertificateRevoked = "SSLV3_ALERT_CERTIFICATE_REVOKED"
    /// The alert BoringSSL reports as `SSLV3_ALERT_CERTIFICATE_EXPIRED`.
    case alertCertificateExpired = "SSLV3_ALERT_CERTIFICATE_EXPIRED"
    /// The alert BoringSSL reports as `SSLV3_ALERT_CERTIFICATE_UNKNOWN`.
    case alertCertificateUnknown = "SSLV3_ALERT_CERTIFICATE_UNKNOWN"
    /// The alert BoringSSL reports as `TLSV1_ALERT_UNKNOWN_CA`.
    case alertUnknownCA = "TLSV1_ALERT_UNKNOWN_CA"
    /// The alert BoringSSL reports as `TLSV1_ALERT_CERTIFICATE_REQUIRED`.
    case alertCertificateRequired = "TLSV1_ALERT_CERTIFICATE_REQUIRED"
    /// The alert BoringSSL reports as `TLSV1_ALERT_NO_RENEGOTIATION`.
    case alertNoRenegotiation = "TLSV1_ALERT_NO_RENEGOTIATION"
    /// The alert BoringSSL reports as `TLSV1_ALERT_BAD_CERTIFICATE_STATUS_RESPONSE`.
    case alertBadCertificateStatusResponse = "TLSV1_ALERT_BAD_CERTIFICATE_STATUS_RESPONSE"
    /// The alert BoringSSL reports as `TLSV1_ALERT_UNKNOWN_PSK_IDENTITY`.
    case alertUnknownPSKIdentity = "TLSV1_ALERT_UNKNOWN_PSK_IDENTITY"
    /// The alert BoringSSL reports as `TLSV1_ALERT_ECH_REQUIRED`.
    case alertECHRequired = "TLSV1_ALERT_ECH_REQUIRED"
    // What BoringSSL found wrong in the server's messages.
    /// BoringSSL's reason `KEY_USAGE_BIT_INCORRECT`.
    case keyUsageBitIncorrect = "KEY_USAGE_BIT_INCORRECT"
    /// BoringSSL's reason `NO_SHARED_CIPHER`.
    case noSharedCipher = "NO_SHARED_CIPHER"
    /// BoringSSL's reason `UNSUPPORTED_PROTOCOL`.
    case unsupportedProtocol = "UNSUPPORTED_PROTOCOL"
    /// BoringSSL's reason `WRONG_VERSION_NUMBER`.
    case wrongVersionNumber = "WRONG_VERSION_NUMBER"
    /// BoringSSL's reason `CERTIFICATE_VERIFY_FAILED`.
    case certificateVerifyFailed = "CERTIFICATE_VERIFY_FAILED"
    /// BoringSSL's reason `WRONG_CIPHER_RETURNED`.
    case wrongCipherReturned = "WRONG_CIPHER_RETURNED"
    /// BoringSSL's reason `UNKNOWN_CIPHER_RETURNED`.
    case unknownCipherReturned = "UNKNOWN_CIPHER_RETURNED"
    /// BoringSSL's reason `WRONG_CURVE`.
    case wrongCurve = "WRONG_CURVE"
    /// BoringSSL's reason `UNSUPPORTED_ELLIPTIC_CURVE`.
    case unsupportedEllipticCurve = "UNSUPPORTED_ELLIPTIC_CURVE"
    /// BoringSSL's reason `NO_SHARED_GROUP`.
    case noSharedGroup = "NO_SHARED_GROUP"
    /// BoringSSL's reason `MISSING_KEY_SHARE`.
    case missingKeyShare = "MISSING_KEY_SHARE"
    /// BoringSSL's reason `BAD_ECC_CERT`.
    case badECCCertificate = "BAD_ECC_CERT"
    /// BoringSSL's reason `WRONG_CERTIFICATE_TYPE`.
    case wrongCertificateType = "WRONG_CERTIFICATE_TYPE"
    /// BoringSSL's reason `UNKNOWN_CERTIFICATE_TYPE`.
    case unknownCertificateType = "UNKNOWN_CERTIFICATE_TYPE"
    /// BoringSSL's reason `CANNOT_PARSE_LEAF_CERT`.
    case cannotParseLeafCertificate = "CANNOT_PARSE_LEAF_CERT"
    /// BoringSSL's reason `BAD_SIGNATURE`.
    case badSignature = "BAD_SIGNATURE"
    /// BoringSSL's reason `WRONG_SIGNATURE_TYPE`.
    case wrongSignatureType = "WRONG_SIGNATURE_TYPE"
    /// BoringSSL's reason `NO_COMMON_SIGNATURE_ALGORITHMS`.
    case noCommonSignatureAlgorithms = "NO_COMMON_SIGNATURE_ALGORITHMS"
    /// BoringSSL's reason `TLS13_DOWNGRADE`.
    case tls13Downgrade = "TLS13_DOWNGRADE"
    /// BoringSSL's reason `DOWNGRADE_DETECTED`.
    case downgradeDetected = "DOWNGRADE_DETECTED"
    /// BoringSSL's reason `UNSAFE_LEGACY_RENEGOTIATION_DISABLED`.
    case unsafeLegacyRenegotiationDisabled = "UNSAFE_LEGACY_RENEGOTIATION_DISABLED"
    /// BoringSSL's reason `RENEGOTIATION_MISMATCH`.
    case renegotiationMismatch = "RENEGOTIATION_MISMATCH"
    /// BoringSSL's reason `SERVER_CERT_CHANGED`.
    case serverCertificateChanged = "SERVER_CERT_CHANGED"
    /// BoringSSL's reason `INVALID_ALPN_PROTOCOL`.
    case invalidALPNProtocol = "INVALID_ALPN_PROTOCOL"
    /// BoringSSL's reason `DECODE_ERROR`.
    case decodeError = "DECODE_ERROR"
    /// BoringSSL's reason `UNEXPECTED_MESSAGE`.
    case unexpectedMessage = "UNEXPECTED_MESSAGE"
    /// BoringSSL's reason `UNEXPECTED_RECORD`.
    case unexpectedRecord = "UNEXPECTED_RECORD"
    /// BoringSSL's reason `UNEXPECTED_EXTENSION`.
    case unexpectedExtension = "UNEXPECTED_EXTENSION"
    /// BoringSSL's reason `DUPLICATE_EXTENSION`.
    case duplicateExtension = "DUPLICATE_EXTENSION"
    /// BoringSSL's reason `MISSING_EXTENSION`.
    case missingExtension = "MISSING_EXTENSION"
    /// BoringSSL's reason `ERROR_PARSING_EXTENSION`.
    case errorParsingExtension = "ERROR_PARSING_EXTENSION"
    /// BoringSSL's reason `PARSE_TLSEXT`.
    case parseTLSExtension = "PARSE_TLSEXT"
    /// BoringSSL's reason `SERVERHELLO_TLSEXT`.
    case serverHelloExtension = "SERVERHELLO_TLSEXT"
    /// BoringSSL's reason `EXCESSIVE_MESSAGE_SIZE`.
    case excessiveMessageSize = "EXCESSIVE_MESSAGE_SIZE"
    /// BoringSSL's reason `BAD_PACKET_LENGTH`.
    case badPacketLength = "BAD_PACKET_LENGTH"
    /// BoringSSL's reason `RECORD_TOO_LARGE`.
    case recordTooLarge = "RECORD_TOO_LARGE"
    /// BoringSSL's reason `BAD_LENGTH`.
    case badLength = "BAD_LENGTH"
    /// BoringSSL's reason `BAD_HANDSHAKE_RECORD`.
    case badHandshakeRecord = "BAD_HANDSHAKE_RECORD"
    /// BoringSSL's reason `BAD_CHANGE_CIPHER_SPEC`.
    case badChangeCipherSpec = "BAD_CHANGE_CIPHER_SPEC"
    /// BoringSSL's reason `BAD_ALERT`.
    case badAlert = "BAD_ALERT"
    /// BoringSSL's reason `UNKNOWN_ALERT_TYPE`.
    case unknownAlertType = "UNKNOWN_ALERT_TYPE"
    /// BoringSSL's reason `WRONG_MESSAGE_TYPE`.
    case wrongMessageType = "WRONG_MESSAGE_TYPE"
    /// BoringSSL's reason `EXTRA_DATA_IN_MESSAGE`.
    case extraDataInMessage = "EXTRA_DATA_IN_MESSAGE"
    /// BoringSSL's reason `EXCESS_HANDSHAKE_DATA`.
    case excessHandshakeData = "EXCESS_HANDSHAKE_DATA"
    /// BoringSSL's reason `DECRYPTION_FAILED_OR_BAD_RECORD_MAC`.
    case decryptionFailedOrBadRecordMAC = "DECRYPTION_FAILED_OR_BAD_RECORD_MAC"
    /// BoringSSL's reason `BLOCK_CIPHER_PAD_IS_WRONG`.
    case blockCipherPadIsWrong = "BLOCK_CIPHER_PAD_IS_WRONG"
    /// BoringSSL's reason `SERVER_ECHOED_INVALID_SESSION_ID`.
    case serverEchoedInvalidSessionID = "SERVER_ECHOED_INVALID_SESSION_ID"
    /// BoringSSL's reason `EMPTY_HELLO_RETRY_REQUEST`.
    case emptyHelloRetryRequest = "EMPTY_HELLO_RETRY_REQUEST"
    /// BoringSSL's reason `SECOND_SERVERHELLO_VERSION_MISMATCH`.
    case secondServerHelloVersionMismatch = "SECOND_SERVERHELLO_VERSION_MISMATCH"
    /// BoringSSL's reason `UNEXPECTED_COMPATIBILITY_MODE`.
    case unexpectedCompatibilityMode = "UNEXPECTED_COMPATIBILITY_MODE"
    /// BoringSSL's reason `OLD_SESSION_CIPHER_NOT_RETURNED`.
    case oldSessionCipherNotReturned = "OLD_SESSION_CIPHER_NOT_RETURNED"
    /// BoringSSL's reason `TOO_MANY_WARNING_ALERTS`.
    case tooManyWarningAlerts = "TOO_MANY_WARNING_ALERTS"
    /// BoringSSL's reason `TOO_MANY_EMPTY_FRAGMENTS`.
    case tooManyEmptyFragments = "TOO_MANY_EMPTY_FRAGMENTS"
    // What is wrong on this side.
    /// BoringSSL's reason `CERTIFICATE_AND_PRIVATE_KEY_MISMATCH`.
    case certificateAndPrivateKeyMismatch = "CERTIFICATE_AND_PRIVATE_KEY_MISMATCH"
    /// BoringSSL's reason `PRIVATE_KEY_OPERATION_FAILED`.
    case privateKeyOperationFailed = "PRIVATE_KEY_OPERATION_FAILED"
    /// BoringSSL's reason `NO_CIPHER_MATCH`.
    case noCipherMatch = "NO_CIPHER_MATCH"
    /// BoringSSL's reason `NO_CIPHERS_AVAILABLE`.
    case noCiphersAvailable = "NO_CIPHERS_AVAILABLE"
    /// BoringSSL's reason `NO_SUPPORTED_VERSIONS_ENABLED`.
    case noSupportedVersionsEnabled = "NO_SUPPORTED_VERSIONS_ENABLED"

    /// Who must act for the handshake to succeed.
    public enum Party: String, Sendable, Codable {
        /// The server's operator: its configuration, certificate or TLS stack.
        case server
        /// Whoever configures this client: its ATS policy, identity or settings.
        case client
        /// Something between the two: a proxy, a middlebox or an attacker.
        case network
    }

    /// The reason in BoringSSL's error text (`error:1000012e:SSL routines:OPENSSL_internal:KEY_USAGE_BIT_INCORRECT at …`),
    /// or nil when it names none this client knows.
    package init?(boringSSLText text: String) {
        let marker = "OPENSSL_internal:"
        var rest = Substring(text)
        while let range = rest.range(of: marker) {
            let code = rest[range.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
            if let reason = TLSFailureReason(rawValue: String(code)) {
                self = reason
                return
            }
            rest = rest[range.upperBound...]
        }
        return nil
    }

    /// The reason for a fatal alert the server sent, by its description (RFC 8446 §6.2), or nil.
    package init?(alert description: UInt8) {
        let byAlert: [UInt8: TLSFailureReason] = [
            0: .alertCloseNotify, 10: .alertUnexpectedMessage, 20: .alertBadRecordMAC, 22: .alertRecordOverflow,
            40: .alertHandshakeFailure, 42: .alertBadCertificate, 43: .alertUnsupportedCertificate, 44: .alertCertificateRevoked,
            45: .alertCertificateExpired, 46: .alertCertificateUnknown, 47: .alertIllegalParameter, 48: .alertUnknownCA,
            49: .alertAccessDenied, 50: .alertDecodeError, 51: .alertDecryptError, 70: .alertProtocolVersion,
            71: .alertInsufficientSecurity, 80: .alertInternalError, 86: .alertInappropriateFallback, 90: .alertUserCancelled,
            100: .alertNoRenegotiation, 109: .alertMissingExtension, 110: .alertUnsupportedExtension,
            112: .alertUnrecognizedName, 113: .alertBadCertificateStatusResponse, 115: .alertUnknownPSKIdentity,
            116: .alertCertificateRequired, 120: .alertNoApplicationProtocol, 121: .alertECHRequired,
        ]
        guard let reason = byAlert[description] else { return nil }
        self = reason
    }

    /// Who must act.
    public var fixedBy: Party {
        switch self {
        case .alertAccessDenied, .alertBadCertificate, .alertUnsupportedCertificate, .alertCertificateRevoked,
             .alertCertificateExpired, .alertCertificateUnknown, .alertUnknownCA, .alertCertificateRequired,
             .certificateAndPrivateKeyMismatch, .privateKeyOperationFailed, .noCipherMatch, .noCiphersAvailable,
             .noSupportedVersionsEnabled, .alertUnknownPSKIdentity:
            return .client
        case .tls13Downgrade, .downgradeDetected, .alertInappropriateFallback, .wrongVersionNumber,
             .decryptionFailedOrBadRecordMAC, .alertBadRecordMAC, .badSignature:
            return .network
        default:
            return .server
        }
    }

    /// What is wrong, as a sentence without BoringSSL's words.
    public var explanation: String {
        switch self {
        case .alertHandshakeFailure: return "the server refused the handshake (handshake_failure alert): it accepts none of the TLS versions, cipher suites, key-exchange groups or signature algorithms offered, or it wanted a client certificate"
        case .alertProtocolVersion: return "the server supports none of the TLS versions offered (protocol_version alert)"
        case .alertInsufficientSecurity: return "the server wants stronger cipher suites than those offered (insufficient_security alert)"
        case .alertInternalError: return "the server failed internally during the handshake (internal_error alert); its operator must look at its logs"
        case .alertUnrecognizedName: return "the server has no certificate for the host name sent in SNI (unrecognized_name alert); check the URL's host, or the server's virtual hosts"
        case .alertNoApplicationProtocol: return "the server supports none of the application protocols offered by ALPN (no_application_protocol alert)"
        case .alertInappropriateFallback: return "the server saw a downgraded retry and refused it (inappropriate_fallback alert); something on the path interfered with the first attempt"
        case .alertDecodeError, .alertIllegalParameter, .alertUnexpectedMessage, .alertUnsupportedExtension, .alertMissingExtension: return "the server could not process this client's handshake messages (\(alertName) alert); its TLS implementation is incompatible or broken"
        case .alertDecryptError: return "the server could not verify the handshake (decrypt_error alert); its TLS implementation or key is broken, or a client certificate's signature was refused"
        case .alertBadRecordMAC: return "the server received a corrupted record (bad_record_mac alert); something on the path altered the traffic"
        case .alertRecordOverflow: return "the server received a record longer than TLS allows (record_overflow alert)"
        case .alertUserCancelled, .alertCloseNotify: return "the server closed the connection during the handshake (\(alertName) alert)"
        case .alertAccessDenied: return "the server refused this client (access_denied alert): the client certificate is valid but not allowed there"
        case .alertBadCertificate, .alertUnsupportedCertificate, .alertCertificateUnknown: return "the server refused the client certificate (\(alertName) alert)"
        case .alertCertificateRevoked: return "the server refused the client certificate as revoked (certificate_revoked alert)"
        case .alertCertificateExpired: return "the server refused the client certificate as expired (certificate_expired alert)"
        case .alertUnknownCA: return "the server does not trust the client certificate's issuer (unknown_ca alert)"
        case .alertCertificateRequired: return "the server requires a client certificate and none was sent (certificate_required alert)"
        case .alertNoRenegotiation: return "the server refused to renegotiate (no_renegotiation alert)"
        case .alertBadCertificateStatusResponse: return "the server's OCSP staple was refused (bad_certificate_status_response alert)"
        case .alertUnknownPSKIdentity: return "the server did not know the pre-shared key offered (unknown_psk_identity alert)"
        case .alertECHRequired: return "the server requires Encrypted Client Hello (ech_required alert), which this client does not offer"
        case .keyUsageBitIncorrect: return "the server's certificate does not permit the key exchange the server chose: its keyUsage lacks keyEncipherment for RSA key exchange, or digitalSignature for ECDHE; the server's operator must issue a certificate with the right key usage or prefer ECDHE suites"
        case .noSharedCipher: return "the two sides share no cipher suite; the server's suites or the client's ATS requirements must change"
        case .unsupportedProtocol: return "the server chose a TLS version this client does not allow; the server must support a newer version"
        case .wrongVersionNumber: return "the answer is not TLS of a version this client speaks: the port may serve plain HTTP or another protocol, or something on the path answered instead of the server"
        case .certificateVerifyFailed: return "the server's certificate was refused by this client's evaluation"
        case .wrongCipherReturned, .unknownCipherReturned: return "the server chose a cipher suite that was not offered, which TLS forbids; its TLS implementation is broken"
        case .wrongCurve, .unsupportedEllipticCurve, .missingKeyShare: return "the server chose a key-exchange group that was not offered, which TLS forbids; its TLS implementation is broken"
        case .noSharedGroup: return "the two sides share no key-exchange group (elliptic curve); the server must support X25519, P-256 or P-384"
        case .badECCCertificate, .wrongCertificateType, .unknownCertificateType: return "the server's certificate key does not fit the cipher suite it chose (an RSA suite with an ECDSA key, or the reverse); the server's operator must fix its suite or certificate configuration"
        case .cannotParseLeafCertificate: return "the server's certificate cannot be parsed"
        case .badSignature: return "the server's handshake signature does not verify: its certificate and private key do not match, or something on the path altered the handshake"
        case .wrongSignatureType: return "the server signed the handshake with an algorithm that was not offered, which TLS forbids"
        case .noCommonSignatureAlgorithms: return "the two sides share no signature algorithm for the server's key; the server's certificate key type must change"
        case .tls13Downgrade, .downgradeDetected: return "the server's answer carries TLS 1.3's downgrade marker with an older version: something on the path forced the connection down, or the server's TLS stack is broken; the connection is refused"
        case .unsafeLegacyRenegotiationDisabled, .renegotiationMismatch: return "the server does not support secure renegotiation (RFC 5746), which is required; its TLS stack must be updated"
        case .serverCertificateChanged: return "the server presented a different certificate during renegotiation, which is refused"
        case .invalidALPNProtocol: return "the server chose an application protocol (ALPN) that was not offered, which TLS forbids"
        case .decodeError, .unexpectedMessage, .unexpectedRecord, .unexpectedExtension, .duplicateExtension, .missingExtension,
             .errorParsingExtension, .parseTLSExtension, .serverHelloExtension, .excessiveMessageSize, .badPacketLength,
             .recordTooLarge, .badLength, .badHandshakeRecord, .badChangeCipherSpec, .badAlert, .unknownAlertType,
             .wrongMessageType, .extraDataInMessage, .excessHandshakeData, .serverEchoedInvalidSessionID,
             .emptyHelloRetryRequest, .secondServerHelloVersionMismatch, .unexpectedCompatibilityMode,
             .oldSessionCipherNotReturned, .tooManyWarningAlerts, .tooManyEmptyFragments:
            return "the server's TLS messages break the protocol, so the handshake was abandoned; the server's TLS stack (or a middlebox on the path) must be fixed"
        case .decryptionFailedOrBadRecordMAC, .blockCipherPadIsWrong: return "a record from the server did not decrypt: something on the path altered the traffic, or the server's TLS stack is broken"
        case .certificateAndPrivateKeyMismatch: return "the client identity's certificate and private key do not belong together; give the matching key"
        case .privateKeyOperationFailed: return "the client identity's private key could not sign the handshake"
        case .noCipherMatch, .noCiphersAvailable, .noSupportedVersionsEnabled: return "this client has no cipher suite or TLS version left to offer under its requirements; loosen the ATS exception for this domain"
        }
    }

    /// The explanation and who must fix it, for messages.
    public var sentence: String {
        let who: String
        switch fixedBy {
        case .server: who = "the server's operator"
        case .client: who = "whoever configures this client"
        case .network: who = "whoever runs the network path (proxies, middleboxes), or the server's operator"
        }
        return "\(explanation) (to be fixed by \(who))"
    }

    /// The alert's name, for alert reasons (`handshake_failure`).
    var alertName: String {
        guard rawValue.contains("_ALERT_") else { return rawValue.lowercased() }
        return rawValue.components(separatedBy: "_ALERT_").last?.lowercased() ?? rawValue.lowercased()
    }
}
