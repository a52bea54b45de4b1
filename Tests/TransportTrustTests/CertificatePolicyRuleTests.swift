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

        // Its inhibitAnyPolicy counts from the first certificate below it.
        let inhibitingRoot = PKI.root("Inhibiting Root", extra: [P.inhibitAny(0), P.mappings([(P.oid(1), P.oid(2))])])
        let anyCA = inhibitingRoot.intermediate("Any CA", extra: [P.policies([P.anyPolicy])])
        let anyLeaf = anyCA.leaf(extra: [P.policies([P.oid(1)])])
        let inhibited = await evaluate([anyLeaf, anyCA], anchor: inhibitingRoot, Self.explicit())
        #expect(inhibited.codes == [.certificatePolicy])
        #expect(inhibited.failures.first?.message.contains("anyPolicy is inhibited by the anchor \(inhibitingRoot.label) (inhibitAnyPolicy)") == true,
                "\(inhibited.failures)")
        // Its policyMappings carry the acceptable oid(1), in its domain, to oid(2) below it (RFC 5937): a path valid
        // only for the oid(1) of the domain below is not acceptable, one valid for oid(2) is.
        let policyCA = inhibitingRoot.intermediate("Policy CA", extra: [P.policies([P.oid(1)])])
        let policyLeaf = policyCA.leaf(extra: [P.policies([P.oid(1)])])
        let unmapped = await evaluate([policyLeaf, policyCA], anchor: inhibitingRoot, Self.explicit([P.oid(1)]))
        #expect(unmapped.codes == [.certificatePolicy], "\(unmapped.failures)")
        #expect(unmapped.failures.first?.message.contains("as mapped by the anchor's own policyMappings") == true, "\(unmapped.failures)")
        let mappedCA = inhibitingRoot.intermediate("Mapped CA", extra: [P.policies([P.oid(2)])])
        let mappedLeaf = mappedCA.leaf(extra: [P.policies([P.oid(2)])])
        #expect(await evaluate([mappedLeaf, mappedCA], anchor: inhibitingRoot, Self.explicit([P.oid(1)])).isTrusted)
    }

    /// An anchor with policyMappings, its constraints enforced (RFC 5937): its own policy extensions apply, mappings
    /// included. The first shape was a false accept under the Web PKI profile (issue #40).
    @Test func theAnchorsPolicyMappingsApply() async {
        let mappingRoot = PKI.root("Mapping Root", extra: [P.policies([P.oid(1)]), P.mappings([(P.oid(1), P.oid(2))])])
        let ca = mappingRoot.intermediate("CA Below Mapping Root", extra: [P.policies([P.oid(1)])])
        let leaf = ca.leaf(extra: [P.policies([P.oid(1)])])
        for profile in TrustPolicy.Profile.allCases {
            var policy = PKI.ssl("www.example.com")
            policy.profile = profile
            let v = await evaluate([leaf, ca], anchor: mappingRoot, Self.explicit(), policy: policy)
            #expect(v.codes == [.certificatePolicy], "\(profile): \(v.failures)")
            #expect(v.failures.first?.certificate == 0)
        }
        // With policy mapping inhibited, the mapped policy is dropped at the anchor: nothing is acceptable below it.
        let mappedCA = mappingRoot.intermediate("Mapped CA", extra: [P.policies([P.oid(2)])])
        let mappedLeaf = mappedCA.leaf(extra: [P.policies([P.oid(2)])])
        #expect(await evaluate([mappedLeaf, mappedCA], anchor: mappingRoot, Self.explicit()).isTrusted)
        let inhibited = await evaluate([mappedLeaf, mappedCA], anchor: mappingRoot, Self.explicit(inhibitMapping: true))
        #expect(inhibited.codes == [.certificatePolicy], "\(inhibited.failures)")
        #expect(inhibited.failures.first?.message.contains("acceptable (no policy") == true, "\(inhibited.failures)")
        // An anchor that maps anyPolicy is refused, as an intermediate that does.
        let anyRoot = PKI.root("Any Mapping Root", extra: [P.mappings([(P.anyPolicy, P.oid(2))])])
        let anyCA = anyRoot.intermediate("CA Below Any Mapping Root")
        let any = await evaluate([anyCA.leaf(), anyCA], anchor: anyRoot)
        #expect(any.codes == [.certificatePolicy], "\(any.failures)")
        #expect(any.failures.first?.message.contains("the anchor \(anyRoot.label) maps anyPolicy") == true, "\(any.failures)")
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
