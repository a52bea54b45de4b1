import TransportClient
import TransportTrust

/// The error a URLSession task would most likely have ended with: an NSURLErrorDomain code and, for TLS
/// failures, the kCFStreamErrorDomainSSL (Secure Transport) code found in its `_kCFStreamErrorCodeKey`.
///
/// These are the closest equivalents of our reasons, chosen so that people who search for the Apple codes find
/// the right advice; they are not what Apple's stack is guaranteed to report.
public struct AppleErrorCode: Sendable, Hashable, Codable {
    /// The NSURLErrorDomain code, e.g. -1202.
    public var urlErrorCode: Int
    /// Its constant's name, e.g. `NSURLErrorServerCertificateUntrusted`.
    public var urlErrorName: String
    /// `_kCFStreamErrorCodeKey` in domain kCFStreamErrorDomainSSL (3), when the failure is in TLS.
    public var sslErrorCode: Int?
    /// Its constant's name, e.g. `errSSLNoRootCert`.
    public var sslErrorName: String?

    /// The codes for a URL error and, for a TLS failure, its Secure Transport code.
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
        /// `NSURLErrorUnknown` (-1).
        case unknown = -1
        /// `NSURLErrorCancelled` (-999).
        case cancelled = -999
        /// `NSURLErrorBadURL` (-1000).
        case badURL = -1000
        /// `NSURLErrorTimedOut` (-1001).
        case timedOut = -1001
        /// `NSURLErrorCannotConnectToHost` (-1004).
        case cannotConnectToHost = -1004
        /// `NSURLErrorNetworkConnectionLost` (-1005).
        case networkConnectionLost = -1005
        /// `NSURLErrorHTTPTooManyRedirects` (-1007).
        case httpTooManyRedirects = -1007
        /// `NSURLErrorBadServerResponse` (-1011).
        case badServerResponse = -1011
        /// `NSURLErrorUserCancelledAuthentication` (-1012).
        case userCancelledAuthentication = -1012
        /// `NSURLErrorAppTransportSecurityRequiresSecureConnection` (-1022).
        case appTransportSecurityRequiresSecureConnection = -1022
        /// `NSURLErrorDataLengthExceedsMaximum` (-1103).
        case dataLengthExceedsMaximum = -1103
        /// `NSURLErrorSecureConnectionFailed` (-1200).
        case secureConnectionFailed = -1200
        /// `NSURLErrorServerCertificateHasBadDate` (-1201).
        case serverCertificateHasBadDate = -1201
        /// `NSURLErrorServerCertificateUntrusted` (-1202).
        case serverCertificateUntrusted = -1202
        /// `NSURLErrorServerCertificateNotYetValid` (-1204).
        case serverCertificateNotYetValid = -1204
        /// `NSURLErrorClientCertificateRejected` (-1205).
        case clientCertificateRejected = -1205
        /// `NSURLErrorClientCertificateRequired` (-1206).
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
        /// `errSSLProtocol` (-9800).
        case protocolError = -9800
        /// `errSSLFatalAlert` (-9802).
        case fatalAlert = -9802
        /// `errSSLClosedAbort` (-9806).
        case closedAbort = -9806
        /// `errSSLXCertChainInvalid` (-9807).
        case chainInvalid = -9807
        /// `errSSLBadCert` (-9808).
        case badCertificate = -9808
        /// `errSSLNoRootCert` (-9813).
        case noRootCert = -9813
        /// `errSSLCertExpired` (-9814).
        case certExpired = -9814
        /// `errSSLCertNotYetValid` (-9815).
        case certNotYetValid = -9815
        /// `errSSLPeerHandshakeFail` (-9824).
        case peerHandshakeFail = -9824
        /// `errSSLPeerCertUnknown` (-9829).
        case peerCertUnknown = -9829
        /// `errSSLPeerProtocolVersion` (-9836).
        case peerProtocolVersion = -9836
        /// `errSSLHostNameMismatch` (-9843).
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
        case .http2NotNegotiated: self.init(.secureConnectionFailed, .protocolError)
        case .responseTooLarge: self.init(.dataLengthExceedsMaximum)
        case .timedOut: self.init(.timedOut)
        case .tooManyRedirects: self.init(.httpTooManyRedirects)
        case .authenticationCancelled, .tooManyAuthenticationAttempts: self.init(.userCancelledAuthentication)
        case .shutDown, .cancelled: self.init(.cancelled)
        case .internalError: self.init(.unknown)
        }
    }

    /// SecTrust failures as URLSession reports them: bad dates are -1201/-1204, everything else -1202.
    ///
    /// A chain that reaches no trusted root, self-signed or from a private CA, is -1202 with -9813 (errSSLNoRootCert)
    /// in Apple's logs, not -9812 (errSSLUnknownRootCert): Alamofire #819, 3lvis/Networking #202 and
    /// maitrungduc1410/WebRTC-Demo #47 (self-signed, iOS 9 to 18), TrustKit #17 (private CA).
    static func trust(_ codes: [TrustFailureCode]) -> AppleErrorCode {
        // The most telling failure decides, as SecTrust reports one result: a bad date first, then the name, then
        // a missing root; every other code is -1202 with -9807.
        switch codes.map(Self.trustClass).min() ?? .chainInvalid {
        case .expired: return AppleErrorCode(.serverCertificateHasBadDate, .certExpired)
        case .notYetValid: return AppleErrorCode(.serverCertificateNotYetValid, .certNotYetValid)
        case .hostNameMismatch: return AppleErrorCode(.serverCertificateUntrusted, .hostNameMismatch)
        case .noRoot: return AppleErrorCode(.serverCertificateUntrusted, .noRootCert)
        case .chainInvalid: return AppleErrorCode(.serverCertificateUntrusted, .chainInvalid)
        }
    }

    /// The result SecTrust gives a failure, in the order it prefers them.
    enum TrustClass: Comparable {
        case expired, notYetValid, hostNameMismatch, noRoot, chainInvalid
    }

    /// Exhaustive, with no default: a new failure code must be placed here.
    static func trustClass(_ code: TrustFailureCode) -> TrustClass {
        switch code {
        case .expired: return .expired
        case .notYetValid: return .notYetValid
        case .hostnameMismatch: return .hostNameMismatch
        case .untrustedRoot, .selfSignedLeaf, .unknownIssuer: return .noRoot
        case .weakKey, .weakSignature, .basicConstraints, .pathLength, .nameConstraints, .keyUsage, .extendedKeyUsage,
             .unhandledCriticalExtension, .unsupportedAlgorithm, .malformedCertificate, .revoked, .revocationUnknown,
             .certificateTransparency, .chainTooLong, .pathBuildingLimit, .pinMismatch, .hostNotAllowed, .policy,
             .internalError, .validityPeriodTooLong, .certificatePolicy, .distrusted:
            return .chainInvalid
        }
    }
}
