import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

/// The validated-path cache, through a ``TrustEngine`` of its own: a repeat evaluation gives the same verdict,
/// and time, host and policy are checked again on the cached path.
@Suite struct ValidatedPathCacheTests {
    let pki = PKI.chain()

    func trust(host: String = "www.example.com", at time: Date = PKI.now, anchors: [TestCert]? = nil, policy: TrustPolicy? = nil) -> ServerTrust {
        PKI.trust([pki.leaf, pki.intermediate], anchors: anchors ?? [pki.root], policy: policy ?? PKI.ssl(host), at: time)
    }

    @Test func aRepeatEvaluationGivesTheSameVerdict() async {
        let engine = TrustEngine()
        let first = await engine.evaluate(trust())
        #expect(first.isTrusted)
        #expect(engine.rememberedPaths == 1)
        let second = await engine.evaluate(trust())
        #expect(second.isTrusted)
        #expect(second.anchor == first.anchor)
        #expect(second.chainDER == first.chainDER)
        #expect(second.chainDER == [pki.leaf.der, pki.intermediate.der, pki.root.der])
        #expect(engine.rememberedPaths == 1)
    }

    /// A CRL signed by a CRL signer the peer sent beside the path: the remembered path is checked again with the same
    /// signers a full search offers, so the second evaluation is the first's (review-rev F5: it lost them, and a good
    /// chain passed once and then failed hard-fail; soft-fail trusted a revoked leaf).
    @Test func revocationOnARememberedPathSeesTheSameCRLSigners() async throws {
        let signer = PKI.issue(subject: pki.intermediate.subject, key: .p256(), issuer: pki.intermediate,
                               extensions: [try Certificate.Extension(KeyUsage(cRLSign: true), critical: true)])
        func crl(_ issuer: TestCert, signer key: TestKey, revoking: TestCert? = nil) throws -> CertificateRevocationList {
            var builder = CRLBuilder(issuer: issuer)
            if let revoking { builder.entries = [.revoking(revoking, reason: 1)] }
            return try CertificateRevocationList(bytes: try builder.signed(by: key))
        }
        let rootCRL = try crl(pki.root, signer: pki.root.key), intermediateCRL = try crl(pki.intermediate, signer: pki.intermediate.key)
        func evaluate(_ engine: TrustEngine, _ mode: RevocationOptions.Mode, _ crls: [CertificateRevocationList]) async -> TrustVerdict {
            var policy = PKI.ssl("www.example.com")
            policy.revocation = RevocationOptions(mode: mode, crls: crls + [rootCRL])
            return await engine.evaluate(PKI.trust([pki.leaf, pki.intermediate, signer], anchors: [pki.root], policy: policy))
        }
        let engine = TrustEngine()
        let empty = try crl(pki.intermediate, signer: signer.key)
        for round in 1...2 {
            let v = await evaluate(engine, .hard, [empty])
            #expect(v.isTrusted, "round \(round): \(v.failures)")
        }
        let other = TrustEngine()
        #expect(await evaluate(other, .soft, [intermediateCRL]).isTrusted, "no CRL about the leaf yet")
        let listing = try crl(pki.intermediate, signer: signer.key, revoking: pki.leaf)
        #expect(await evaluate(other, .soft, [intermediateCRL, listing]).codes == [.revoked])
    }

