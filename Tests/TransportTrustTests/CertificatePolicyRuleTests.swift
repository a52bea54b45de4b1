import Foundation
import SwiftASN1
import TestSupport
import Testing
import X509
@testable import TransportTrust

/// RFC 5280 §6.1 certificate policy processing, through the engine under the basic policy unless said otherwise.
@Suite struct CertificatePolicyRuleTests {
    typealias P = PolicyExtension
    let root = PKI.root()

    func evaluate(_ chain: [TestCert], anchor: TestCert? = nil, _ options: CertificatePolicyOptions = CertificatePolicyOptions(),
                  policy base: TrustPolicy = .basicX509) async -> TrustVerdict {
        var policy = base
        policy.certificatePolicies = options
        return await PKI.evaluate(PKI.trust(chain, anchors: [anchor ?? root], policy: policy))
    }

    static func explicit(_ acceptable: [ASN1ObjectIdentifier] = [P.anyPolicy], inhibitMapping: Bool = false, inhibitAny: Bool = false) -> CertificatePolicyOptions {
        CertificatePolicyOptions(acceptablePolicies: Set(acceptable), requireExplicitPolicy: true,
                                 inhibitPolicyMapping: inhibitMapping, inhibitAnyPolicy: inhibitAny)
    }

    @Test func aRequireExplicitPolicyWithNoPoliciesBelowIsRefused() async {
        let ca = root.intermediate("Explicit CA", extra: [P.constraints(requireExplicit: 0)])
        for base in [TrustPolicy.basicX509, PKI.ssl("www.example.com")] {
            let v = await evaluate([ca.leaf(), ca], policy: base)
            #expect(v.codes == [.certificatePolicy], "\(v.failures)")
            #expect(v.failures.first?.certificate == 1)
            #expect(v.failures.first?.message.contains("\(ca.label) requires an explicit policy") == true, "\(v.failures)")
            #expect(v.failures.first?.message.contains("has no certificatePolicies extension") == true)
        }
    }

    @Test func criticalPolicyExtensionsOnAValidChainAreHandled() async {
        let ca = root.intermediate("Policy CA", extra: [P.policies([P.oid(1)], critical: true), P.constraints(requireExplicit: 0, inhibitMapping: 1),
                                                       P.inhibitAny(0), P.mappings([(P.oid(1), P.oid(2))])])
        let leaf = ca.leaf(extra: [P.policies([P.oid(2)], critical: true)])
        for profile in TrustPolicy.Profile.allCases {
            var policy = PKI.ssl("www.example.com")
            policy.profile = profile
            let v = await evaluate([leaf, ca], policy: policy)
            #expect(v.isTrusted, "\(profile): \(v.failures)")
        }
    }

    @Test func theAcceptableSetIsInTheAnchorsDomain() async {
        let ca = root.intermediate("Mapping CA", extra: [P.policies([P.oid(1)]), P.mappings([(P.oid(1), P.oid(2))])])
        let leaf = ca.leaf(extra: [P.policies([P.oid(2)])])
        #expect(await evaluate([leaf, ca], Self.explicit([P.oid(1)])).isTrusted)
        let other = await evaluate([leaf, ca], Self.explicit([P.oid(2)]))
        #expect(other.codes == [.certificatePolicy])
        #expect(other.failures.first?.certificate == 0)
        #expect(other.failures.first?.message.contains("is valid for \(P.oid(1)), and none of them is acceptable (\(P.oid(2)))") == true, "\(other.failures)")
        // Without an explicit policy required, the acceptable set does not refuse.
        #expect(await evaluate([leaf, ca], CertificatePolicyOptions(acceptablePolicies: [P.oid(3)])).isTrusted)
    }

    @Test func inhibitedMappingDeletesTheMappedPolicy() async {
        let ca = root.intermediate("Mapping CA", extra: [P.policies([P.oid(1)]), P.mappings([(P.oid(1), P.oid(2))])])
        let leaf = ca.leaf(extra: [P.policies([P.oid(2)])])
        let v = await evaluate([leaf, ca], Self.explicit(inhibitMapping: true))
        #expect(v.codes == [.certificatePolicy])
        #expect(v.failures.first?.message.contains("policy mapping is inhibited by the verification options") == true, "\(v.failures)")
    }

