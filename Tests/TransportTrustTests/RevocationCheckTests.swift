import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

/// OCSP through the engine, with responses built by the test and handed in (as a stapled response would be).
@Suite struct RevocationCheckTests {
    let root = PKI.root()
    let intermediate: TestCert
    let leaf: TestCert

    static let aia = try! Certificate.Extension(
        AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier("http://ocsp.invalid/"))]), critical: false)

    init() {
        intermediate = root.intermediate("OCSP-issuing CA")
        leaf = intermediate.leaf(extra: [Self.aia])
    }

    func evaluate(_ mode: RevocationOptions.Mode, responses: [[UInt8]] = [], source: (any OCSPResponseSource)? = nil, leaf: TestCert? = nil) async -> TrustVerdict {
        var policy = PKI.ssl("www.example.com")
        policy.revocation = RevocationOptions(mode: mode, responses: responses, source: source)
        return await PKI.evaluate(PKI.trust([leaf ?? self.leaf, intermediate], anchors: [root], policy: policy))
    }

    func response(_ status: OCSPResponseBuilder.Status, at time: Date = PKI.now, signer: TestKey? = nil, about cert: TestCert? = nil) throws -> [UInt8] {
        try OCSPResponseBuilder.response(for: cert ?? leaf, issuer: intermediate, status: status, at: time, signer: signer)
    }

    @Test func offChecksNothing() async throws {
        let v = await evaluate(.off, responses: [try response(.revoked(at: PKI.now.addingTimeInterval(-86400)))])
        #expect(v.isTrusted)
    }

    @Test func goodResponsePassesInBothModes() async throws {
        let good = try response(.good)
        #expect(await evaluate(.soft, responses: [good]).isTrusted)
        let hard = await evaluate(.hard, responses: [good])
        #expect(hard.isTrusted, "\(hard.failures)")
    }

    @Test func revokedResponseFailsInBothModes() async throws {
        let revoked = try response(.revoked(at: PKI.now.addingTimeInterval(-86400)))
        for mode in [RevocationOptions.Mode.soft, .hard] {
            let v = await evaluate(mode, responses: [revoked])
            #expect(v.codes == [.revoked], "\(mode)")
            #expect(v.failures.first?.certificate == 0)
            #expect(v.failures.first?.message.contains("revoked") == true)
            #expect(v.failures.first?.message.contains("new certificate") == true)
        }
    }

    @Test func unknownStatusPassesSoftAndFailsHard() async throws {
        let unknown = try response(.unknown)
        #expect(await evaluate(.soft, responses: [unknown]).isTrusted)
        let hard = await evaluate(.hard, responses: [unknown])
        #expect(hard.codes == [.revocationUnknown])
        #expect(hard.failures.first?.message.contains("hard-fail") == true)
    }

    @Test func noResponsePassesSoftAndFailsHard() async {
        #expect(await evaluate(.soft).isTrusted)
        let hard = await evaluate(.hard)
        #expect(hard.codes == [.revocationUnknown])
        #expect(hard.failures.first?.certificate == 0)
        #expect(hard.failures.first?.message.contains(leaf.label) == true)
        #expect(hard.failures.first?.message.contains("no response was available") == true)
    }

    @Test func aResponseSignedByAnotherKeyIsNotBelieved() async throws {
        let forged = try response(.good, signer: .p256())
        #expect(await evaluate(.soft, responses: [forged]).isTrusted)
        #expect(await evaluate(.hard, responses: [forged]).codes == [.revocationUnknown])
        // A forged "revoked" does not revoke either.
        let forgedRevoked = try response(.revoked(at: PKI.now), signer: .p256())
        #expect(await evaluate(.soft, responses: [forgedRevoked]).isTrusted)
    }

    @Test func aResponseAboutAnotherCertificateDoesNotCount() async throws {
        let other = intermediate.leaf("other")
        let aboutOther = try response(.good, about: other)
        #expect(await evaluate(.hard, responses: [aboutOther]).codes == [.revocationUnknown])
    }

    @Test func aStaleResponseFailsHard() async throws {
        let stale = try response(.good, at: PKI.now.addingTimeInterval(-10 * 86400))
        #expect(await evaluate(.soft, responses: [stale]).isTrusted)
        #expect(await evaluate(.hard, responses: [stale]).codes == [.revocationUnknown])
    }

    @Test func anUnsuccessfulResponseFailsHard() async {
        #expect(await evaluate(.soft, responses: [OCSPResponseBuilder.tryLater]).isTrusted)
        #expect(await evaluate(.hard, responses: [OCSPResponseBuilder.tryLater]).codes == [.revocationUnknown])
        #expect(await evaluate(.hard, responses: [[0x30, 0x01]]).codes == [.revocationUnknown])
    }

    @Test func aLeafThatNamesNoResponderNeedsNoResponse() async {
        let plain = intermediate.leaf()
        let v = await evaluate(.hard, leaf: plain)
        #expect(v.isTrusted, "\(v.failures)")
    }

    struct Source: OCSPResponseSource {
        let answer: [UInt8]?
        let seen = Seen()
        actor Seen {
            private(set) var all: [String] = []
            func add(_ uri: String) { all.append(uri) }
        }

        func response(for request: [UInt8], responderURI: String) async -> [UInt8]? {
            await seen.add(responderURI)
            return answer
        }
    }

    @Test func asksTheResponseSourceWhenNothingWasStapled() async throws {
        let fetched = Source(answer: try response(.good))
        #expect(await evaluate(.hard, source: fetched).isTrusted)
        #expect(await fetched.seen.all == ["http://ocsp.invalid/"])

        let revoked = Source(answer: try response(.revoked(at: PKI.now.addingTimeInterval(-60))))
        #expect(await evaluate(.soft, source: revoked).codes == [.revoked])

        let silent = Source(answer: nil)
        #expect(await evaluate(.hard, source: silent).codes == [.revocationUnknown])
        #expect(await silent.seen.all.count == 1)
    }

    @Test func revocationIsNotCheckedOnAPathThatAlreadyFails() async throws {
        let revoked = try response(.revoked(at: PKI.now))
        var policy = PKI.ssl("other.example.com")
        policy.revocation = RevocationOptions(mode: .hard, responses: [revoked])
        let v = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: policy))
        #expect(v.codes == [.hostnameMismatch])
    }

    // MARK: Every certificate, every response

    @Test func aHandedInRevokedResponseCountsEvenWhenTheLeafNamesNoResponder() async throws {
        let plain = intermediate.leaf()
        let revoked = try OCSPResponseBuilder.response(for: plain, issuer: intermediate, status: .revoked(at: PKI.now.addingTimeInterval(-60)))
        for mode in [RevocationOptions.Mode.soft, .hard] {
            let v = await evaluate(mode, responses: [revoked], leaf: plain)
            #expect(v.codes == [.revoked], "\(mode): \(v.failures)")
            #expect(v.failures.first?.certificate == 0)
        }
        // A good one about it is fine, and hard-fail asks nothing more of a certificate that names no responder.
        let good = try OCSPResponseBuilder.response(for: plain, issuer: intermediate, status: .good)
        #expect(await evaluate(.hard, responses: [good], leaf: plain).isTrusted)
    }

    /// root → intermediate (names a responder) → leaf (names one too).
    func responderChain(leafSerial: Certificate.SerialNumber = PKI.serial()) -> (intermediate: TestCert, leaf: TestCert) {
        let ca = root.intermediate("Responding CA", extra: [Self.aia])
        return (ca, ca.leaf(serial: leafSerial, extra: [Self.aia]))
    }

    func evaluate(_ mode: RevocationOptions.Mode, _ chain: (intermediate: TestCert, leaf: TestCert), responses: [[UInt8]]) async -> TrustVerdict {
        var policy = PKI.ssl("www.example.com")
        policy.revocation = RevocationOptions(mode: mode, responses: responses)
        return await PKI.evaluate(PKI.trust([chain.leaf, chain.intermediate], anchors: [root], policy: policy))
    }

    @Test func aRevokedIntermediateIsRefusedAtItsIndex() async throws {
        let chain = responderChain()
        let leafGood = try OCSPResponseBuilder.response(for: chain.leaf, issuer: chain.intermediate, status: .good)
        let caRevoked = try OCSPResponseBuilder.response(for: chain.intermediate, issuer: root, status: .revoked(at: PKI.now.addingTimeInterval(-60)))
        for mode in [RevocationOptions.Mode.soft, .hard] {
            let v = await evaluate(mode, chain, responses: [leafGood, caRevoked])
            #expect(v.codes == [.revoked], "\(mode): \(v.failures)")
            #expect(v.failures.first?.certificate == 1)
            #expect(v.failures.first?.message.contains(chain.intermediate.label) == true)
            #expect(v.failures.first?.message.contains("keyCompromise") == true)
        }
    }

    @Test func hardFailNeedsAGoodResponseForAnIntermediateThatNamesAResponder() async throws {
        let chain = responderChain()
        let leafGood = try OCSPResponseBuilder.response(for: chain.leaf, issuer: chain.intermediate, status: .good)
        let hard = await evaluate(.hard, chain, responses: [leafGood])
        #expect(hard.codes == [.revocationUnknown])
        #expect(hard.failures.first?.certificate == 1)
        let caGood = try OCSPResponseBuilder.response(for: chain.intermediate, issuer: root, status: .good)
        let both = await evaluate(.hard, chain, responses: [caGood, leafGood])
        #expect(both.isTrusted, "\(both.failures)")
    }

    @Test func everyResponseIsTriedWhateverItsPlace() async throws {
        let other = try response(.good, about: intermediate.leaf("other"))
        let revoked = try response(.revoked(at: PKI.now.addingTimeInterval(-60)))
        #expect(await evaluate(.soft, responses: [other, revoked]).codes == [.revoked])
        #expect(await evaluate(.hard, responses: [other, try response(.good)]).isTrusted)
        // A verified "revoked" wins over a "good" given before it.
        #expect(await evaluate(.hard, responses: [try response(.good), revoked]).codes == [.revoked])
    }

    @Test func aResponseGoesToItsOwnCertificateNotToOneWhoseRequestHappensToHoldItsSerial() async throws {
        // A leaf of serial 1: the byte 0x01 appears in any request, the intermediate's too.
        let chain = responderChain(leafSerial: Certificate.SerialNumber(bytes: [0x01]))
        let leafGood = try OCSPResponseBuilder.response(for: chain.leaf, issuer: chain.intermediate, status: .good)
        let caGood = try OCSPResponseBuilder.response(for: chain.intermediate, issuer: root, status: .good)
        let v = await evaluate(.hard, chain, responses: [leafGood, caGood])
        #expect(v.isTrusted, "\(v.failures)")
    }

    @Test func aResponseAboutAnotherCertificateIsNotCalledRevoked() async throws {
        // The response is about a revoked certificate, but not this one.
        let aboutOther = try response(.revoked(at: PKI.now), about: intermediate.leaf("other"))
        let v = await evaluate(.hard, responses: [aboutOther])
        #expect(v.codes == [.revocationUnknown])
        let message = v.failures.first?.message ?? ""
        #expect(message.contains("about another certificate"), "\(message)")
        #expect(!message.contains("OCSPCertID(") && !message.contains("ArraySlice("), "no debug dumps: \(message)")
        // swift-certificates matches SHA-1 CertIDs only, so a response keyed with SHA-256 reads the same: said (review-rev F3).
        #expect(message.contains("a hash other than SHA-1"), "\(message)")
    }

    /// swift-certificates refuses a response with a nonce other than its own request's, which every response handed in
    /// or stapled has when it carries one: the reason says so and how to fetch one without (review-rev F4).
    @Test func aResponseWithANonceIsExplained() throws {
        let text = RevocationCheck.explain(["OCSP response nonce does not match request nonce"], certificate: leaf.certificate, issuer: intermediate.certificate)
        #expect(text.contains("carries a nonce, so it answered another request") && text.contains("-no_nonce"), "\(text)")
        do {
            try RevocationOptions.checkResponseShape([0x30, 0x03, 0x0A, 0x01, 0x00])
            Issue.record("a successful status without responseBytes was accepted")
        } catch {
            #expect(error.description.contains("-no_nonce"), "\(error)")
        }
    }

    @Test func softFailSaysWhatItCouldNotEstablish() async throws {
        let none = await evaluate(.soft)
        #expect(none.isTrusted)
        #expect(none.notes.contains { $0.contains(leaf.label) && $0.contains("no response was available") }, "\(none.notes)")
        let stale = await evaluate(.soft, responses: [try response(.good, at: PKI.now.addingTimeInterval(-10 * 86400))])
        #expect(stale.isTrusted)
        #expect(stale.notes.contains { $0.contains("out of date") }, "\(stale.notes)")
        #expect(await evaluate(.soft, responses: [try response(.good)]).notes.isEmpty)
    }

    @Test func oneEvaluationAsksAResponderOnce() async throws {
        // A remembered path that revocation refuses is searched again; the search must reuse the answer.
        let engine = TrustEngine(cacheCapacity: 16)
        var policy = PKI.ssl("www.example.com")
        #expect(await engine.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: policy)).isTrusted)
        let revoked = Source(answer: try response(.revoked(at: PKI.now.addingTimeInterval(-60))))
        policy.revocation = RevocationOptions(mode: .hard, source: revoked)
        let v = await engine.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: policy))
        #expect(v.codes == [.revoked])
        #expect(await revoked.seen.all.count == 1)
    }
}

