import Crypto
import NIOConcurrencyHelpers
@_spi(FixedExpiryValidationTime) import X509

/// The `OCSPRequester`s swift-certificates' OCSP policy asks: how a check hands it a fixed response, a response
/// source, or only the first query.
extension RevocationCheck {
    /// Set once by a requester, read by the check after swift-certificates' policy has run.
    final class Flag: Sendable {
        private let box = NIOLockedValueBox(false)
        var value: Bool {
            get { box.withLockedValue { $0 } }
            set { box.withLockedValue { $0 = newValue } }
        }
    }

    /// Answers the query about the subject; a query about the issuer (the policy walks the whole chain) is not answered,
    /// which the policy takes as no opinion.
    struct OnlyFirstQuery<Wrapped: OCSPRequester>: OCSPRequester {
        let wrapped: Wrapped
        let asked = Flag()
        init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
            if asked.value { return .nonTerminalError(RevocationUnavailable()) }
            asked.value = true
            return await wrapped.query(request: request, uri: uri)
        }
    }

    struct FixedResponse: OCSPRequester {
        let bytes: [UInt8]
        func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult { .response(bytes) }
    }

    struct SourceRequester: OCSPRequester {
        let source: any OCSPResponseSource
        let answered = Flag()

        func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
            guard let fetched = await source.response(for: request, responderURI: uri) else {
                // Hard-fail mode turns "no answer" into a failure that says so.
                return .terminalError(RevocationUnavailable())
            }
            answered.value = true
            return .response(fetched)
        }
    }

    struct RevocationUnavailable: Error {}
}

/// The throwaway key, extension and filler certificate the OCSP stand-ins are made with, made once.
enum OCSPStandIn {
    static let key: Certificate.PrivateKey? = Certificate.PrivateKey(P256.Signing.PrivateKey())
    static let aia: Certificate.Extension? = try? Certificate.Extension(
        AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier("urn:x-ocsp-stand-in"))]), critical: false)
    /// A certificate that names no responder, to end a chain whose issuer names one.
    static let filler: Certificate? = {
        guard let key else { return nil }
        let name = try? DistinguishedName { CommonName("OCSP stand-in") }
        guard let name else { return nil }
        return try? Certificate(version: .v3, serialNumber: .init(), publicKey: key.publicKey, notValidBefore: .distantPast,
                                notValidAfter: .distantFuture, issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                                extensions: Certificate.Extensions(), issuerPrivateKey: key)
    }()
}
