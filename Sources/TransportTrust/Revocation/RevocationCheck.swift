import Crypto
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
    /// How revocation failures count.
    public enum Mode: String, Sendable, Codable {
        /// No revocation checking.
        case off
        /// A verified response that says "revoked" fails the chain; anything else (no response, a bad one) passes.
        case soft
        /// As soft; in addition, every certificate that names an OCSP responder needs a verified "good" response.
        case hard
    }

    public var mode: Mode
    /// OCSP responses handed in: stapled by the server, or obtained by the caller. Each is checked against every
    /// certificate of the chain (but the anchor), whether or not that certificate names a responder.
    public var responses: [[UInt8]]
    public var source: (any OCSPResponseSource)?

    public init(mode: Mode = .off, responses: [[UInt8]] = [], source: (any OCSPResponseSource)? = nil) {
        self.mode = mode
        self.responses = responses
        self.source = source
    }

    public static let off = RevocationOptions()
}

/// Checks each certificate of a built chain, but the anchor, against the responses handed in and, for a
/// certificate that names a responder, the response source.
///
/// swift-certificates' `OCSPVerifierPolicy` verifies every response here: the CertID, the signature (by the issuer or
/// a responder it authorised), the times and the status. It only asks about certificates that name a responder and
/// it asks once per certificate, so each (certificate, response) pair is put to it on its own: the certificate and
/// its issuer as a chain of two, in hard-fail mode, with a requester that answers with that one response.
/// A certificate that names no responder is put to it as a stand-in that does ("OCSP stand-in" below).
struct RevocationCheck: Sendable {
    var options: RevocationOptions
    /// Statuses already established in this evaluation: a remembered path that fails is searched again, and the
    /// search must not put the same question to a responder a second time (a dead one costs its whole timeout).
    let memo: RevocationMemo

    func check(_ chain: UnverifiedCertificateChain, validationTime: Date) async -> PathFindings {
        var findings = PathFindings()
        guard options.mode != .off, chain.count >= 2 else { return findings }
        for index in 0..<(chain.count - 1) {
            let certificate = chain[index], issuer = chain[index + 1]
            let namesResponder = Self.namesResponder(certificate)
            guard namesResponder || !options.responses.isEmpty else { continue }
            let status: Status
            if let known = memo[certificate, issuer] {
                status = known
            } else {
                status = await self.status(of: certificate, issuer: issuer, namesResponder: namesResponder, validationTime: validationTime)
                memo[certificate, issuer] = status
            }
            switch status {
            case .good:
                continue
            case .revoked(let reason):
                findings.failures.append(Self.revokedFailure(certificate, index: index, reason: reason))
                return findings
            case .unestablished(let reasons):
                // A certificate that names no responder needs no status; only a verified "revoked" counts against it.
                guard namesResponder else { continue }
                if options.mode == .hard {
                    let message = reasons.isEmpty
                        ? "\(certificate.label) names an OCSP responder but no response was available; hard-fail revocation needs a stapled or fetched response"
                        : "the revocation status of \(certificate.label) could not be established under hard-fail: \(Self.explain(reasons, certificate: certificate, issuer: issuer))"
                    findings.failures.append(TrustFailure(.revocationUnknown, certificate: index, message))
                    return findings
                }
                let why = reasons.isEmpty ? "no response was available" : Self.explain(reasons, certificate: certificate, issuer: issuer)
                findings.notes.append("the revocation status of \(certificate.label) was not established (\(why)); soft-fail accepts it")
            }
        }
        return findings
    }

    enum Status: Sendable {
        case good
        case revoked(String)
        /// Why each response tried says nothing verified about the certificate; empty when there was none to try.
        case unestablished([String])
    }