/// CRLs through the engine: soft- and hard-fail as for OCSP, the methods and the fetching source.
@Suite struct RevocationCheckCRLTests {
    let pki = PKI.chain()

    func crl(_ issuer: TestCert, _ configure: (inout CRLBuilder) -> Void = { _ in }) throws -> CertificateRevocationList {
        var builder = CRLBuilder(issuer: issuer)
        configure(&builder)
        return try CertificateRevocationList(bytes: try builder.signed(by: issuer.key))
    }

    func evaluate(_ options: RevocationOptions, leaf: TestCert? = nil) async -> TrustVerdict {
        var policy = PKI.ssl("www.example.com")
        policy.revocation = options
        return await PKI.evaluate(PKI.trust([leaf ?? pki.leaf, pki.intermediate], anchors: [pki.root], policy: policy))
    }

    @Test func aRevokedLeafFailsInBothModesAndNamesTheCRL() async throws {
        let list = try crl(pki.intermediate) { $0.entries = [.revoking(pki.leaf, reason: 1)] }
        for mode in [RevocationOptions.Mode.soft, .hard] {
            let v = await evaluate(RevocationOptions(mode: mode, crls: [list, try crl(pki.root)]))
            #expect(v.codes == [.revoked], "\(v.failures)")
            #expect(v.failures.first?.message.contains("the CRL from \(pki.intermediate.label) lists it (reason: keyCompromise)") == true)
        }
    }

