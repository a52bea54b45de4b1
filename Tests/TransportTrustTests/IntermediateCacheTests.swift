import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

/// Warm intermediates: a new leaf under an intermediate the engine has seen pays for its own parse and signature only,
/// and everything that can differ from one evaluation to the next is still checked on each.
@Suite struct IntermediateCacheTests {
    let pki = PKI.chain()

    func trust(_ leaf: TestCert, host: String = "www.example.com", at time: Date = PKI.now, anchors: [TestCert]? = nil,
               policy: TrustPolicy? = nil) -> ServerTrust {
        PKI.trust([leaf, pki.intermediate], anchors: anchors ?? [pki.root], policy: policy ?? PKI.ssl(host), at: time)
    }

    /// Warms `engine` with the chain's own leaf, and checks that it did.
    func warm(_ engine: TrustEngine) async {
        let first = await engine.evaluate(trust(pki.leaf))
        #expect(first.isTrusted, "\(first.failures)")
        #expect(engine.intermediateCache.count == 1)
    }

    @Test func aNewLeafUnderAKnownIntermediateVerifiesOnlyItsOwnSignature() async {
        let engine = TrustEngine()
        await warm(engine)
        #expect(engine.intermediateCache.linksReused == 0)
        let second = await engine.evaluate(trust(pki.intermediate.leaf()))
        #expect(second.isTrusted, "\(second.failures)")
        #expect(engine.intermediateCache.linksReused == 1, "the intermediate's signature by the root was verified again")
        #expect(engine.intermediateCache.count == 1)
    }

