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

/// Fetches CRLs from the distribution points certificates name. The network implementation lives with the HTTPS
/// client; the trust library never does I/O itself.
public protocol CRLSource: Sendable {
    /// Returns the CRL (DER or PEM) at `uri`, or nil when none could be had.
    func crl(at uri: String) async -> [UInt8]?
}

/// How revocation is checked.
public struct RevocationOptions: Sendable {
    /// The ways a status may be established, as Alamofire's `.ocsp` and `.crl`.
    public struct Methods: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// OCSP responses, handed in or fetched.
        public static let ocsp = Methods(rawValue: 1 << 0)
        /// CRLs, handed in or fetched.
        public static let crl = Methods(rawValue: 1 << 1)
        /// Both.
        public static let all: Methods = [.ocsp, .crl]
    }

    /// How revocation failures count.
    public enum Mode: String, Sendable, CaseIterable, Codable {
        /// No revocation checking.
        case off
        /// A verified response that says "revoked" fails the chain; anything else (no response, a bad one) passes.
        case soft
        /// As soft; in addition, every certificate that names an OCSP responder or a CRL distribution point needs a
        /// verified "good" response or a CRL that covers it; with CRLs handed in, every certificate but the anchor does.
        /// Only the enabled ``RevocationOptions/methods`` count: with OCSP alone, a certificate that names only a CRL
        /// distribution point needs nothing, and the reverse.
        case hard
    }

    /// Off, soft-fail or hard-fail.
    public var mode: Mode
    /// OCSP responses handed in: stapled by the server, or obtained by the caller. Each is checked against every
    /// certificate of the chain (but the anchor), whether or not that certificate names a responder.
    public var responses: [[UInt8]]
    /// Where OCSP responses come from for a certificate that names a responder.
    public var source: (any OCSPResponseSource)?
    /// CRLs handed in, complete or delta (RFC 5280 §6.3). Handing one in says the issuers publish CRLs: under hard-fail
    /// every certificate of the chain but the anchor then needs a status.
    public var crls: [CertificateRevocationList]
    /// Where CRLs come from for a certificate that names an http distribution point.
    public var crlSource: (any CRLSource)?
    /// Which ways of establishing a status count.
    public var methods: Methods
    /// Ask for a CRL before an OCSP responder (Alamofire's `.preferCRL`); a CRL that settles the status saves the query.
    public var preferCRL: Bool

    /// Revocation settings; off by default.
    public init(mode: Mode = .off, responses: [[UInt8]] = [], source: (any OCSPResponseSource)? = nil,
                crls: [CertificateRevocationList] = [], crlSource: (any CRLSource)? = nil, methods: Methods = .all, preferCRL: Bool = false) {
        self.mode = mode
        self.responses = responses
        self.source = source
        self.crls = crls
        self.crlSource = crlSource
        self.methods = methods
        self.preferCRL = preferCRL
    }

    /// No revocation checking.
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
///
/// CRLs, handed in or fetched from the certificate's distribution points, are decided by ``CRLCheck`` (RFC 5280 §6.3).
struct RevocationCheck: Sendable {
    var options: RevocationOptions
    /// Statuses already established in this evaluation: a remembered path that fails is searched again, and the
    /// search must not put the same question to a responder a second time (a dead one costs its whole timeout).
    let memo: RevocationMemo

