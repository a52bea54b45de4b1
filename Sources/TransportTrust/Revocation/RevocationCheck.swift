import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Fetches OCSP responses. The network implementation lives with the HTTPS client; the trust library never
/// does I/O itself.
public protocol OCSPResponseSource: Sendable {
    /// Returns the DER response for `request` from `responderURI`, or nil when none could be had.
    func response(for request: [UInt8], responderURI: String) async -> [UInt8]?
}

/// How revocation is checked.
public struct RevocationOptions: Sendable {
    public enum Mode: String, Sendable, Codable {
        /// No revocation checking.
        case off
        /// A response that says "revoked" fails the chain; anything else (no response, a bad one) passes.
        case soft
        /// Only a verified "good" response passes a certificate that names an OCSP responder.
        case hard
    }

    public var mode: Mode
    /// OCSP responses handed in: stapled by the server, or obtained by the caller.
    public var responses: [[UInt8]]
    public var source: (any OCSPResponseSource)?

    public init(mode: Mode = .off, responses: [[UInt8]] = [], source: (any OCSPResponseSource)? = nil) {
        self.mode = mode
        self.responses = responses
        self.source = source
    }

    public static let off = RevocationOptions()
}

/// Runs swift-certificates' OCSP verification over a built chain and maps its outcome to failure codes.
struct RevocationCheck: Sendable {
    var options: RevocationOptions

    func check(_ chain: UnverifiedCertificateChain, validationTime: Date, into failures: inout [TrustFailure]) async {
        guard options.mode != .off, chain.count >= 2 else { return }
        let requester = Requester(options: options, leaf: chain[0])
        var policy = OCSPVerifierPolicy(
            failureMode: options.mode == .hard ? .hard : .soft,
            requester: requester,
            fixedExpiryValidationTime: validationTime
        )
        let result = await policy.chainMeetsPolicyRequirements(chain: chain)
        if case .failsToMeetPolicy(let reason) = result {
            let text = reason.description
            if text.lowercased().contains("revoked") {
                failures.append(TrustFailure(.revoked, certificate: 0,
                    "the OCSP responder says a certificate in the chain is revoked; the server must install a new certificate (\(text.prefix(200)))"))
            } else {
                failures.append(TrustFailure(.revocationUnknown, certificate: 0,
                    "the revocation status could not be established under hard-fail: \(text.prefix(200))"))
            }
            return
        }
        if options.mode == .hard, Self.namesResponder(chain[0]), !requester.answeredLeaf.value {
            failures.append(TrustFailure(.revocationUnknown, certificate: 0,
                "\(chain[0].label) names an OCSP responder but no response was available; hard-fail revocation needs a stapled or fetched response"))
        }
    }

    static func namesResponder(_ cert: Certificate) -> Bool {
        ((try? cert.extensions.authorityInformationAccess)??.contains { $0.method == .ocspServer }) ?? false
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var _value = false
        var value: Bool {
            get { lock.withLock { _value } }
            set { lock.withLock { _value = newValue } }
        }
    }

    struct Requester: OCSPRequester {
        let options: RevocationOptions
        let leafRequestPrefix: [UInt8]
        let answeredLeaf = Flag()

        init(options: RevocationOptions, leaf: Certificate) {
            self.options = options
            // The leaf's serial number identifies its request among the chain's.
            self.leafRequestPrefix = Array(leaf.serialNumber.bytes)
        }

        func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
            let isLeaf = request.firstRange(of: leafRequestPrefix) != nil
            if isLeaf, let stapled = options.responses.first {
                answeredLeaf.value = true
                return .response(stapled)
            }
            if let source = options.source, let fetched = await source.response(for: request, responderURI: uri) {
                if isLeaf { answeredLeaf.value = true }
                return .response(fetched)
            }
            return .nonTerminalError(RevocationUnavailable())
        }
    }

    struct RevocationUnavailable: Error {}
}