    /// The intermediate and root met swift-certificates' RFC 5280 policy with the first leaf; a second leaf under them
    /// is still held to the policy's own check of a leaf: a version 1 certificate may carry no extensions.
    @Test func aVersion1LeafWithExtensionsIsRefusedUnderAWarmIntermediate() async throws {
        let engine = TrustEngine()
        await warm(engine)
        let key = TestKey.p256()
        let san = try Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false)
        let versionOne = TestCert(certificate: try Certificate(
            version: .v1, serialNumber: PKI.serial(), publicKey: key.publicKey, notValidBefore: PKI.notBefore,
            notValidAfter: PKI.notAfter, issuer: pki.intermediate.certificate.subject, subject: PKI.name("Version 1 Leaf"),
            signatureAlgorithm: pki.intermediate.key.defaultSignatureAlgorithm, extensions: Certificate.Extensions([san]),
            issuerPrivateKey: pki.intermediate.key.certificateKey), key: key)
        let v = await engine.evaluate(trust(versionOne))
        #expect(!v.isTrusted)
        #expect(v.failures.contains { $0.code == .malformedCertificate && $0.message.contains("version 1") }, "\(v.failures)")
    }

    /// The leaf's link is never taken from memory: a leaf signed by another key under the intermediate's name fails.
    @Test func aLeafNotSignedByTheIntermediateIsRefused() async {
        let engine = TrustEngine()
        await warm(engine)
        let impostor = TestCert(certificate: pki.intermediate.certificate, key: .p256())
        let forged = PKI.issue(subject: PKI.name("forged"), key: .p256(), issuer: impostor, keyIdentifiers: false,
                               extensions: [try! Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
                                            try! Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false)])
        let verdict = await engine.evaluate(trust(forged))
        #expect(!verdict.isTrusted)
    }

    @Test(arguments: [
        ("expired", TrustFailureCode.expired),
        ("another host", .hostnameMismatch),
        ("client only", .extendedKeyUsage),
    ])
    func theLeafsTimeHostAndRulesAreCheckedEveryTime(_ kind: String, _ code: TrustFailureCode) async {
        let engine = TrustEngine()
        await warm(engine)
        let leaf = switch kind {
        case "expired": pki.intermediate.leaf(notValidAfter: PKI.now.addingTimeInterval(-60))
        case "another host": pki.intermediate.leaf(dns: ["other.example.net"])
        default: pki.intermediate.leaf(extendedKeyUsage: [.clientAuth])
        }
        let verdict = await engine.evaluate(trust(leaf))
        #expect(verdict.codes.contains(code), "\(kind): \(verdict.failures)")
    }

    /// The intermediate's policy extensions are read once, but certificate policy processing runs on every evaluation with
    /// that evaluation's leaf and inputs: a leaf outside the acceptable policies is refused, and other inputs decide anew.
    @Test func certificatePoliciesAreProcessedEveryTime() async {
        typealias P = PolicyExtension
        let ca = pki.root.intermediate("Policy CA", extra: [P.policies([P.oid(1), P.oid(2)])])
        let engine = TrustEngine()
        var policy = PKI.ssl("www.example.com")
        policy.certificatePolicies = CertificatePolicyOptions(acceptablePolicies: [P.oid(1)], requireExplicitPolicy: true)
        let inside = await engine.evaluate(PKI.trust([ca.leaf(extra: [P.policies([P.oid(1)])]), ca], anchors: [pki.root], policy: policy))
        #expect(inside.isTrusted, "\(inside.failures)")
        let outside = await engine.evaluate(PKI.trust([ca.leaf(extra: [P.policies([P.oid(2)])]), ca], anchors: [pki.root], policy: policy))
        #expect(outside.codes == [.certificatePolicy], "\(outside.failures)")
        policy.certificatePolicies.acceptablePolicies = [P.oid(2)]
        let other = await engine.evaluate(PKI.trust([ca.leaf(extra: [P.policies([P.oid(2)])]), ca], anchors: [pki.root], policy: policy))
        #expect(other.isTrusted, "\(other.failures)")
        #expect(engine.intermediateCache.linksReused >= 1, "the intermediate was not warm")
    }

    /// A warm intermediate's malformed policy extension is remembered as malformed: every evaluation refuses it.
    @Test func aWarmIntermediatesMalformedPolicyExtensionRefusesEachTime() async {
        let ca = pki.root.intermediate("Malformed CA", extra: [Certificate.Extension(oid: [2, 5, 29, 32], critical: false, value: [0x30, 0x00])])
        let engine = TrustEngine()
        for _ in 0..<2 {
            let verdict = await engine.evaluate(PKI.trust([ca.leaf(), ca], anchors: [pki.root], policy: PKI.ssl("www.example.com")))
            #expect(verdict.codes == [.malformedCertificate], "\(verdict.failures)")
            #expect(verdict.failures.first?.certificate == 1)
        }
        #expect(engine.intermediateCache.count == 1)
    }

    /// The intermediate's own rules run again: its expiry refuses a leaf that a remembered link would otherwise admit.
    @Test func anIntermediateThatHasExpiredIsRefusedThoughWarm() async {
        let short = pki.root.intermediate("Short-lived CA", notValidAfter: PKI.now.addingTimeInterval(86400))
        let engine = TrustEngine()
        let first = await engine.evaluate(PKI.trust([short.leaf(), short], anchors: [pki.root]))
        #expect(first.isTrusted, "\(first.failures)")
        let later = await engine.evaluate(PKI.trust([short.leaf(), short], anchors: [pki.root], at: PKI.now.addingTimeInterval(2 * 86400)))
        #expect(later.failure(.expired)?.certificate == 1, "\(later.failures)")
    }

    @Test func revocationIsCheckedEveryTime() async throws {
        let engine = TrustEngine()
        await warm(engine)
        let revokedLeaf = pki.intermediate.leaf()
        var builder = CRLBuilder(issuer: pki.intermediate)
        builder.entries = [.revoking(revokedLeaf, reason: 1)]
        var policy = PKI.ssl("www.example.com")
        policy.revocation = RevocationOptions(mode: .soft, crls: [try CertificateRevocationList(bytes: try builder.signed(by: pki.intermediate.key))])
        let verdict = await engine.evaluate(trust(revokedLeaf, policy: policy))
        #expect(verdict.codes == [.revoked], "\(verdict.failures)")
        #expect(engine.intermediateCache.linksReused == 1)
    }

    @Test func certificateTransparencyIsCheckedEveryTime() async throws {
        let ct = try CTTestPKI()
        let logs = (0..<3).map { TestCTLog(name: "Warm Log \($0)") }
        let engine = TrustEngine()
        let logged = try await ct.evaluate(ct.ca.leafWithSCTs(Array(logs.prefix(2))), logs: logs, engine: engine)
        #expect(logged.isTrusted, "\(logged.failures)")
        let bare = try await ct.evaluate(ct.ca.leafWithSCTs([]), logs: logs, engine: engine)
        #expect(bare.codes == [.certificateTransparency], "\(bare.failures)")
        #expect(engine.intermediateCache.linksReused == 1)
    }

    /// Another anchor set shares nothing: the link is verified again, and without the root the chain is refused.
    @Test func anotherAnchorSetSharesNothing() async {
        let engine = TrustEngine()
        await warm(engine)
        let otherRoot = PKI.root(key: .p256())
        let wider = await engine.evaluate(trust(pki.intermediate.leaf(), anchors: [pki.root, otherRoot]))
        #expect(wider.isTrusted, "\(wider.failures)")
        #expect(engine.intermediateCache.linksReused == 0)
        #expect(engine.intermediateCache.count == 2)
        let without = await engine.evaluate(trust(pki.intermediate.leaf(), anchors: [otherRoot]))
        #expect(!without.isTrusted)
    }

    @Test func theMemoryIsBounded() throws {
        let cache = IntermediateCache(capacity: 4)
        for i in 0..<20 {
            let input = try cache.intermediate(der: pki.root.intermediate("CA \(i)").der, anchors: [1]).input
            #expect(input.certificate != nil)
        }
        #expect(cache.count <= 4)
        #expect(cache.count > 0)
    }

    @Test func anEngineWithoutACacheRemembersNoIntermediate() async {
        let engine = TrustEngine(cacheCapacity: 0)
        for _ in 0..<2 { #expect(await engine.evaluate(trust(pki.intermediate.leaf())).isTrusted) }
        #expect(engine.intermediateCache.count == 0)
        #expect(engine.intermediateCache.linksReused == 0)
    }
}