    @Test func aRevokedIntermediateFails() async throws {
        let v = await evaluate(RevocationOptions(mode: .soft, crls: [try crl(pki.root) { $0.entries = [.revoking(pki.intermediate)] }]))
        #expect(v.failures.first?.code == .revoked)
        #expect(v.failures.first?.certificate == 1)
    }

    @Test func hardFailNeedsACRLForEveryCertificateOnceCRLsAreHandedIn() async throws {
        let leafCRL = try crl(pki.intermediate)
        let both = await evaluate(RevocationOptions(mode: .hard, crls: [leafCRL, try crl(pki.root)]))
        #expect(both.isTrusted, "\(both.failures)")
        let missing = await evaluate(RevocationOptions(mode: .hard, crls: [leafCRL]))
        #expect(missing.codes == [.revocationUnknown])
        #expect(missing.failures.first?.message.contains("no CRL covers \(pki.intermediate.label)") == true)
        let soft = await evaluate(RevocationOptions(mode: .soft, crls: [leafCRL]))
        #expect(soft.isTrusted)
        #expect(soft.notes.contains { $0.contains(pki.intermediate.label) && $0.contains("soft-fail accepts it") })
    }

    @Test func hardFailRefusesAnUnusableCRLWithItsReason() async throws {
        let unknown = try crl(pki.intermediate) { $0.extensions = [Certificate.Extension(oid: [1, 2, 3, 4], critical: true, value: [0x05, 0x00])] }
        let v = await evaluate(RevocationOptions(mode: .hard, crls: [unknown, try crl(pki.root)]))
        #expect(v.codes == [.revocationUnknown])
        #expect(v.failures.first?.message.contains("1.2.3.4") == true, "\(v.failures)")
    }