    /// A policy is remembered only on the path it was checked on: when another evaluation of the same input stored
    /// another path under the key meanwhile, recording it there would let that path answer for a policy it never ran
    /// (review-anchor F1: two paths through intermediates that share a key, one on a distrust list).
    @Test func aPolicyIsRememberedOnlyOnThePathItWasCheckedOn() throws {
        let cache = ValidatedPathCache(capacity: 8)
        let key = ValidatedPathCache.Key(presented: [pki.leaf.der], extra: [], anchors: [1])
        let other = pki.root.intermediate("Test Intermediate CA", key: pki.intermediate.key)
        let first = try #require(UnverifiedCertificateChain.assembled([pki.leaf.certificate, pki.intermediate.certificate, pki.root.certificate]))
        let second = try #require(UnverifiedCertificateChain.assembled([pki.leaf.certificate, other.certificate, pki.root.certificate]))
        let fingerprint = try #require(RuleFingerprint(PKI.ssl("www.example.com")))
        cache.insert(key, path: [pki.leaf.input, pki.intermediate.input, pki.root.input], chain: first, anchorIsCustom: true,
                     anchorIsPublic: false, passed: nil)
        let checked = try #require(cache.lookup(key))
        // Meanwhile another evaluation stores its own path under the same key.
        cache.insert(key, path: [pki.leaf.input, other.input, pki.root.input], chain: second, anchorIsCustom: true,
                     anchorIsPublic: false, passed: nil)
        cache.remember(fingerprint, for: key, generation: checked.generation)
        #expect(cache.lookup(key)?.passed.isEmpty == true, "recorded on a path its rules never ran on")
        let current = try #require(cache.lookup(key))
        cache.remember(fingerprint, for: key, generation: current.generation)
        #expect(cache.lookup(key)?.passed == [fingerprint])
    }

    @Test func onlyTrustedPathsAreRemembered() async {
        let engine = TrustEngine()
        _ = await engine.evaluate(trust(host: "other.example.com"))
        #expect(engine.rememberedPaths == 0)
        _ = await engine.evaluate(PKI.trust([pki.leaf], anchors: [pki.root]))
        #expect(engine.rememberedPaths == 0)
    }

    @Test func theCachedPathIsCheckedAgainAtALaterTime() async {
        let engine = TrustEngine()
        #expect(await engine.evaluate(trust()).isTrusted)
        let expired = await engine.evaluate(trust(at: PKI.notAfter.addingTimeInterval(60)))
        #expect(!expired.isTrusted)
        #expect(expired.codes.contains(.expired))
        #expect(expired.failures.first?.certificate == 0)
        let early = await engine.evaluate(trust(at: PKI.notBefore.addingTimeInterval(-60)))
        #expect(early.codes.contains(.notYetValid))
        // And still trusted at a good time afterwards.
        #expect(await engine.evaluate(trust()).isTrusted)
    }

    @Test func underAPolicyAlreadyPassedOnlyTheTimeIsCheckedAgainstTheWholePathsWindow() async {
        // The intermediate ends first and the leaf starts last: the path is valid only where all three are.
        let root = PKI.root()
        let intermediateEnds = PKI.now.addingTimeInterval(10 * 86400)
        let leafStarts = PKI.now.addingTimeInterval(-86400)
        let intermediate = root.intermediate("Short CA", notValidAfter: intermediateEnds)
        let leaf = intermediate.leaf(notValidBefore: leafStarts)
        func at(_ time: Date) -> ServerTrust { PKI.trust([leaf, intermediate], anchors: [root], policy: PKI.ssl("www.example.com"), at: time) }
        let engine = TrustEngine()
        #expect(await engine.evaluate(at(PKI.now)).isTrusted)
        // Both ends inclusive, at whole seconds, as ValidityRule.
        #expect(await engine.evaluate(at(intermediateEnds.addingTimeInterval(0.9))).isTrusted)
        #expect(await engine.evaluate(at(leafStarts)).isTrusted)
        let late = await engine.evaluate(at(intermediateEnds.addingTimeInterval(1)))
        #expect(late.codes == [.expired])
        #expect(late.failures.first?.certificate == 1)
        let early = await engine.evaluate(at(leafStarts.addingTimeInterval(-1)))
        #expect(early.codes == [.notYetValid])
        #expect(early.failures.first?.certificate == 0)
        #expect(await engine.evaluate(at(PKI.now)).isTrusted)
    }