    private func status(of certificate: Certificate, issuer: Certificate, namesResponder: Bool, validationTime: Date) async -> Status {
        let subject: Certificate
        if namesResponder {
            subject = certificate
        } else if let standIn = Self.standIn(for: certificate) {
            subject = standIn
        } else {
            return .unestablished(["the certificate could not be put to the OCSP verifier"])
        }
        let tail = Self.namesResponder(issuer) ? OCSPStandIn.filler : nil
        var reasons: [String] = []
        var good = false
        // Every response is read: a verified "revoked" wins over an older "good" handed in beside it.
        for response in options.responses {
            switch await Self.verify(subject, issuer: issuer, tail: tail, requester: FixedResponse(bytes: response), time: validationTime) {
            case .good: good = true
            case .revoked(let reason): return .revoked(reason)
            case .unestablished(let why): reasons += why
            }
        }
        if good { return .good }
        if namesResponder, let source = options.source {
            let fetched = SourceRequester(source: source)
            let status = await Self.verify(subject, issuer: issuer, tail: tail, requester: fetched, time: validationTime)
            if case .unestablished = status, !fetched.answered.value {
                return .unestablished(reasons + [Self.nothingFetched])
            }
            return status
        }
        return .unestablished(reasons)
    }

    /// One certificate and one response through swift-certificates' policy.
    private static func verify(_ subject: Certificate, issuer: Certificate, tail: Certificate?, requester: some OCSPRequester,
                               time: Date) async -> Status {
        // The policy refuses a chain whose last certificate names a responder ("root certificate is not allowed to have an
        // OCSP URI"); an intermediate issuer may well name one, so a certificate that names none ends the chain.
        let certificates = [subject, issuer] + (tail.map { [$0] } ?? [])
        guard let chain = UnverifiedCertificateChain.assembled(certificates) else {
            return .unestablished(["the certificate could not be put to the OCSP verifier"])
        }
        var policy = OCSPVerifierPolicy(failureMode: .hard, requester: OnlyFirstQuery(requester), fixedExpiryValidationTime: time)
        switch await policy.chainMeetsPolicyRequirements(chain: chain) {
        case .meetsPolicy:
            return .good
        case .failsToMeetPolicy(let reason):
            let text = reason.description
            // swift-certificates words a verified "revoked" status so, and nothing else (RevocationCheckTests pin it).
            if text.hasPrefix(revokedPrefix) { return .revoked(String(text.dropFirst(revokedPrefix.count))) }
            return .unestablished([text])
        }
    }

    private static let revokedPrefix = "revoked through OCSP"
    private static let nothingFetched = "its responder gave no answer"

    static func namesResponder(_ cert: Certificate) -> Bool {
        ((try? cert.extensions.authorityInformationAccess)??.contains { $0.method == .ocspServer }) ?? false
    }

    static func revokedFailure(_ certificate: Certificate, index: Int, reason: String) -> TrustFailure {
        // ", reason: keyCompromise" or ", reason: nil"
        let code = reason.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let because = code.isEmpty || code == "nil" ? "" : " (reason: \(code))"
        if index == 0 {
            return TrustFailure(.revoked, certificate: 0,
                "\(certificate.label) is revoked: a verified OCSP response says so\(because); the server must install a new certificate")
        }
        return TrustFailure(.revoked, certificate: index,
            "the intermediate \(certificate.label) is revoked: a verified OCSP response says so\(because); the server must send a chain through a current intermediate from its CA")
    }

    /// The reasons of swift-certificates' OCSP policy, in words: they carry debug dumps of CertIDs and times.
    static func explain(_ reasons: [String], certificate: Certificate, issuer: Certificate) -> String {
        let worded = reasons.map { reason -> String in
            let r = reason.lowercased()
            if reason == nothingFetched { return reason }
            if r.contains("does not include a response for the queried certificate") { return "a response was about another certificate" }
            if r.contains("signature is not valid") || r.contains("could not find ocsp responder") || r.contains("could not validate ocsp responder") {
                return "a response is not signed by \(issuer.label) or a responder it authorised"
            }
            if r.contains("status unknown") { return "the responder does not know the certificate (status unknown)" }
            if r.contains("`nextupdate` is nil") { return "a response has no nextUpdate, so its freshness cannot be judged (RFC 5019 §4)" }
            if r.contains("nextupdate") && r.contains("in the past") { return "a response is out of date (its nextUpdate has passed)" }
            if r.contains("in the future") { return "a response is not yet valid (produced or updated after the validation time)" }
            if r.contains("nonce does not match") { return "a response's nonce does not match the request's" }
            if r.contains("deserialisation failed") { return "a response is not a readable DER OCSPResponse" }
            if r.hasPrefix("ocsp request failed") { return "the responder refused (\(reason.dropFirst("OCSP request failed ".count)))" }
            return String(reason.prefix(200))
        }
        var seen = Set<String>()
        let unique = worded.filter { seen.insert($0).inserted }
        // A response about another certificate matters only when nothing else was wrong.
        let telling = unique.count > 1 ? unique.filter { $0 != "a response was about another certificate" } : unique
        if telling == ["a response was about another certificate"] {
            return reasons.count == 1 ? "the response given is about another certificate"
                : "none of the \(reasons.count) responses given is about \(certificate.label)"
        }
        return telling.joined(separator: "; ")
    }