    @Test func mappingAnyPolicyIsRefusedWhateverTheInputs() async {
        let ca = root.intermediate("Any Mapping CA", extra: [P.policies([P.oid(1)]), P.mappings([(P.anyPolicy, P.oid(2))])])
        let v = await evaluate([ca.leaf(extra: [P.policies([P.oid(2)])]), ca])
        #expect(v.codes == [.certificatePolicy])
        #expect(v.failures.first?.certificate == 1)
        #expect(v.failures.first?.message.contains("maps anyPolicy") == true)
    }

    @Test func inhibitAnyPolicyStopsAnyPolicyStandingForOthers() async {
        let ca = root.intermediate("Any CA", extra: [P.policies([P.anyPolicy])])
        let leaf = ca.leaf(extra: [P.policies([P.oid(1)])])
        #expect(await evaluate([leaf, ca], Self.explicit()).isTrusted)
        let v = await evaluate([leaf, ca], Self.explicit(inhibitAny: true))
        #expect(v.codes == [.certificatePolicy])
        #expect(v.failures.first?.certificate == 1)
        #expect(v.failures.first?.message.contains("anyPolicy is inhibited by the verification options") == true, "\(v.failures)")
        // A self-issued intermediate's anyPolicy still counts (§6.1.3 (d) (2)).
        let rollover = PKI.issue(subject: root.subject, key: .p256(), issuer: root, extensions: [
            try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
            try! Certificate.Extension(KeyUsage(keyCertSign: true), critical: true), P.policies([P.anyPolicy]),
        ])
        let below = rollover.intermediate("Below Rollover", extra: [P.policies([P.oid(1)])])
        let v2 = await evaluate([below.leaf(extra: [P.policies([P.oid(1)])]), below, rollover], Self.explicit(inhibitAny: true))
        #expect(v2.isTrusted, "\(v2.failures)")
    }