    func check(_ chain: UnverifiedCertificateChain, validationTime: Date) async -> PathFindings {
        var findings = PathFindings()
        guard options.mode != .off, chain.count >= 2 else { return findings }
        let ocsp = options.methods.contains(.ocsp), crl = options.methods.contains(.crl)
        for index in 0..<(chain.count - 1) {
            let certificate = chain[index], issuer = chain[index + 1]
            let namesResponder = ocsp && Self.namesResponder(certificate)
            let crlURIs = crl ? CRLDistributionPoint.httpURIs(of: certificate) : []
            // A certificate with a way to a status must have one under hard-fail.
            let needsStatus = namesResponder || (crl && (!options.crls.isEmpty || CRLDistributionPoint.isNamed(in: certificate)))
            guard needsStatus || (ocsp && !options.responses.isEmpty) else { continue }
            let status: Status
            let above = crl ? chain[(index + 1)...] : chain[(index + 1)...(index + 1)]
            if let known = memo[certificate, above: above] {
                status = known
            } else {
                status = await self.status(of: certificate, issuer: issuer, chain: chain, namesResponder: namesResponder, crlURIs: crlURIs,
                                           validationTime: validationTime)
                memo[certificate, above: above] = status
            }
            switch status {
            case .good:
                continue
            case .revoked(let reason):
                findings.failures.append(Self.revokedFailure(certificate, index: index, reason: reason))
                return findings
            case .revokedByCRL(let reason):
                findings.failures.append(Self.revokedFailure(certificate, index: index, crl: reason))
                return findings
            case .unestablished(let reasons):
                // A certificate that names no responder needs no status; only a verified "revoked" counts against it.
                guard needsStatus else { continue }
                if options.mode == .hard {
                    let unfetched = crlURIs.isEmpty ? CRLDistributionPoint.unfetchedURIs(of: certificate) : []
                    let message = reasons.isEmpty
                        ? (namesResponder
                            ? "\(certificate.label) names an OCSP responder but no response was available; hard-fail revocation needs a stapled or fetched response"
                            : !unfetched.isEmpty
                            ? "\(certificate.label) names its CRL only at \(unfetched.joined(separator: ", ")), which is not fetched here (only http:// is); hard-fail revocation needs that CRL handed in"
                            : "no CRL covers \(certificate.label); hard-fail revocation needs a current CRL from its issuer for every certificate")
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
        /// Revoked by a CRL: which CRL and the reason, in words.
        case revokedByCRL(String)
        /// Why each response tried says nothing verified about the certificate; empty when there was none to try.
        case unestablished([String])
    }

    /// OCSP and CRLs together: a verified "revoked" from either wins, then a "good" from either.
    private func status(of certificate: Certificate, issuer: Certificate, chain: UnverifiedCertificateChain, namesResponder: Bool,
                        crlURIs: [String], validationTime: Date) async -> Status {
        let useOCSP = options.methods.contains(.ocsp) && (namesResponder || !options.responses.isEmpty)
        let useCRL = options.methods.contains(.crl)
        var crl: CRLCheck.Status?
        if useCRL, options.preferCRL || !useOCSP {
            crl = await crlStatus(of: certificate, issuer: issuer, chain: chain, uris: crlURIs, fetch: true, time: validationTime)
            if case .revoked(let reason)? = crl { return .revokedByCRL(reason) }
        }
        var ocsp: Status?
        if useOCSP {
            // A CRL that settled the status saves the responder's round trip; responses handed in are still read.
            ocsp = await ocspStatus(of: certificate, issuer: issuer, namesResponder: namesResponder, useSource: crl != .notRevoked,
                                    validationTime: validationTime)
            if case .revoked(let reason)? = ocsp { return .revoked(reason) }
        }
        if useCRL, crl == nil {
            // After a verified "good" only the CRLs handed in are read (a "revoked" in one still wins); otherwise fetch.
            var good = false
            if case .good? = ocsp { good = true }
            crl = await crlStatus(of: certificate, issuer: issuer, chain: chain, uris: crlURIs, fetch: !good, time: validationTime)
            if case .revoked(let reason)? = crl { return .revokedByCRL(reason) }
        }
        if crl == .notRevoked { return .good }
        if case .good? = ocsp { return .good }
        var reasons: [String] = []
        if case .unestablished(let why)? = ocsp { reasons += why }
        if case .undetermined(let why)? = crl { reasons += why }
        return .unestablished(reasons)
    }

    /// RFC 5280 §6.3 with the CRLs handed in and, when `fetch` allows and they settle nothing, those of the certificate's
    /// distribution points.
    private func crlStatus(of certificate: Certificate, issuer: Certificate, chain: UnverifiedCertificateChain, uris: [String],
                           fetch: Bool, time: Date) async -> CRLCheck.Status {
        var check = CRLCheck(crls: options.crls, validationTime: time, path: Array(chain.dropLast()), candidates: memo.signerCandidates,
                             anchors: chain.last.map { [$0] } ?? [])
        let first = check.status(of: certificate, issuer: issuer)
        guard case .undetermined(var why) = first, fetch, let source = options.crlSource, !uris.isEmpty else { return first }
        // A certificate may name many points; each costs up to the source's timeout, so only the first few are asked.
        for uri in uris.prefix(Self.maximumFetchedPoints) {
            switch await memo.crl(at: uri, from: source) {
            case .success(let crl): check.crls.append(crl)
            case .failure(let error): why.append("the CRL at \(uri) \(error.description)")
            }
        }
        let fetched = check.status(of: certificate, issuer: issuer)
        if case .undetermined(let more) = fetched { return .undetermined(why + more) }
        return fetched
    }

    private func ocspStatus(of certificate: Certificate, issuer: Certificate, namesResponder: Bool, useSource: Bool,
                            validationTime: Date) async -> Status {
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
            case .revokedByCRL(let reason): return .revokedByCRL(reason)
            case .unestablished(let why): reasons += why
            }
        }
        if good { return .good }
        if namesResponder, useSource, let source = options.source {
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
    static let maximumFetchedPoints = 3
    private static let nothingFetched = "its responder gave no answer"

    static func namesResponder(_ cert: Certificate) -> Bool {
        ((try? cert.extensions.authorityInformationAccess)??.contains { $0.method == .ocspServer }) ?? false
    }

    static func revokedFailure(_ certificate: Certificate, index: Int, crl reason: String) -> TrustFailure {
        if index == 0 {
            return TrustFailure(.revoked, certificate: 0, "\(certificate.label) is revoked: \(reason); the server must install a new certificate")
        }
        return TrustFailure(.revoked, certificate: index,
            "the intermediate \(certificate.label) is revoked: \(reason); the server must send a chain through a current intermediate from its CA")
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
            if r.contains("nonce does not match") {
                return "a response carries a nonce, so it answered another request; swift-certificates' OCSP verifier takes a response handed in or stapled only without one (`openssl ocsp -no_nonce` fetches one)"
            }
            if r.contains("deserialisation failed") { return "a response is not a readable DER OCSPResponse" }
            if r.hasPrefix("ocsp request failed") { return "the responder refused (\(reason.dropFirst("OCSP request failed ".count)))" }
            return String(reason.prefix(400))
        }
        var seen = Set<String>()
        let unique = worded.filter { seen.insert($0).inserted }
        // A response about another certificate matters only when nothing else was wrong.
        let telling = unique.count > 1 ? unique.filter { $0 != "a response was about another certificate" } : unique
        if telling == ["a response was about another certificate"] {
            // swift-certificates matches CertIDs made with SHA-1 only: a response keyed with SHA-256 reads as another's.
            let why = "(or identifies it with a hash other than SHA-1, which swift-certificates' OCSP verifier cannot match)"
            return reasons.count == 1 ? "the response given is about another certificate \(why)"
                : "none of the \(reasons.count) responses given is about \(certificate.label) \(why)"
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
}

/// Why bytes handed in as an OCSP response are not one.
package struct OCSPResponseShapeError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

extension RevocationOptions {
    /// Refuses bytes that are not shaped like a DER OCSPResponse (RFC 6960 §4.2.1: a SEQUENCE of an ENUMERATED
    /// responseStatus and, when successful, [0] responseBytes), so that a wrong file is an input error rather than
    /// a response soft-fail silently ignores. A responder's refusal (malformedRequest, sigRequired, unauthorized) is
    /// refused too: it can never say anything about a certificate. Whether a response does is decided later.
    package static func checkResponseShape(_ der: [UInt8]) throws(OCSPResponseShapeError) {
        let node: ASN1Node
        do { node = try DER.parse(der) } catch {
            // Empty first: allSatisfy holds for no bytes, so an empty file used to be called text.
            if der.isEmpty {
                throw OCSPResponseShapeError(description: "the file is empty; an OCSP response is binary DER (openssl ocsp -respout writes one)")
            }
            let text = der.prefix(64).allSatisfy { $0 == 0x0A || $0 == 0x0D || (0x20..<0x7F).contains($0) }
            if text {
                throw OCSPResponseShapeError(description: "it is text, not DER; an OCSP response is binary (openssl ocsp -respout writes one; base64 text must be decoded first)")
            }
            // A whole clause ("it starts with a DER element of …", "it is cut short: …") stands alone; it may well be DER.
            let problem = derProblem(error, in: der)
            throw OCSPResponseShapeError(description: problem.hasPrefix("it ") ? problem : "it is not DER: \(problem)")
        }
        guard node.identifier == .sequence, case .constructed(let children) = node.content else {
            throw OCSPResponseShapeError(description: "it is DER but not an OCSPResponse (a SEQUENCE was expected)")
        }
        var parts = children.makeIterator()
        guard let status = parts.next(), status.identifier == .enumerated else {
            throw OCSPResponseShapeError(description: "it is DER but not an OCSPResponse (its first field must be the ENUMERATED responseStatus)")
        }
        let body = parts.next()
        if let body, body.identifier != ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) || parts.next() != nil {
            throw OCSPResponseShapeError(description: "it is DER but not an OCSPResponse (only [0] responseBytes may follow the status)")
        }
        guard case .primitive(let value) = status.content, value.count == 1 else {
            throw OCSPResponseShapeError(description: "it is DER but not an OCSPResponse (its responseStatus is not one of RFC 6960's values)")
        }
        let fix = "fetch a response for this certificate from the responder it names (`openssl ocsp -issuer ISSUER.pem -cert CERT.pem -url URL -no_nonce -respout response.der`)"
        let code = value[value.startIndex]
        switch code {
        case 0 where body == nil:
            throw OCSPResponseShapeError(description: "its responseStatus is successful but it carries no responseBytes, so it says nothing about any certificate; \(fix)")
        case 0, 2, 3:
            // successful; internalError and tryLater are a responder's passing state, which soft-fail accepts.
            return
        case 1:
            throw OCSPResponseShapeError(description: "it is the responder's refusal 'malformedRequest' (responseStatus 1), which says nothing about any certificate; \(fix)")
        case 5:
            throw OCSPResponseShapeError(description: "it is the responder's refusal 'sigRequired' (responseStatus 5): the request had to be signed, and the reply says nothing about any certificate; \(fix)")
        case 6:
            throw OCSPResponseShapeError(description: "it is the responder's refusal 'unauthorized' (responseStatus 6): that responder does not answer for this certificate, so the reply says nothing about it; \(fix)")
        default:
            throw OCSPResponseShapeError(description: "it is DER but not an OCSPResponse (responseStatus \(code) is not one of RFC 6960's values)")
        }
    }
}