    @Test func theOCSPMethodAloneIgnoresCRLs() async throws {
        let list = try crl(pki.intermediate) { $0.entries = [.revoking(pki.leaf)] }
        #expect(await evaluate(RevocationOptions(mode: .hard, crls: [list], methods: .ocsp)).isTrusted)
    }

    /// Hands out CRLs by URI and counts the fetches.
    actor Source: CRLSource {
        let crls: [String: [UInt8]]
        private(set) var asked: [String] = []
        init(_ crls: [String: [UInt8]]) { self.crls = crls }
        func crl(at uri: String) async -> [UInt8]? {
            asked.append(uri)
            return crls[uri]
        }
    }

    @Test func theSourceIsAskedForTheDistributionPoint() async throws {
        let uri = "http://crl.example.test/ca.crl"
        let leaf = pki.intermediate.leaf(extra: [CRLBuilder.distributionPoints([uri])])
        var builder = CRLBuilder(issuer: pki.intermediate)
        builder.entries = [.revoking(leaf)]
        let source = Source([uri: Array(try builder.pem(by: pki.intermediate.key).utf8)])
        let v = await evaluate(RevocationOptions(mode: .soft, crlSource: source), leaf: leaf)
        #expect(v.codes == [.revoked], "\(v.failures)")
        #expect(await source.asked == [uri])
        let silent = Source([:])
        let hard = await evaluate(RevocationOptions(mode: .hard, crlSource: silent), leaf: leaf)
        #expect(hard.codes == [.revocationUnknown])
        #expect(hard.failures.first?.message.contains("could not be fetched") == true, "\(hard.failures)")
        #expect(await evaluate(RevocationOptions(mode: .soft, crlSource: silent), leaf: leaf).isTrusted)
    }