    @Test func aPolicyPassedOnTheCachedPathIsRememberedAndOneThatFailedIsNot() async {
        let engine = TrustEngine()
        let key = ValidatedPathCache.Key(presented: [pki.leaf.der, pki.intermediate.der], extra: [], anchors: PKI.anchors(pki.root).identity)
        #expect(await engine.evaluate(trust()).isTrusted)
        #expect(engine.cache.lookup(key)?.passed.count == 1)
        #expect(await engine.evaluate(trust(host: "mail.example.com")).codes == [.hostnameMismatch])
        #expect(engine.cache.lookup(key)?.passed.count == 1, "a policy that failed was remembered")
        var strict = PKI.ssl("www.example.com")
        strict.profile = .webPKI
        #expect(await engine.evaluate(trust(policy: strict)).isTrusted)
        #expect(engine.cache.lookup(key)?.passed.count == 2)
        var hard = PKI.ssl("www.example.com")
        hard.revocation = RevocationOptions(mode: .hard)
        #expect(await engine.evaluate(trust(policy: hard)).isTrusted)
        #expect(engine.cache.lookup(key)?.passed.count == 2, "a revocation policy is never answered from memory")
    }

    @Test func theCachedPathIsCheckedAgainForAnotherHost() async {
        let engine = TrustEngine()
        #expect(await engine.evaluate(trust()).isTrusted)
        let other = await engine.evaluate(trust(host: "mail.example.com"))
        #expect(other.codes == [.hostnameMismatch])
        #expect(other.failures[0].message.contains("mail.example.com"))
        #expect(await engine.evaluate(trust(host: "WWW.example.com")).isTrusted)
    }

    @Test func theCachedPathIsCheckedAgainUnderAnotherPolicy() async {
        let engine = TrustEngine()
        #expect(await engine.evaluate(trust()).isTrusted)
        var clientOnly = TrustPolicy.basicX509
        clientOnly.requiredExtendedKeyUsages = [.clientAuth]
        #expect(await engine.evaluate(trust(policy: clientOnly)).codes == [.extendedKeyUsage])
        var shallow = PKI.ssl("www.example.com")
        shallow.maximumIntermediates = 0
        #expect(await engine.evaluate(trust(policy: shallow)).codes == [.chainTooLong])
        var hard = PKI.ssl("www.example.com")
        hard.revocation = RevocationOptions(mode: .hard)
        // No responder named, so hard-fail has nothing to ask: still trusted, from the cache.
        #expect(await engine.evaluate(trust(policy: hard)).isTrusted)
    }

    @Test func anotherAnchorSetIsAnotherEntry() async {
        let engine = TrustEngine()
        #expect(await engine.evaluate(trust()).isTrusted)
        let stranger = await engine.evaluate(trust(anchors: [PKI.root("Stranger Root")]))
        #expect(!stranger.isTrusted)
        #expect(stranger.codes == [.unknownIssuer])
        #expect(engine.rememberedPaths == 1)
    }

