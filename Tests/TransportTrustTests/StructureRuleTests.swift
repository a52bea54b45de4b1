import TestSupport
import Foundation
import SwiftASN1
import Testing
import X509

@testable import TransportTrust

@Suite struct StructureRuleTests {
    let root = PKI.root()

    @Test func refusesNameConstraintsOnALeaf() async {
        let nc = try! Certificate.Extension(NameConstraints(permittedDNSDomains: ["example.com"]), critical: true)
        let leaf = root.leaf(extra: [nc])
        let failures = await RuleProbe.failures(StructureRule(), leaf: leaf, anchors: [root])
        #expect(failures?.map(\.code) == [.nameConstraints])
        #expect(failures?.first?.certificate == 0)
        #expect(failures?.first?.message.contains("end-entity certificate carrying nameConstraints") == true)
    }

    @Test func refusesKeyCertSignWithoutCA() async {
        let leaf = root.leaf(keyUsage: KeyUsage(digitalSignature: true, keyCertSign: true))
        let failures = await RuleProbe.failures(StructureRule(), leaf: leaf, anchors: [root])
        #expect(failures?.map(\.code) == [.keyUsage])
        #expect(failures?.first?.message.contains("asserts keyCertSign without being a CA") == true)
    }

    @Test func refusesACAWhoseKeyUsageLacksKeyCertSign() async {
        let ca = root.intermediate("Odd CA", keyUsage: KeyUsage(digitalSignature: true))
        let failures = await RuleProbe.failures(StructureRule(), leaf: ca.leaf(), intermediates: [ca], anchors: [root])
        #expect(failures?.map(\.code) == [.keyUsage])
        #expect(failures?.first?.certificate == 1)
        #expect(failures?.first?.message.contains(ca.label) == true)
    }

    @Test func refusesADNSConstraintWithALeadingPeriod() async {
        let ca = root.intermediate("Dotted CA", nameConstraints: NameConstraints(permittedDNSDomains: [".example.com"]))
        let failures = await RuleProbe.failures(StructureRule(), leaf: ca.leaf(), intermediates: [ca], anchors: [root])
        #expect(failures?.map(\.code) == [.nameConstraints])
        #expect(failures?.first?.certificate == 1)
        #expect(failures?.first?.message.contains("leading period") == true)
    }

    @Test func refusesAWildcardThatCoversAnExcludedName() async {
        let ca = root.intermediate("Excluding CA", nameConstraints: NameConstraints(excludedDNSDomains: ["secret.example.com"]))
        let failures = await RuleProbe.failures(StructureRule(), leaf: ca.leaf(dns: ["*.example.com"]), intermediates: [ca], anchors: [root])
        #expect(failures?.map(\.code) == [.nameConstraints])
        #expect(failures?.first?.certificate == 0)
        #expect(failures?.first?.message.contains("*.example.com") == true)
        #expect(failures?.first?.message.contains("secret.example.com") == true)
        // A wildcard elsewhere is fine.
        #expect(await RuleProbe.failures(StructureRule(), leaf: ca.leaf(dns: ["*.example.org"]), intermediates: [ca], anchors: [root]) == [])
    }

    /// swift-certificates reads an excluded `secret.example.com.` as secret.example.com (and refuses that name), so a
    /// wildcard that covers it is refused too.
    @Test(arguments: ["secret.example.com.", "SECRET.Example.com."])
    func refusesAWildcardThatCoversAnExclusionWrittenWithATrailingDot(excluded: String) async {
        let ca = root.intermediate("Excluding CA", nameConstraints: NameConstraints(excludedDNSDomains: [excluded]))
        let failures = await RuleProbe.failures(StructureRule(), leaf: ca.leaf(dns: ["*.example.com"]), intermediates: [ca], anchors: [root])
        #expect(failures?.map(\.code) == [.nameConstraints], "\(failures ?? [])")
        #expect(failures?.first?.message.contains("covers secret.example.com,") == true, "\(failures ?? [])")
        #expect(await RuleProbe.failures(StructureRule(), leaf: ca.leaf(dns: ["*.example.org"]), intermediates: [ca], anchors: [root]) == [])
    }

