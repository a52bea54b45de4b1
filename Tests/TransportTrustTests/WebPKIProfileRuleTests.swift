import SwiftASN1
import TestSupport
import Testing
import X509
@testable import TransportTrust

@Suite struct WebPKIProfileRuleTests {
    @Test(arguments: [
        ("0xC0A80101", "192.168.1.1"),
        ("192.168.001.001", "192.168.1.1"),
        ("2001:DB8::8A2E:370:7334", "2001:db8::8a2e:370:7334"),
        ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
        ("Example.COM", "example.com"),
        ("Bücher.Example", "xn--bcher-kva.example"),
        ("*.Example.COM", "*.example.com"),
    ])
    func canonicalHostFoldsLooseSpellings(cn: String, canonical: String) {
        #expect(WebPKIProfileRule.canonicalHost(cn) == canonical)
    }

    @Test func canonicalHostRejectsNonHosts() {
        #expect(WebPKIProfileRule.canonicalHost("My Server") == nil)
    }
}

/// The strict profile through the engine: opt-in, and each violation with its code and certificate.
@Suite struct WebPKIProfileRuleChainTests {
    let root = PKI.root()

    static var strict: TrustPolicy {
        var policy = PKI.ssl("www.example.com")
        policy.profile = .webPKI
        return policy
    }

    func evaluate(_ chain: [TestCert], policy: TrustPolicy = Self.strict) async -> TrustVerdict {
        await PKI.evaluate(PKI.trust(chain, anchors: [root], policy: policy))
    }

