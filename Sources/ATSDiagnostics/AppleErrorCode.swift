import TransportClient
import TransportTrust

/// The error a URLSession task would most likely have ended with: an NSURLErrorDomain code and, for TLS
/// failures, the kCFStreamErrorDomainSSL (Secure Transport) code found in its `_kCFStreamErrorCodeKey`.
///
/// These are the closest equivalents of our reasons, chosen so that people who search for the Apple codes find
/// the right advice; they are not what Apple's stack is guaranteed to report.
public struct AppleErrorCode: Sendable, Hashable, Codable {
    public var urlErrorCode: Int
    public var urlErrorName: String
    /// `_kCFStreamErrorCodeKey` in domain kCFStreamErrorDomainSSL (3), when the failure is in TLS.
    public var sslErrorCode: Int?
    public var sslErrorName: String?

    public init(_ url: URLCode, _ ssl: SSLCode? = nil) {
        urlErrorCode = url.rawValue
        urlErrorName = url.name
        sslErrorCode = ssl?.rawValue
        sslErrorName = ssl?.name
    }

    /// The localized description URLSession gives the code.
    public var urlErrorText: String { URLCode(rawValue: urlErrorCode)?.text ?? "An unknown error occurred." }

    /// `Error Domain=NSURLErrorDomain Code=-1202 "…" UserInfo={_kCFStreamErrorDomainKey=3, _kCFStreamErrorCodeKey=-9813}`,
    /// the shape nscurl prints.
    public var nsErrorDescription: String {
        var s = "Error Domain=NSURLErrorDomain Code=\(urlErrorCode) \"\(urlErrorText)\""
        if let sslErrorCode { s += " UserInfo={_kCFStreamErrorDomainKey=3, _kCFStreamErrorCodeKey=\(sslErrorCode)}" }
        return s
    }

    /// NSURLErrorDomain codes used here.
    public enum URLCode: Int, Sendable {
        case unknown = -1
        case cancelled = -999
        case badURL = -1000
        case timedOut = -1001
        case cannotConnectToHost = -1004
        case networkConnectionLost = -1005
        case httpTooManyRedirects = -1007
        case badServerResponse = -1011
        case userCancelledAuthentication = -1012
        case appTransportSecurityRequiresSecureConnection = -1022
        case dataLengthExceedsMaximum = -1103
        case secureConnectionFailed = -1200
        case serverCertificateHasBadDate = -1201
        case serverCertificateUntrusted = -1202
        case serverCertificateNotYetValid = -1204
        case clientCertificateRejected = -1205
        case clientCertificateRequired = -1206

        var name: String {
            switch self {
            case .unknown: return "NSURLErrorUnknown"
            case .cancelled: return "NSURLErrorCancelled"
            case .badURL: return "NSURLErrorBadURL"
            case .timedOut: return "NSURLErrorTimedOut"
            case .cannotConnectToHost: return "NSURLErrorCannotConnectToHost"
            case .networkConnectionLost: return "NSURLErrorNetworkConnectionLost"
            case .httpTooManyRedirects: return "NSURLErrorHTTPTooManyRedirects"
            case .badServerResponse: return "NSURLErrorBadServerResponse"
            case .userCancelledAuthentication: return "NSURLErrorUserCancelledAuthentication"
            case .appTransportSecurityRequiresSecureConnection: return "NSURLErrorAppTransportSecurityRequiresSecureConnection"
            case .dataLengthExceedsMaximum: return "NSURLErrorDataLengthExceedsMaximum"
            case .secureConnectionFailed: return "NSURLErrorSecureConnectionFailed"
            case .serverCertificateHasBadDate: return "NSURLErrorServerCertificateHasBadDate"
            case .serverCertificateUntrusted: return "NSURLErrorServerCertificateUntrusted"
            case .serverCertificateNotYetValid: return "NSURLErrorServerCertificateNotYetValid"
            case .clientCertificateRejected: return "NSURLErrorClientCertificateRejected"
            case .clientCertificateRequired: return "NSURLErrorClientCertificateRequired"
            }
        }

        var text: String {
            switch self {
            case .unknown: return "An unknown error occurred."
            case .cancelled: return "cancelled"
            case .badURL: return "unsupported URL"
            case .timedOut: return "The request timed out."
            case .cannotConnectToHost: return "Could not connect to the server."
            case .networkConnectionLost: return "The network connection was lost."
            case .httpTooManyRedirects: return "too many HTTP redirects"
            case .badServerResponse: return "The server returned a bad response."
            case .userCancelledAuthentication: return "The user cancelled authentication."
            case .appTransportSecurityRequiresSecureConnection:
                return "The resource could not be loaded because the App Transport Security policy requires the use of a secure connection."
            case .dataLengthExceedsMaximum: return "The resource exceeds the maximum size."
            case .secureConnectionFailed: return "An SSL error has occurred and a secure connection to the server cannot be made."
            case .serverCertificateHasBadDate: return "The certificate for this server has expired."
            case .serverCertificateUntrusted: return "The certificate for this server is invalid."
            case .serverCertificateNotYetValid: return "The certificate for this server is not yet valid."
            case .clientCertificateRejected: return "The server did not accept the certificate."
            case .clientCertificateRequired: return "The server requires a client certificate."
            }
        }
    }