    @Test(arguments: ["evil.example.com.", "-admin.example.com", "*.example.com."])
    func refusesADNSNameTheExclusionCannotSee(name: String) async {
        // swift-certificates matches no subtree for a name it cannot read, so an exclusion would let it through.
        let ca = root.intermediate("Excluding CA", nameConstraints: NameConstraints(excludedDNSDomains: ["example.com"]))
        let failures = await RuleProbe.failures(StructureRule(), leaf: ca.leaf(dns: [name]), intermediates: [ca], anchors: [root])
        #expect(failures?.map(\.code) == [.nameConstraints])
        #expect(failures?.first?.certificate == 0)
        #expect(failures?.first?.message.contains("'\(name)'") == true, "\(failures ?? [])")
        #expect(failures?.first?.message.contains(ca.label) == true)
        // The same name with no exclusion above it is left to the other rules.
        #expect(await RuleProbe.failures(StructureRule(), leaf: root.leaf(dns: [name]), anchors: [root]) == [])
    }

    @Test func aTrailingDotDoesNotGetPastAnExclusionEndToEnd() async {
        let ca = root.intermediate("Excluding CA", nameConstraints: NameConstraints(excludedDNSDomains: ["evil.example.com"]))
        let trust = PKI.trust([ca.leaf(dns: ["evil.example.com."]), ca], anchors: [root], policy: PKI.ssl("evil.example.com"))
        let verdict = await PKI.evaluate(trust)
        #expect(!verdict.isTrusted)
        #expect(verdict.codes.contains(.nameConstraints))
    }

    @Test func refusesAnIPv4MappedAddressInsideAnExcludedRange() async {
        let ten = ASN1OctetString(contentBytes: [10, 0, 0, 0, 255, 0, 0, 0])
        let ca = root.intermediate("Excluding CA", nameConstraints: NameConstraints(excludedIPRanges: [ten]))
        let mapped: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        let inside = ca.leaf(dns: [], ips: [mapped + [10, 0, 0, 1]])
        let failures = await RuleProbe.failures(StructureRule(), leaf: inside, intermediates: [ca], anchors: [root])
        #expect(failures?.map(\.code) == [.nameConstraints])
        #expect(failures?.first?.message.contains("::ffff:10.0.0.1") == true, "\(failures ?? [])")
        #expect(failures?.first?.message.contains("IPv4 address 10.0.0.1") == true)
        let outside = ca.leaf(dns: [], ips: [mapped + [11, 0, 0, 1]])
        #expect(await RuleProbe.failures(StructureRule(), leaf: outside, intermediates: [ca], anchors: [root]) == [])
    }