    @Test func aCachedPathDoesNotBypassCriticalExtensionsTheNewPolicyDoesNotProcess() async throws {
        // A critical extendedKeyUsage is processed under the SSL policy (ExtendedKeyUsageRule) and by nothing under
        // the basic policy without required purposes.
        let eku = try Certificate.Extension(ExtendedKeyUsage([.serverAuth]), critical: true)
        let root = PKI.root()
        let intermediate = root.intermediate("Purpose CA", extra: [eku])
        let leaf = intermediate.leaf()
        let ssl = PKI.ssl("www.example.com")
        let basic = TrustPolicy.basicX509

        let cold = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: basic))
        #expect(cold.codes == [.unhandledCriticalExtension])

        let engine = TrustEngine()
        let first = await engine.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: ssl))
        #expect(first.isTrusted, "\(first.failures)")
        let cached = await engine.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: basic))
        #expect(cached.codes == cold.codes)
        #expect(cached.failures.first?.certificate == 1)
    }

    @Test func memoryIsBoundedByTheCapacity() async {
        let engine = TrustEngine(cacheCapacity: 4)
        let root = PKI.root()
        for i in 0..<10 {
            let leaf = root.leaf("leaf \(i)")
            #expect(await engine.evaluate(PKI.trust([leaf], anchors: [root])).isTrusted)
            #expect(engine.rememberedPaths <= 4)
        }
        #expect(engine.rememberedPaths > 0)
        #expect(TrustEngine(cacheCapacity: 0).rememberedPaths == 0)
        let none = TrustEngine(cacheCapacity: 0)
        _ = await none.evaluate(trust())
        #expect(none.rememberedPaths == 0)
    }

    @Test func theMostRecentlyUsedPathSurvivesEviction() async {
        let engine = TrustEngine(cacheCapacity: 4)
        let root = PKI.root()
        let kept = root.leaf("kept")
        #expect(await engine.evaluate(PKI.trust([kept], anchors: [root])).isTrusted)
        for i in 0..<12 {
            // Touch the kept path between inserts so that it is always the most recent.
            #expect(await engine.evaluate(PKI.trust([kept], anchors: [root])).isTrusted)
            #expect(await engine.evaluate(PKI.trust([root.leaf("filler \(i)")], anchors: [root])).isTrusted)
        }
        let count = engine.rememberedPaths
        _ = await engine.evaluate(PKI.trust([kept], anchors: [root]))
        #expect(engine.rememberedPaths == count, "the kept path was evicted and inserted again")
    }

    @Test func theCacheKeyIsTheExactDERPresented() async {
        let engine = TrustEngine()
        #expect(await engine.evaluate(trust()).isTrusted)
        // The same certificates with the root appended are another key, and still trusted.
        let withRoot = PKI.trust([pki.leaf, pki.intermediate, pki.root], anchors: [pki.root])
        #expect(await engine.evaluate(withRoot).isTrusted)
        #expect(engine.rememberedPaths == 2)
        let key1 = ValidatedPathCache.Key(presented: [pki.leaf.der], extra: [pki.intermediate.der], anchors: [1])
        let key2 = ValidatedPathCache.Key(presented: [pki.leaf.der, pki.intermediate.der], extra: [], anchors: [1])
        #expect(key1 != key2)
    }

    /// A field added to TrustPolicy must be keyed in RuleFingerprint, or listed with the reason it is not: otherwise a
    /// verdict remembered under one value would answer for another.
    @Test func everyTrustPolicyFieldIsKeyedOrDeliberatelyLeftOut() throws {
        let policy = TrustPolicy.ssl(host: nil)
        let fields = Set(Mirror(reflecting: policy).children.compactMap(\.label))
        let keyed = Set(Mirror(reflecting: try #require(RuleFingerprint(policy))).children.compactMap(\.label))
        let excluded = Set(RuleFingerprint.unkeyedPolicyFields.keys)
        #expect(fields.subtracting(excluded) == keyed, "keyed: \(keyed.sorted()), policy: \(fields.sorted())")
        #expect(excluded.isSubset(of: fields), "an exclusion names no field: \(excluded.subtracting(fields).sorted())")
        #expect(keyed.contains("platform"))
    }

    /// The same path under another platform runs that platform's rules: a lifetime iOS 12 accepts, iOS 26 refuses.
    @Test func aPathTrustedForOnePlatformIsCheckedAgainForAnother() async {
        let leaf = pki.intermediate.leaf(notValidBefore: PKI.notBefore, notValidAfter: PKI.notBefore.addingTimeInterval(900 * 86_400))
        func trust(_ platform: ApplePlatform) -> ServerTrust {
            var policy = PKI.ssl("www.example.com")
            policy.platform = platform
            return PKI.trust([leaf, pki.intermediate], anchors: [pki.root], policy: policy)
        }
        let engine = TrustEngine()
        #expect(await engine.evaluate(trust(ApplePlatform(.iOS, 12))).isTrusted)
        #expect(engine.rememberedPaths == 1)
        #expect(await engine.evaluate(trust(.newest)).codes == [.validityPeriodTooLong])
        #expect(await engine.evaluate(trust(ApplePlatform(.iOS, 12))).isTrusted)
    }
}