    @Test(arguments: ["https://crl.example.test/ca.crl", "ldap://ldap.example.test/cn=CA?certificateRevocationList"])
    func hardFailNeedsAStatusForACRLLocationThatIsNotFetched(uri: String) async throws {
        let leaf = pki.intermediate.leaf(extra: [CRLBuilder.distributionPoints([uri])])
        let source = Source([:])
        let hard = await evaluate(RevocationOptions(mode: .hard, crlSource: source), leaf: leaf)
        #expect(hard.codes == [.revocationUnknown], "\(hard.failures)")
        #expect(hard.failures.first?.certificate == 0)
        #expect(hard.failures.first?.message.contains(uri) == true, "\(hard.failures)")
        #expect(hard.failures.first?.message.contains("handed in") == true)
        #expect(await source.asked.isEmpty, "only http:// is fetched")
        #expect(await evaluate(RevocationOptions(mode: .soft, crlSource: source), leaf: leaf).isTrusted)
        // Its CRL, handed in, settles it.
        let crls = [try crl(pki.intermediate), try crl(pki.root)]
        let handedIn = await evaluate(RevocationOptions(mode: .hard, crls: crls), leaf: leaf)
        #expect(handedIn.isTrusted, "\(handedIn.failures)")
    }

    @Test func aCertificateNamingManyPointsCostsAtMostThreeFetches() async throws {
        let uris = (0..<200).map { "http://crl.example.test/\($0).crl" }
        let leaf = pki.intermediate.leaf(extra: [CRLBuilder.distributionPoints(uris)])
        let silent = Source([:])
        let v = await evaluate(RevocationOptions(mode: .hard, crlSource: silent), leaf: leaf)
        #expect(v.codes == [.revocationUnknown])
        #expect(await silent.asked == Array(uris.prefix(3)))
    }
}