    @Test func refusesAVersion1Issuer() async throws {
        let v1Key = TestKey.p256()
        let v1 = TestCert(certificate: try Certificate(
            version: .v1, serialNumber: PKI.serial(), publicKey: v1Key.publicKey, notValidBefore: PKI.notBefore,
            notValidAfter: PKI.notAfter, issuer: root.subject, subject: PKI.name("Version 1 Issuer"),
            signatureAlgorithm: root.key.defaultSignatureAlgorithm, extensions: Certificate.Extensions([]),
            issuerPrivateKey: root.key.certificateKey), key: v1Key)
        let leaf = v1.leaf(dns: ["victim.example.com"])
        let failures = await RuleProbe.failures(StructureRule(), leaf: leaf, intermediates: [v1], anchors: [root])
        #expect(failures?.map(\.code) == [.basicConstraints])
        #expect(failures?.first?.certificate == 1)
        #expect(failures?.first?.message.contains("version 1 certificate") == true, "\(failures ?? [])")
        let verdict = await PKI.evaluate(PKI.trust([leaf, v1], anchors: [root], policy: PKI.ssl("victim.example.com")))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes.contains(.basicConstraints))
        // A version 1 anchor is trusted as configured: RFC 5280 leaves anchors to the relying party.
        let v1Root = TestCert(certificate: try Certificate(
            version: .v1, serialNumber: PKI.serial(), publicKey: v1Key.publicKey, notValidBefore: PKI.notBefore,
            notValidAfter: PKI.notAfter, issuer: PKI.name("Version 1 Root"), subject: PKI.name("Version 1 Root"),
            signatureAlgorithm: v1Key.defaultSignatureAlgorithm, extensions: Certificate.Extensions([]),
            issuerPrivateKey: v1Key.certificateKey), key: v1Key)
        let ca = v1Root.intermediate("Issuing CA")
        #expect(await RuleProbe.failures(StructureRule(), leaf: ca.leaf(), intermediates: [ca], anchors: [v1Root]) == [])
    }

    @Test func boundsNameConstraintWork() async {
        let constraints = NameConstraints(permittedDNSDomains: (0..<10).map { "allowed\($0).example" })
        let ca = root.intermediate("Busy CA", nameConstraints: constraints)
        let leaf = ca.leaf(dns: (0..<7000).map { "h\($0).allowed0.example" })
        let failures = await RuleProbe.failures(StructureRule(), leaf: leaf, intermediates: [ca], anchors: [root])
        #expect(failures?.map(\.code) == [.nameConstraints])
        #expect(failures?.first?.message.contains("denial-of-service") == true)
        #expect(failures?.first?.message.contains("7000 subjectAltNames and 2 subject attributes against 10 name constraints") == true,
                "\(failures ?? [])")
        // A leaf without SANs is matched by its subject attributes (x509-limbo's nc-dos cases), and they are counted.
        let crowded = ca.leaf(dns: [], subject: DistinguishedName([RelativeDistinguishedName((0..<7000).map {
            RelativeDistinguishedName.Attribute(type: .RDNAttributeType.organizationalUnitName, utf8String: "unit \($0)")
        })]))
        let crowdedFailures = await RuleProbe.failures(StructureRule(), leaf: crowded, intermediates: [ca], anchors: [root])
        #expect(crowdedFailures?.first?.message.contains("0 subjectAltNames and 7000 subject attributes") == true, "\(crowdedFailures ?? [])")
        // Under the budget it is left to the RFC 5280 check.
        let small = ca.leaf(dns: ["www.allowed0.example"])
        #expect(await RuleProbe.failures(StructureRule(), leaf: small, intermediates: [ca], anchors: [root]) == [])
    }

    @Test func refusesACAWithAnEmptySubject() async {
        let emptyCA = PKI.issue(subject: DistinguishedName(), key: .p256(), issuer: root, extensions: [
            try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
            try! Certificate.Extension(KeyUsage(keyCertSign: true), critical: true),
        ])
        let leaf = emptyCA.leaf()
        let failures = await RuleProbe.failures(StructureRule(), leaf: leaf, intermediates: [emptyCA], anchors: [root])
        #expect(failures?.map(\.code) == [.malformedCertificate])
        #expect(failures?.first?.certificate == 1)
        #expect(failures?.first?.message.contains("empty subject") == true)
    }

    @Test func refusesAMalformedKnownExtension() async {
        let broken = Certificate.Extension(oid: .X509ExtensionID.keyUsage, critical: true, value: [0x04, 0x01, 0x00])
        let leaf = root.leaf(keyUsage: nil, extra: [broken])
        let failures = await RuleProbe.failures(StructureRule(), leaf: leaf, anchors: [root])
        #expect(failures?.map(\.code) == [.malformedCertificate])
        #expect(failures?.first?.message.contains("malformed keyUsage") == true)
    }

    @Test func acceptsAWellFormedChain() async {
        let (root, intermediate, leaf) = PKI.chain()
        #expect(await RuleProbe.failures(StructureRule(), leaf: leaf, intermediates: [intermediate], anchors: [root]) == [])
    }
}