    @Test func theAnchorsOwnConstraintsApply() async {
        let strictRoot = PKI.root("Explicit Root", extra: [P.constraints(requireExplicit: 0)])
        let ca = strictRoot.intermediate("CA")
        let v = await evaluate([ca.leaf(), ca], anchor: strictRoot)
        #expect(v.codes == [.certificatePolicy])
        #expect(v.failures.first?.message.contains("the anchor \(strictRoot.label) requires an explicit policy") == true, "\(v.failures)")

        let narrowRoot = PKI.root("Narrow Root", extra: [P.policies([P.oid(1)])])
        let narrowCA = narrowRoot.intermediate("Narrow CA", extra: [P.policies([P.oid(2)])])
        let narrowLeaf = narrowCA.leaf(extra: [P.policies([P.oid(2)])])
        let refused = await evaluate([narrowLeaf, narrowCA], anchor: narrowRoot, Self.explicit())
        #expect(refused.codes == [.certificatePolicy])
        #expect(refused.failures.first?.message.contains("narrowed by the anchor") == true, "\(refused.failures)")
        // The anchor's policies decide nothing when no explicit policy is required.
        #expect(await evaluate([narrowLeaf, narrowCA], anchor: narrowRoot).isTrusted)

        // Its inhibitAnyPolicy counts from the first certificate below it; its mapping leaves anyPolicy, which it
        // asserts by having no certificatePolicies, valid for oid(1).
        let inhibitingRoot = PKI.root("Inhibiting Root", extra: [P.inhibitAny(0), P.mappings([(P.oid(1), P.oid(2))])])
        let anyCA = inhibitingRoot.intermediate("Any CA", extra: [P.policies([P.anyPolicy])])
        let anyLeaf = anyCA.leaf(extra: [P.policies([P.oid(1)])])
        let inhibited = await evaluate([anyLeaf, anyCA], anchor: inhibitingRoot, Self.explicit())
        #expect(inhibited.codes == [.certificatePolicy])
        #expect(inhibited.failures.first?.message.contains("anyPolicy is inhibited by the anchor \(inhibitingRoot.label) (inhibitAnyPolicy)") == true,
                "\(inhibited.failures)")
        let policyCA = inhibitingRoot.intermediate("Policy CA", extra: [P.policies([P.oid(1)])])
        let policyLeaf = policyCA.leaf(extra: [P.policies([P.oid(1)])])
        #expect(await evaluate([policyLeaf, policyCA], anchor: inhibitingRoot, Self.explicit([P.oid(1)])).isTrusted)
    }

    /// RFC 5937: the anchor's policyMappings apply with its other policy extensions. The policy it maps away is not
    /// valid below it, so a path that asserts it was trusted under an explicit policy before they applied.
    @Test func theAnchorsOwnPolicyMappingsApply() async {
        let mappingRoot = PKI.root("Mapping Root", extra: [P.policies([P.oid(1)]), P.mappings([(P.oid(1), P.oid(2))])])
        for profile in TrustPolicy.Profile.allCases {
            var policy = PKI.ssl("www.example.com")
            policy.profile = profile
            let unmappedCA = mappingRoot.intermediate("Unmapped CA", extra: [P.policies([P.oid(1)])])
            let refused = await evaluate([unmappedCA.leaf(extra: [P.policies([P.oid(1)])]), unmappedCA], anchor: mappingRoot, Self.explicit(), policy: policy)
            #expect(refused.codes == [.certificatePolicy], "\(profile): \(refused.failures)")
            #expect(refused.failures.first?.certificate == 1)
            #expect(refused.failures.first?.message.contains("none of which its issuers allow (they allow \(P.oid(2)))") == true, "\(refused.failures)")
            // The mapped policy is valid below it, in the anchor's domain.
            let mappedCA = mappingRoot.intermediate("Mapped CA", extra: [P.policies([P.oid(2)])])
            let mappedLeaf = mappedCA.leaf(extra: [P.policies([P.oid(2)])])
            let trusted = await evaluate([mappedLeaf, mappedCA], anchor: mappingRoot, Self.explicit([P.oid(1)]), policy: policy)
            #expect(trusted.isTrusted, "\(profile): \(trusted.failures)")
            // Without an explicit policy required, no policy decides.
            #expect(await evaluate([unmappedCA.leaf(extra: [P.policies([P.oid(1)])]), unmappedCA], anchor: mappingRoot, policy: policy).isTrusted)
        }
        // Mapping inhibited by the options deletes the anchor's mapped policy.
        let mappedCA = mappingRoot.intermediate("Mapped CA", extra: [P.policies([P.oid(2)])])
        let inhibited = await evaluate([mappedCA.leaf(extra: [P.policies([P.oid(2)])]), mappedCA], anchor: mappingRoot, Self.explicit(inhibitMapping: true))
        #expect(inhibited.codes == [.certificatePolicy])
        #expect(inhibited.failures.first?.certificate == 2)
        #expect(inhibited.failures.first?.message.contains("the anchor \(mappingRoot.label) maps \(P.oid(1)), and policy mapping is inhibited by the verification options") == true,
                "\(inhibited.failures)")
        // A policy the anchor maps to is, below it, the anchor's policy it maps from: with only oid(3) acceptable and the
        // anchor mapping oid(1) to oid(3), a path asserting oid(3) is valid for the anchor's oid(1), not acceptable.
        let intoRoot = PKI.root("Into Root", extra: [P.mappings([(P.oid(1), P.oid(3))])])
        let intoCA = intoRoot.intermediate("Into CA", extra: [P.policies([P.oid(3)])])
        let into = await evaluate([intoCA.leaf(extra: [P.policies([P.oid(3)])]), intoCA], anchor: intoRoot, Self.explicit([P.oid(3)]))
        #expect(into.codes == [.certificatePolicy], "\(into.failures)")
        #expect(await evaluate([intoCA.leaf(extra: [P.policies([P.oid(3)])]), intoCA], anchor: intoRoot, Self.explicit([P.oid(1)])).isTrusted)
        // An anchor that maps anyPolicy is refused, as an intermediate is (§6.1.4 (a)).
        let anyRoot = PKI.root("Any Mapping Root", extra: [P.mappings([(P.anyPolicy, P.oid(2))])])
        let anyCA = anyRoot.intermediate("CA", extra: [P.policies([P.oid(2)])])
        let anyMapped = await evaluate([anyCA.leaf(extra: [P.policies([P.oid(2)])]), anyCA], anchor: anyRoot)
        #expect(anyMapped.codes == [.certificatePolicy])
        #expect(anyMapped.failures.first?.certificate == 2)
        #expect(anyMapped.failures.first?.message.contains("maps anyPolicy") == true)
    }

    @Test(arguments: [
        ("certificatePolicies", Certificate.Extension(oid: [2, 5, 29, 32], critical: false, value: [0x30, 0x00])),
        ("certificatePolicies", Certificate.Extension(oid: [2, 5, 29, 32], critical: false, value: [0x04, 0x01, 0x00])),
        ("certificatePolicies", PolicyExtension.policies([PolicyExtension.oid(1), PolicyExtension.oid(1)])),
        ("policyMappings", Certificate.Extension(oid: [2, 5, 29, 33], critical: true, value: [0x30, 0x00])),
        ("policyConstraints", Certificate.Extension(oid: [2, 5, 29, 36], critical: true, value: [0x30, 0x00])),
        ("policyConstraints", Certificate.Extension(oid: [2, 5, 29, 36], critical: true, value: [0x30, 0x03, 0x80, 0x01, 0xff])),
        ("inhibitAnyPolicy", Certificate.Extension(oid: [2, 5, 29, 54], critical: true, value: [0x02, 0x02, 0x00, 0x01])),
        ("inhibitAnyPolicy", Certificate.Extension(oid: [2, 5, 29, 54], critical: true, value: [0x02, 0x01, 0x00, 0x00])),
    ])
    func aMalformedExtensionNamesItself(name: String, ext: Certificate.Extension) async {
        let ca = root.intermediate("Malformed CA", extra: [ext])
        let v = await evaluate([ca.leaf(), ca])
        #expect(v.codes == [.malformedCertificate], "\(v.failures)")
        #expect(v.failures.first?.certificate == 1)
        #expect(v.failures.first?.message.contains("malformed \(name) extension") == true, "\(v.failures)")
    }

    @Test func largeSkipCertsAreClampedNotRefused() throws {
        let node = try DER.parse([0x02, 0x09, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        #expect(try PolicyExtensions.skipCerts(node) == PolicyExtensions.skipCertsCeiling)
    }

    /// CVE-2023-0464's shape: six CAs, each asserting 40 policies and mapping every one to all 40. As a tree that is
    /// 40^6 nodes; as a graph, about 10,000 entries.
    static func mappingBomb(root: TestCert, width: Int = 40, depth: Int = 6) -> [TestCert] {
        let oids = (0..<width).map(P.oid)
        let pairs = oids.flatMap { a in oids.map { b in (a, b) } }
        var issuer = root
        var cas: [TestCert] = []
        for d in 0..<depth {
            let ca = issuer.intermediate("Bomb CA \(d)", extra: [P.policies(oids), P.mappings(pairs, critical: false)])
            cas.insert(ca, at: 0)
            issuer = ca
        }
        return [issuer.leaf(extra: [P.policies(oids)])] + cas
    }

    @Test func aPolicyMappingBombEndsQuicklyWithAReason() async throws {
        let chain = Self.mappingBomb(root: root)
        let options = Self.explicit([P.oid(999)])
        let v = try #require(await bounded(.seconds(60)) { await evaluate(chain, options) })
        #expect(v.codes == [.certificatePolicy], "\(v.failures)")
        #expect(v.failures.first?.message.contains("none of them is acceptable (\(P.oid(999)))") == true, "\(v.failures)")
        let trusted = try #require(await bounded(.seconds(60)) { await evaluate(chain, Self.explicit([P.oid(7)])) })
        #expect(trusted.isTrusted, "\(trusted.failures)")
    }

    @Test func policyWorkBeyondTheBudgetIsRefused() throws {
        let chain = Self.mappingBomb(root: root, width: 20, depth: 3)
        let path = try #require(UnverifiedCertificateChain.assembled(chain.map(\.certificate) + [root.certificate]))
        var failures: [TrustFailure] = []
        let rule = CertificatePolicyRule(options: Self.explicit(), budget: 1_000)
        rule.check(path, context: RuleContext(validationTime: PKI.now, anchorIsSystem: false), into: &failures)
        #expect(failures.map(\.code) == [.certificatePolicy])
        #expect(failures.first?.message.contains("denial-of-service guard") == true, "\(failures)")
        failures = []
        CertificatePolicyRule(options: Self.explicit()).check(path, context: RuleContext(validationTime: PKI.now, anchorIsSystem: false), into: &failures)
        #expect(failures.isEmpty, "\(failures)")
    }
}
