import TestSupport
import Foundation
import SwiftASN1
import Testing
@_spi(DisableValidityCheck) import X509

@testable import TransportTrust

/// Basic constraints, path length and name constraints, through the engine so that codes and indices are
/// those a user sees.
@Suite struct RFC5280RuleTests {
    func evaluate(_ chain: [TestCert], anchors: [TestCert], host: String = "www.example.com") async -> TrustVerdict {
        await PKI.evaluate(PKI.trust(chain, anchors: anchors, policy: PKI.ssl(host)))
    }

    // MARK: Basic constraints and path length

    @Test func refusesAnIssuerThatIsNotACA() async {
        let root = PKI.root()
        let notCA = root.intermediate("Not A CA", keyUsage: nil, isCA: false)
        let leaf = notCA.leaf()
        let v = await evaluate([leaf, notCA], anchors: [root])
        #expect(v.codes == [.basicConstraints])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message.contains(notCA.label), "\(v.failures[0].message)")
        #expect(v.failures[0].message.contains("not marked as a CA"))
    }

    @Test func refusesALeafUsedAsAnIssuer() async {
        let (root, intermediate, leaf) = PKI.chain()
        let grandchild = PKI.issue(subject: PKI.name("below a leaf"), key: .p256(), issuer: leaf, extensions: [
            try! Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false),
            try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: false),
        ])
        let v = await evaluate([grandchild, leaf, intermediate], anchors: [root])
        #expect(!v.isTrusted)
        #expect(v.codes.contains(.basicConstraints))
        #expect(v.failures.first { $0.code == .basicConstraints }?.certificate == 1)
    }

    @Test func enforcesTheRootsPathLength() async {
        let root = PKI.root(pathLength: 0)
        let intermediate = root.intermediate("CA")
        let leaf = intermediate.leaf()
        let v = await evaluate([leaf, intermediate], anchors: [root])
        #expect(v.codes == [.pathLength])
        #expect(v.failures[0].certificate == 2)
        #expect(v.failures[0].message.contains(root.label), "\(v.failures[0].message)")
        #expect(v.failures[0].message.contains("pathLenConstraint"))
        // A leaf directly under it is fine.
        #expect(await evaluate([root.leaf()], anchors: [root]).isTrusted)
    }

    @Test func enforcesAnIntermediatesPathLength() async {
        let root = PKI.root(pathLength: 5)
        let upper = root.intermediate("Upper CA", pathLength: 0)
        let lower = upper.intermediate("Lower CA")
        let leaf = lower.leaf()
        let v = await evaluate([leaf, lower, upper], anchors: [root])
        #expect(v.codes == [.pathLength])
        #expect(v.failures[0].certificate == 2)
        #expect(v.failures[0].message == "\(upper.label) allows at most 0 CA certificates below it (pathLenConstraint 0), and this chain has 1")

        // RFC 5280 §4.2.1.9: a self-issued intermediate (the same CA re-keyed) does not count against the limit.
        let rekeyed = upper.intermediate("Upper CA")
        #expect(rekeyed.certificate.subject == upper.certificate.subject)
        let counted = await evaluate([rekeyed.leaf(), rekeyed, upper], anchors: [root])
        #expect(counted.isTrusted, "\(counted.failures)")
        let beyond = rekeyed.intermediate("Lower CA")
        let w = await evaluate([beyond.leaf(), beyond, rekeyed, upper], anchors: [root])
        #expect(w.codes == [.pathLength])
        #expect(w.failures[0].message == "\(upper.label) allows at most 0 CA certificates below it (pathLenConstraint 0), and this chain has 1", "\(w.failures)")

        let roomy = root.intermediate("Roomy CA", pathLength: 1)
        let below = roomy.intermediate("Below Roomy")
        #expect(await evaluate([below.leaf(), below, roomy], anchors: [root]).isTrusted)
    }

    // MARK: Name constraints

    @Test func permittedDNSSubtree() async {
        let root = PKI.root()
        let constrained = root.intermediate("Example-only CA", nameConstraints: NameConstraints(permittedDNSDomains: ["example.com"]))
        #expect(await evaluate([constrained.leaf(dns: ["www.example.com"]), constrained], anchors: [root]).isTrusted)
        let outside = constrained.leaf(dns: ["www.example.com", "www.example.net"])
        let v = await evaluate([outside, constrained], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message == "\(outside.label) names www.example.net, outside the DNS names \(constrained.label) permits (example.com)")
    }

    /// swift-certificates stops its name-constraint check at a SAN it cannot decode. The name is not outside the
    /// constraints: the certificate is malformed, and the verdict says that once (414 bettertls cases said both).
    @Test func aSubjectAltNameThatCannotBeDecodedIsMalformedNotOutsideTheConstraints() async throws {
        let root = PKI.root()
        let constrained = root.intermediate("Example-only CA", nameConstraints: NameConstraints(permittedDNSDomains: ["example.com"]))
        // [0] otherName must be constructed; this one is primitive, as in bettertls's malformed-SAN cases.
        let leaf = constrained.leaf("garbled.example.com", dns: [], extra: [
            Certificate.Extension(oid: .X509ExtensionID.subjectAlternativeName, critical: false,
                                  value: [0x30, 0x0D, 0x80, 0x0B] + Array("example.com".utf8)),
        ])
        let expected = TrustFailure(.malformedCertificate, certificate: 0, "\(leaf.label) has a malformed subjectAltName extension")
        let v = await evaluate([leaf, constrained], anchors: [root])
        #expect(v.failures == [expected])

        // Alone, the rule still refuses the path, and with the same failure, so that the engine can say it once.
        let chain = try #require(UnverifiedCertificateChain.assembled([leaf.certificate, constrained.certificate, root.certificate]))
        var failures: [TrustFailure] = []
        RFC5280Rule().check(chain, context: RuleContext(validationTime: PKI.now, anchorIsSystem: false), into: &failures)
        #expect(failures == [expected])
    }

    /// The same for name constraints that cannot be decoded: the carrier is malformed.
    @Test func nameConstraintsThatCannotBeDecodedAreMalformed() async throws {
        let root = PKI.root()
        // A permittedSubtrees [0] holding a GeneralSubtree whose base is a primitive [4] directoryName.
        let broken = root.intermediate("Broken-constraints CA", extra: [
            Certificate.Extension(oid: .X509ExtensionID.nameConstraints, critical: true,
                                  value: [0x30, 0x06, 0xA0, 0x04, 0x30, 0x02, 0x84, 0x00]),
        ])
        let leaf = broken.leaf()
        let chain = try #require(UnverifiedCertificateChain.assembled([leaf.certificate, broken.certificate, root.certificate]))
        var failures: [TrustFailure] = []
        RFC5280Rule().check(chain, context: RuleContext(validationTime: PKI.now, anchorIsSystem: false), into: &failures)
        #expect(failures == [TrustFailure(.malformedCertificate, certificate: 1, "\(broken.label) has a malformed nameConstraints extension")])
        let v = await evaluate([leaf, broken], anchors: [root])
        #expect(v.codes == [.malformedCertificate], "\(v.failures)")
        #expect(!v.codes.contains(.nameConstraints))
    }

    /// swift-certificates has no matcher for otherName subtrees. A leaf with such a name is refused, and the reason
    /// says so instead of calling the name outside the constraints.
    @Test func anOtherNameSubtreeThatCannotBeMatchedIsSaidSo() async {
        let root = PKI.root()
        let kind: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 32473, 7]
        let constrained = root.intermediate("OtherName CA", nameConstraints: NameConstraints(excludedSubtrees: [.otherName(.init(typeID: kind, value: nil))]))
        #expect(await evaluate([constrained.leaf(), constrained], anchors: [root]).isTrusted, "no otherName below: nothing to match")
        let leaf = constrained.leaf(sans: [.dnsName("www.example.com"), .otherName(.init(typeID: kind, value: nil))])
        let v = await evaluate([leaf, constrained], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures.first?.certificate == 1)
        #expect(v.failures.first?.message == "\(constrained.label) constrains otherName names, which this verifier cannot match, and a certificate below it carries one; the chain is refused rather than trusted unchecked",
                "\(v.failures)")
    }

    @Test func excludedDNSSubtree() async {
        let root = PKI.root()
        let constrained = root.intermediate("No-secret CA", nameConstraints: NameConstraints(excludedDNSDomains: ["secret.example.com"]))
        #expect(await evaluate([constrained.leaf(dns: ["www.example.com"]), constrained], anchors: [root]).isTrusted)
        let leaf = constrained.leaf(dns: ["www.example.com", "db.secret.example.com"])
        let v = await evaluate([leaf, constrained], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message == "\(leaf.label) names db.secret.example.com, which \(constrained.label) excludes (secret.example.com)")
    }

    @Test func wildcardAgainstAnExcludedSubtree() async {
        let root = PKI.root()
        let constrained = root.intermediate("No-secret CA", nameConstraints: NameConstraints(excludedDNSDomains: ["secret.example.com"]))
        let wildcard = constrained.leaf(dns: ["*.example.com"])
        let v = await evaluate([wildcard, constrained], anchors: [root], host: "www.example.com")
        #expect(v.codes.contains(.nameConstraints))
        #expect(!v.isTrusted)
    }

    @Test func constraintsAreInheritedDownTheChain() async {
        let root = PKI.root("Constrained Root", nameConstraints: NameConstraints(permittedDNSDomains: ["example.com"]))
        let upper = root.intermediate("Upper CA")
        let lower = upper.intermediate("Lower CA")
        #expect(await evaluate([lower.leaf(dns: ["www.example.com"]), lower, upper], anchors: [root]).isTrusted)
        let v = await evaluate([lower.leaf(dns: ["www.example.org"]), lower, upper], anchors: [root], host: "www.example.org")
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].certificate == 3)
        #expect(v.failures[0].message.hasSuffix("names www.example.org, outside the DNS names \(root.label) permits (example.com)"), "\(v.failures[0].message)")
    }

    /// Two CAs whose permitted lists begin alike: the refusal names the one whose whole list the name is outside.
    @Test func aNameOutsideOneOfTwoConstraintListsNamesItsCarrier() async {
        let root = PKI.root()
        let upper = root.intermediate("Wide CA", nameConstraints: NameConstraints(permittedDNSDomains: ["example.com", "example.net"]))
        let lower = upper.intermediate("Narrow CA", nameConstraints: NameConstraints(permittedDNSDomains: ["example.com"]))
        let v = await evaluate([lower.leaf(dns: ["www.example.net"]), lower, upper], anchors: [root], host: "www.example.net")
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].certificate == 1)
        #expect(v.failures[0].message.contains(lower.label), "\(v.failures[0].message)")

        let wideOnly = root.intermediate("Wide CA", nameConstraints: NameConstraints(permittedDNSDomains: ["example.com", "example.net"]))
        let under = wideOnly.intermediate("Unconstrained CA")
        let w = await evaluate([under.leaf(dns: ["www.example.org"]), under, wideOnly], anchors: [root], host: "www.example.org")
        #expect(w.failures.first?.certificate == 2)
        #expect(w.failures.first?.message.contains(wideOnly.label) == true, "\(w.failures.first?.message ?? "")")
    }

    @Test func permittedIPRange() async {
        let root = PKI.root()
        // 10.0.0.0/8
        let constrained = root.intermediate("Private-net CA", nameConstraints: NameConstraints(permittedIPRanges: [ASN1OctetString(contentBytes: [10, 0, 0, 0, 255, 0, 0, 0])]))
        #expect(await evaluate([constrained.leaf(dns: [], ips: [[10, 1, 2, 3]]), constrained], anchors: [root], host: "10.1.2.3").isTrusted)
        let outside = constrained.leaf(dns: [], ips: [[192, 0, 2, 1]])
        let v = await evaluate([outside, constrained], anchors: [root], host: "192.0.2.1")
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].message == "\(outside.label) names 192.0.2.1, outside the IP addresses \(constrained.label) permits (10.0.0.0/8)")
    }

    @Test func excludedIPRange() async {
        let root = PKI.root()
        let constrained = root.intermediate("No-private CA", nameConstraints: NameConstraints(excludedIPRanges: [ASN1OctetString(contentBytes: [192, 168, 0, 0, 255, 255, 0, 0])]))
        #expect(await evaluate([constrained.leaf(dns: [], ips: [[10, 1, 2, 3]]), constrained], anchors: [root], host: "10.1.2.3").isTrusted)
        let inside = constrained.leaf(dns: [], ips: [[192, 168, 1, 1]])
        let v = await evaluate([inside, constrained], anchors: [root], host: "192.168.1.1")
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].message == "\(inside.label) names 192.168.1.1, which \(constrained.label) excludes (192.168.0.0/16)")
    }

    @Test func directoryNameConstraintsAreEnforced() async {
        // swift-certificates refuses every directoryName constraint; the rule checks them itself
        // (NameConstraintGapsTests has the details).
        let root = PKI.root()
        let excluded = NameConstraints(excludedSubtrees: [.directoryName(PKI.name("leaf"))])
        let constrained = root.intermediate("DN-constrained CA", nameConstraints: excluded)
        let v = await evaluate([constrained.leaf("leaf"), constrained], anchors: [root])
        #expect(v.codes == [.nameConstraints])
        #expect(v.failures[0].message.contains("a directory name \(constrained.label) excludes"), "\(v.failures[0].message)")
        #expect(v.failures[0].certificate == 1)
        #expect(await evaluate([constrained.leaf("another leaf"), constrained], anchors: [root]).isTrusted)
    }

    // MARK: Certificates above a leaf that passed before

    func chain(_ leaf: TestCert, under above: [TestCert]) throws -> UnverifiedCertificateChain {
        try #require(UnverifiedCertificateChain.assembled([leaf.certificate] + above.map(\.certificate)))
    }

    static func meets(_ chain: UnverifiedCertificateChain) -> Bool {
        if case .meetsPolicy = RFC5280Policy.withValidityCheckDisabled().chainMeetsPolicyRequirements(chain: chain) { return true }
        return false
    }

    /// A version 1 leaf signed by `issuer`, with `extensions`.
    static func versionOneLeaf(under issuer: TestCert, extensions: [Certificate.Extension]) throws -> TestCert {
        let key = TestKey.p256()
        return TestCert(certificate: try Certificate(
            version: .v1, serialNumber: PKI.serial(), publicKey: key.publicKey, notValidBefore: PKI.notBefore,
            notValidAfter: PKI.notAfter, issuer: issuer.certificate.subject, subject: PKI.name("Version 1 Leaf"),
            signatureAlgorithm: issuer.key.defaultSignatureAlgorithm, extensions: Certificate.Extensions(extensions),
            issuerPrivateKey: issuer.key.certificateKey), key: key)
    }

    /// Once swift-certificates' policy passed a leaf under some certificates, the rule skips it for other leaves under
    /// them: each leaf must still get the policy's own answer (its version check is the one read of the leaf).
    @Test func aRememberedPathAboveTheLeafJudgesEachLeafAsThePolicyDoes() throws {
        let root = PKI.root(pathLength: 1)
        let ca = root.intermediate("Remembered CA", pathLength: 0)
        let above = [ca, root]
        let first = try chain(ca.leaf(), under: above)
        #expect(Self.meets(first))
        let passedAbove = RFC5280Rule.PassedAbove(capacity: 4)
        passedAbove.note(first)
        let san = try Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false)
        let versionOneWithExtensions = try Self.versionOneLeaf(under: ca, extensions: [san])
        let leaves = [ca.leaf("another leaf"), versionOneWithExtensions, try Self.versionOneLeaf(under: ca, extensions: []),
                      ca.intermediate("A CA as the leaf"), ca.leaf("no names", dns: []), ca.leaf("not for servers", extendedKeyUsage: [.clientAuth])]
        for leaf in leaves {
            let path = try chain(leaf, under: above)
            #expect(passedAbove.covers(path) == Self.meets(path), "\(leaf.label)")
        }
        #expect(!Self.meets(try chain(versionOneWithExtensions, under: above)))
        // Through the rule, the version 1 leaf is refused as before.
        var failures: [TrustFailure] = []
        RFC5280Rule().check(try chain(versionOneWithExtensions, under: above),
                            context: RuleContext(validationTime: PKI.now, anchorIsSystem: false, passedAbove: passedAbove), into: &failures)
        #expect(failures.map(\.code) == [.malformedCertificate], "\(failures)")
        // Other certificates above the leaf are not covered: a pathLenConstraint depends on them.
        let deeper = ca.intermediate("Below A Path Length Of 0")
        #expect(!passedAbove.covers(try chain(deeper.leaf(), under: [deeper, ca, root])))
    }

    /// The oldest path is forgotten first, beyond the capacity.
    @Test func rememberedPathsAreBounded() throws {
        let root = PKI.root()
        let cas = (0..<3).map { root.intermediate("Bounded CA \($0)") }
        let passedAbove = RFC5280Rule.PassedAbove(capacity: 2)
        for ca in cas { passedAbove.note(try chain(ca.leaf(), under: [ca, root])) }
        #expect(!passedAbove.covers(try chain(cas[0].leaf(), under: [cas[0], root])))
        #expect(passedAbove.covers(try chain(cas[1].leaf(), under: [cas[1], root])))
        #expect(passedAbove.covers(try chain(cas[2].leaf(), under: [cas[2], root])))
    }

    /// Name constraints above a leaf apply to its names, so such a path is never remembered.
    @Test func aPathWithNameConstraintsAboveTheLeafIsNotRemembered() async throws {
        let root = PKI.root()
        let constrained = root.intermediate("Remembered Constrained CA", nameConstraints: NameConstraints(permittedDNSDomains: ["example.com"]))
        let inside = try chain(constrained.leaf(dns: ["www.example.com"]), under: [constrained, root])
        #expect(Self.meets(inside))
        let passedAbove = RFC5280Rule.PassedAbove(capacity: 4)
        passedAbove.note(inside)
        #expect(!passedAbove.covers(inside))
        let outsideLeaf = constrained.leaf("outside", dns: ["www.example.org"])
        #expect(!passedAbove.covers(try chain(outsideLeaf, under: [constrained, root])))
        // Through a warm engine: the first leaf passes, the second is refused for its name.
        let engine = TrustEngine()
        #expect(await engine.evaluate(PKI.trust([constrained.leaf(dns: ["www.example.com"]), constrained], anchors: [root],
                                                policy: PKI.ssl("www.example.com"))).isTrusted)
        let v = await engine.evaluate(PKI.trust([outsideLeaf, constrained], anchors: [root], policy: PKI.ssl("www.example.org")))
        #expect(v.codes == [.nameConstraints], "\(v.failures)")
    }

    @Test func reasonsAreSearchedByteForByte() {
        #expect("RFC5280Policy: maximum path length".mentions("maximum path length"))
        #expect("ababc".mentions("abc"), "a partial match before the real one")
        #expect("abc".mentions("") && !"".mentions("a") && !"abc".mentions("abcd") && !"abc".mentions("abd"))
        #expect("CN=Müller".mentions("Müller") && !"CN=Muller".mentions("Müller"))
    }

    @Test func reasonsAreShortenedByteForByte() {
        #expect("a DUMP b DUMP".replacingEvery("DUMP", with: "'CA'") == "a 'CA' b 'CA'")
        #expect("DUDUMP".replacingEvery("DUMP", with: "x") == "DUx", "a partial match before the real one")
        #expect("Müller DUMP Müller".replacingEvery("DUMP", with: "é") == "Müller é Müller")
        #expect("abc".replacingEvery("", with: "x") == "abc" && "ab".replacingEvery("abc", with: "x") == "ab")
    }

    /// The serial is how a reason's certificate dump is found, so its text must be swift-certificates' own.
    @Test(arguments: [[UInt8](), [0x00], [0x01], [0x0f, 0x10, 0xff], [0x80, 0x00, 0x0a], Array(1...20)])
    func serialTextIsSwiftCertificatesOwn(_ bytes: [UInt8]) {
        let serial = Certificate.SerialNumber(bytes: bytes)
        #expect(RFC5280Rule.serialText(serial) == String(reflecting: serial))
    }
}