    /// Secure Transport codes (SecureTransport.h) used here.
    public enum SSLCode: Int, Sendable {
        case protocolError = -9800
        case fatalAlert = -9802
        case closedAbort = -9806
        case chainInvalid = -9807
        case badCertificate = -9808
        case noRootCert = -9813
        case certExpired = -9814
        case certNotYetValid = -9815
        case peerHandshakeFail = -9824
        case peerCertUnknown = -9829
        case peerProtocolVersion = -9836
        case hostNameMismatch = -9843

        var name: String {
            switch self {
            case .protocolError: return "errSSLProtocol"
            case .fatalAlert: return "errSSLFatalAlert"
            case .closedAbort: return "errSSLClosedAbort"
            case .chainInvalid: return "errSSLXCertChainInvalid"
            case .badCertificate: return "errSSLBadCert"
            case .noRootCert: return "errSSLNoRootCert"
            case .certExpired: return "errSSLCertExpired"
            case .certNotYetValid: return "errSSLCertNotYetValid"
            case .peerHandshakeFail: return "errSSLPeerHandshakeFail"
            case .peerCertUnknown: return "errSSLPeerCertUnknown"
            case .peerProtocolVersion: return "errSSLPeerProtocolVersion"
            case .hostNameMismatch: return "errSSLHostNameMismatch"
            }
        }
    }

    /// The closest Apple codes for a client failure.
    public init(_ error: TransportError) {
        switch error.kind {
        case .invalidRequest: self.init(.badURL)
        case .insecureHTTPRefused, .redirectRefused: self.init(.appTransportSecurityRequiresSecureConnection)
        case .hostNotAllowed, .pinMismatch: self.init(.cancelled)
        case .serverTrustRefused: self = Self.trust(error.verdict?.failures.map(\.code) ?? [])
        case .atsRefused:
            let checks = Set(error.atsEvaluation?.blockingReasons.map(\.kind) ?? [])
            if checks.contains(.certificate) {
                self.init(.secureConnectionFailed, .badCertificate)
            } else if checks.contains(.tlsVersion) || error.message.contains("TLS version") || error.message.contains("NSExceptionMinimumTLSVersion") {
                self.init(.secureConnectionFailed, .peerProtocolVersion)
            } else {
                self.init(.secureConnectionFailed, .peerHandshakeFail)
            }
        case .clientCertificateRejected: self.init(.clientCertificateRequired, .peerCertUnknown)
        case .invalidClientIdentity: self.init(.clientCertificateRejected)
        case .tlsFailure:
            // The alert the server sent, where Apple has a code of its own for it.
            switch error.tlsReason {
            case .alertHandshakeFailure?: self.init(.secureConnectionFailed, .peerHandshakeFail)
            case .alertProtocolVersion?: self.init(.secureConnectionFailed, .peerProtocolVersion)
            default: self.init(.secureConnectionFailed, .fatalAlert)
            }
        case .connectionFailed, .proxyRefused: self.init(.cannotConnectToHost)
        case .proxyAuthenticationFailed: self.init(.userCancelledAuthentication)
        case .connectionClosed: self = error.phase == .handshake ? Self(.secureConnectionFailed, .closedAbort) : Self(.networkConnectionLost)
        case .malformedResponse: self = error.phase == .handshake ? Self(.secureConnectionFailed, .protocolError) : Self(.badServerResponse)
        case .responseTooLarge: self.init(.dataLengthExceedsMaximum)
        case .timedOut: self.init(.timedOut)
        case .tooManyRedirects: self.init(.httpTooManyRedirects)
        case .authenticationCancelled, .tooManyAuthenticationAttempts: self.init(.userCancelledAuthentication)
        case .shutDown: self.init(.cancelled)
        case .internalError: self.init(.unknown)
        }
    }

    /// SecTrust failures as URLSession reports them: bad dates are -1201/-1204, everything else -1202.
    ///
    /// A chain that reaches no trusted root, self-signed or from a private CA, is -1202 with -9813 (errSSLNoRootCert)
    /// in Apple's logs, not -9812 (errSSLUnknownRootCert): Alamofire #819, 3lvis/Networking #202 and
    /// maitrungduc1410/WebRTC-Demo #47 (self-signed, iOS 9 to 18), TrustKit #17 (private CA).
    static func trust(_ codes: [TrustFailureCode]) -> AppleErrorCode {
        if codes.contains(.expired) { return AppleErrorCode(.serverCertificateHasBadDate, .certExpired) }
        if codes.contains(.notYetValid) { return AppleErrorCode(.serverCertificateNotYetValid, .certNotYetValid) }
        if codes.contains(.hostnameMismatch) { return AppleErrorCode(.serverCertificateUntrusted, .hostNameMismatch) }
        if codes.contains(.untrustedRoot) || codes.contains(.selfSignedLeaf) || codes.contains(.unknownIssuer) {
            return AppleErrorCode(.serverCertificateUntrusted, .noRootCert)
        }
        return AppleErrorCode(.serverCertificateUntrusted, .chainInvalid)
    }
}