    static let leafExtensions = [
        try! Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
        try! Certificate.Extension(KeyUsage(digitalSignature: true), critical: true),
        try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: false),
        try! Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false),
    ]

    @Test func aConformingChainPasses() async {
        let ca = root.intermediate("Conforming CA")
        let v = await evaluate([ca.leaf("www.example.com"), ca])
        #expect(v.isTrusted, "\(v.failures)")
    }

    @Test func aCAWhoseBasicConstraintsAreNotCritical() async {
        let ca = PKI.issue(subject: PKI.name("Lax CA"), key: .p256(), issuer: root, extensions: [
            try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: false),
            try! Certificate.Extension(KeyUsage(keyCertSign: true), critical: true),
        ])
        let leaf = ca.leaf()
        let v = await evaluate([leaf, ca])
        #expect(v.codes == [.basicConstraints])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message.contains(ca.label))
        #expect(v.failures[0].message.contains("CA/B Forum profile"))
        // The standard profile (what SecTrust checks) does not mind.
        #expect(await evaluate([leaf, ca], policy: PKI.ssl("www.example.com")).isTrusted)
    }

    @Test func aLeafListingAnyExtendedKeyUsage() async {
        let ca = root.intermediate("CA")
        let leaf = ca.leaf(extendedKeyUsage: [.serverAuth, .any])
        let v = await evaluate([leaf, ca])
        #expect(v.codes == [.extendedKeyUsage])
        #expect(v.failures[0].certificate == 0)
        #expect(v.failures[0].message.contains("anyExtendedKeyUsage"))
        #expect(await evaluate([leaf, ca], policy: PKI.ssl("www.example.com")).isTrusted)
    }

    /// BR 7.1.2.7.10: serverAuth, clientAuth allowed; codeSigning, emailProtection, timeStamping, OCSPSigning not.
    @Test(arguments: [ExtendedKeyUsage.Usage.codeSigning, .emailProtection, .timeStamping, .ocspSigning])
    func aLeafListingAPurposeTheBaselineRequirementsForbid(_ purpose: ExtendedKeyUsage.Usage) async {
        let ca = root.intermediate("CA")
        let leaf = ca.leaf(extendedKeyUsage: [.serverAuth, purpose])
        let v = await evaluate([leaf, ca])
        #expect(v.codes == [.extendedKeyUsage])
        #expect(v.failures[0].certificate == 0)
        #expect(v.failures[0].message.contains("lists \(ExtendedKeyUsageRule.name(purpose)), which a TLS server certificate may not list"), "\(v.failures[0].message)")
        #expect(await evaluate([leaf, ca], policy: PKI.ssl("www.example.com")).isTrusted)
        #expect(await evaluate([ca.leaf(extendedKeyUsage: [.serverAuth, .clientAuth]), ca]).isTrusted)
    }

    @Test func anIntermediatesAnyExtendedKeyUsageDoesNotStandInForServerAuth() async {
        let anyCA = root.intermediate("Any CA", extendedKeyUsage: [.any])
        let v = await evaluate([anyCA.leaf(), anyCA])
        #expect(v.codes == [.extendedKeyUsage])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message.contains("does not stand in for serverAuth"), "\(v.failures[0].message)")
        // SecTrust's rule (the standard profile) takes anyExtendedKeyUsage for any purpose.
        #expect(await evaluate([anyCA.leaf(), anyCA], policy: PKI.ssl("www.example.com")).isTrusted)
        let both = root.intermediate("Both CA", extendedKeyUsage: [.any, .serverAuth])
        #expect(await evaluate([both.leaf(), both]).isTrusted)
    }

    /// Under the basic policy the leaf is no TLS server certificate: the BR's EKU rules do not apply.
    @Test func theBaselineRequirementsEKURulesAreForTLSServersOnly() async {
        var basic = TrustPolicy.basicX509
        basic.profile = .webPKI
        let anyCA = root.intermediate("Any CA", extendedKeyUsage: [.any])
        #expect(await evaluate([anyCA.leaf(extendedKeyUsage: [.codeSigning]), anyCA], policy: basic).isTrusted)
    }

    @Test func aLeafWithoutAnAuthorityKeyIdentifier() async {
        let ca = root.intermediate("CA")
        let leaf = PKI.issue(subject: PKI.name("www.example.com"), key: .p256(), issuer: ca, keyIdentifiers: false, extensions: Self.leafExtensions)
        let v = await evaluate([leaf, ca])
        #expect(v.codes == [.malformedCertificate])
        #expect(v.failures[0].certificate == 0)
        #expect(v.failures[0].message.contains("authorityKeyIdentifier"))
        #expect(await evaluate([leaf, ca], policy: PKI.ssl("www.example.com")).isTrusted)
    }

    @Test func aLeafWithSerialNumberZero() async {
        let ca = root.intermediate("CA")
        let leaf = ca.leaf(serial: Certificate.SerialNumber(bytes: [0x00]))
        let v = await evaluate([leaf, ca])
        #expect(v.codes == [.malformedCertificate])
        #expect(v.failures[0].message.contains("serial number zero"))
    }

    /// RFC 5280 §4.1.2.2 counts the encoded octets: a 20-octet value with its top bit set needs a 21st, zero octet.
    @Test(arguments: [([UInt8](repeating: 0x7f, count: 20), true), ([0x80] + [UInt8](repeating: 1, count: 19), false),
                      ([UInt8](repeating: 0x11, count: 21), false), ([0x80], true)])
    func serialNumbersAreMeasuredAsEncoded(value: [UInt8], allowed: Bool) async {
        let ca = root.intermediate("CA")
        let v = await evaluate([ca.leaf(serial: Certificate.SerialNumber(bytes: value)), ca])
        #expect(v.isTrusted == allowed)
        if !allowed { #expect(v.failures.map(\.message).contains { $0.contains("longer than 20 octets") }) }
    }

    @Test func aCommonNameThatMisspellsASubjectAltName() async {
        let ca = root.intermediate("CA")
        let misspelt = ca.leaf("WWW.Example.COM")
        let v = await evaluate([misspelt, ca])
        #expect(v.codes == [.malformedCertificate])
        #expect(v.failures[0].message.contains("non-canonical spelling"))
        // An unrelated common name is ignored, as SecTrust and browsers ignore it.
        #expect(await evaluate([ca.leaf("My Web Server"), ca]).isTrusted)
        #expect(await evaluate([ca.leaf("www.example.com"), ca]).isTrusted)
        #expect(await evaluate([ca.leaf("other.example.com"), ca]).isTrusted)
    }

    @Test func aCommonNameThatIsAUnicodeHostName() async {
        let ca = root.intermediate("CA")
        let v = await evaluate([ca.leaf("bücher.example.com"), ca])
        #expect(v.codes == [.malformedCertificate])
        #expect(v.failures[0].message.contains("U-label"))
        #expect(v.failures[0].message.contains("xn--bcher-kva.example.com"))
        // Non-ASCII text that is not a host name is left alone.
        #expect(await evaluate([ca.leaf("Müller Web Server"), ca]).isTrusted)
        #expect(await evaluate([ca.leaf("bücher.example.com"), ca], policy: PKI.ssl("www.example.com")).isTrusted)
    }

    @Test func aLeafMarkedAsACA() async {
        let ca = root.intermediate("CA")
        let leaf = PKI.issue(subject: PKI.name("www.example.com"), key: .p256(), issuer: ca, extensions: [
            try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
            try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: false),
            try! Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false),
        ])
        let v = await evaluate([leaf, ca])
        #expect(v.codes.contains(.basicConstraints))
        #expect(v.failure(.basicConstraints)?.certificate == 0)
        #expect(v.failure(.basicConstraints)?.message.contains("end-entity certificate marked as a CA") == true)
    }

    /// PKITS 4.9.x: a critical requireExplicitPolicy 0 and no certificatePolicies below it. The profile checked only
    /// that policyConstraints was critical, yet declared it handled, so the chain was trusted.
    @Test func aCriticalRequireExplicitPolicyIsNotTakenAsHandled() async {
        let requireExplicit = Certificate.Extension(oid: [2, 5, 29, 36], critical: true, value: [0x30, 0x03, 0x80, 0x01, 0x00])
        let ca = root.intermediate("Explicit Policy CA", extra: [requireExplicit])
        let v = await evaluate([ca.leaf(), ca])
        #expect(v.codes == [.certificatePolicy], "\(v.failures)")
        #expect(v.failures.first?.certificate == 1)
    }

    /// A critical certificatePolicies with a qualifier of unknown type: RFC 5280 §4.2.1.4 lets a verifier refuse what
    /// it cannot interpret in a critical extension, BoringSSL does, and so does the strict profile (issue #40's first
    /// false accept). The CPS pointer and user notice are known, and a non-critical extension refuses nothing.
    @Test(arguments: [("unknown", true, true), ("cps", true, false), ("unotice", true, false), ("unknown", false, false)])
    func aCriticalPolicyQualifierOfUnknownType(kind: String, critical: Bool, refused: Bool) async {
        typealias P = PolicyExtension
        let qualifier: ASN1ObjectIdentifier = switch kind {
        case "cps": [1, 3, 6, 1, 5, 5, 7, 2, 1]
        case "unotice": [1, 3, 6, 1, 5, 5, 7, 2, 2]
        default: [1, 3, 6, 1, 4, 1, 65535, 9, 9]
        }
        let ca = root.intermediate("Qualifier CA")
        let leaf = ca.leaf(extra: [P.policyWithQualifier(P.oid(1), qualifier: qualifier, critical: critical)])
        let v = await evaluate([leaf, ca])
        if refused {
            #expect(v.codes == [.unhandledCriticalExtension], "\(v.failures)")
            #expect(v.failures.first?.certificate == 0)
            #expect(v.failures.first?.message.contains("policy qualifier of an unknown type (1.3.6.1.4.1.65535.9.9)") == true, "\(v.failures)")
            // SecTrust's profile does not refuse it.
            #expect(await evaluate([leaf, ca], policy: PKI.ssl("www.example.com")).isTrusted)
        } else {
            #expect(v.isTrusted, "\(kind), critical \(critical): \(v.failures)")
        }
    }

    /// The anchor is left out, as BoringSSL leaves it out of policy processing: its qualifiers are configuration.
    @Test func anAnchorsUnknownQualifierIsNotRefused() async {
        let odd: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 65535, 9, 9]
        let anchor = PKI.root("Qualifier Root", extra: [PolicyExtension.policyWithQualifier(PolicyExtension.anyPolicy, qualifier: odd, critical: true)])
        let ca = anchor.intermediate("CA Below Qualifier Root")
        let v = await PKI.evaluate(PKI.trust([ca.leaf("www.example.com"), ca], anchors: [anchor], policy: Self.strict))
        #expect(v.isTrusted, "\(v.failures)")
    }
}