    /// A certificate that names an OCSP responder and otherwise carries what the policy reads from the certificate it
    /// checks: the serial number (the issuer's name and key come from the real issuer). Never trusted for anything else.
    static func standIn(for certificate: Certificate) -> Certificate? {
        guard let key = OCSPStandIn.key, let aia = OCSPStandIn.aia else { return nil }
        return try? Certificate(
            version: .v3, serialNumber: certificate.serialNumber, publicKey: key.publicKey,
            notValidBefore: certificate.notValidBefore, notValidAfter: certificate.notValidAfter,
            issuer: certificate.issuer, subject: certificate.subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions([aia]), issuerPrivateKey: key)
    }

    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var _value = false
        var value: Bool {
            get { lock.withLock { _value } }
            set { lock.withLock { _value = newValue } }
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

/// The revocation statuses one evaluation has established, by certificate and issuer.
final class RevocationMemo: @unchecked Sendable {
    private struct Key: Hashable {
        let certificate: CertificateKey
        let issuer: CertificateKey
    }

    private let lock = NSLock()
    private var known: [Key: RevocationCheck.Status] = [:]

    subscript(certificate: Certificate, issuer: Certificate) -> RevocationCheck.Status? {
        get { lock.withLock { known[Key(certificate: CertificateKey(certificate), issuer: CertificateKey(issuer))] } }
        set { lock.withLock { known[Key(certificate: CertificateKey(certificate), issuer: CertificateKey(issuer))] = newValue } }
    }
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

/// Why bytes handed in as an OCSP response are not one.
public struct OCSPResponseShapeError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

extension RevocationOptions {
    /// Refuses bytes that are not shaped like a DER OCSPResponse (RFC 6960 §4.2.1: a SEQUENCE of an ENUMERATED
    /// responseStatus and, when successful, [0] responseBytes), so that a wrong file is an input error rather than
    /// a response soft-fail silently ignores. Whether a response says anything about a certificate is decided later.
    public static func checkResponseShape(_ der: [UInt8]) throws(OCSPResponseShapeError) {
        let node: ASN1Node
        do { node = try DER.parse(der) } catch {
            let text = der.prefix(64).allSatisfy { $0 == 0x0A || $0 == 0x0D || (0x20..<0x7F).contains($0) }
            throw OCSPResponseShapeError(description: text
                ? "it is text, not DER; an OCSP response is binary (openssl ocsp -respout writes one; base64 text must be decoded first)"
                : "it is not DER: \(dependencyErrorText(error))")
        }
        guard node.identifier == .sequence, case .constructed(let children) = node.content else {
            throw OCSPResponseShapeError(description: "it is DER but not an OCSPResponse (a SEQUENCE was expected)")
        }
        var parts = children.makeIterator()
        guard let status = parts.next(), status.identifier == .enumerated else {
            throw OCSPResponseShapeError(description: "it is DER but not an OCSPResponse (its first field must be the ENUMERATED responseStatus)")
        }
        if let bytes = parts.next(), bytes.identifier != ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) || parts.next() != nil {
            throw OCSPResponseShapeError(description: "it is DER but not an OCSPResponse (only [0] responseBytes may follow the status)")
        }
    }
}
