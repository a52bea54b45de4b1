import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

/// Hostile and pathological inputs end with a verdict: not trusted with a reason, or trusted when a real path
/// exists. These assert the outcome, not the time taken.
@Suite(.cpuBound) struct TrustEngineHostileInputTests {
    @Test func truncatedDERAtEveryPositionIsRefused() async {
        let (root, intermediate, leaf) = PKI.chain()
        let der = leaf.der
        for cut in stride(from: 0, to: der.count, by: 37) {
            let verdict = await PKI.evaluate(ServerTrust(certificates: [Array(der.prefix(cut)), intermediate.der], anchors: PKI.anchors(root),
                                                         policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
            #expect(!verdict.isTrusted)
            #expect(verdict.codes == [.malformedCertificate], "cut at \(cut)")
            #expect(verdict.failures.first?.certificate == 0)
        }
    }

    @Test func flippedSignatureBitIsNotTrusted() async {
        let (root, intermediate, leaf) = PKI.chain()
        var der = leaf.der
        der[der.count - 5] ^= 0x01
        let verdict = await PKI.evaluate(ServerTrust(certificates: [der, intermediate.der], anchors: PKI.anchors(root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(!verdict.isTrusted)
        #expect(!verdict.failures.isEmpty)
        #expect(verdict.codes.allSatisfy { [.unknownIssuer, .malformedCertificate].contains($0) }, "\(verdict.failures)")
    }

    @Test func tenThousandSubjectAltNames() async {
        let (root, intermediate, _) = PKI.chain()
        let names = (0..<10_000).map { "host\($0).example.com" }
        let leaf = intermediate.leaf(dns: names)
        let last = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: PKI.ssl("host9999.example.com")))
        #expect(last.isTrusted)
        let miss = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: PKI.ssl("www.example.com")))
        #expect(miss.codes == [.hostnameMismatch])
        #expect(miss.failures[0].message.count < 1000, "the message lists a few names, not ten thousand")
        #expect(miss.chainSummaries[0].subjectAlternativeNames.count == 10_000)
    }

    @Test func tenThousandSubjectAltNamesUnderNameConstraints() async {
        let root = PKI.root()
        let constrained = root.intermediate("Constrained CA", nameConstraints: NameConstraints(permittedDNSDomains: (0..<8).map { "zone\($0).example" }))
        let leaf = constrained.leaf(dns: (0..<10_000).map { "h\($0).zone0.example" })
        let verdict = await PKI.evaluate(PKI.trust([leaf, constrained], anchors: [root], policy: PKI.ssl("h1.zone0.example")))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes == [.nameConstraints])
        #expect(verdict.failures[0].message.contains("denial-of-service"))
    }

    @Test func aHundredCertificateChain() async {
        let root = PKI.root()
        var cas = [root]
        for i in 0..<98 { cas.append(cas[cas.count - 1].intermediate("Deep CA \(i)")) }
        let leaf = cas[cas.count - 1].leaf()
        let presented = [leaf] + cas.dropFirst().reversed()
        #expect(presented.count == 99)

        let verdict = await PKI.evaluate(PKI.trust(presented, anchors: [root]))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes == [.chainTooLong])
        #expect(verdict.failures[0].message.contains("98 intermediate CAs"))
        #expect(verdict.chain.count == 100)

        // Without a depth limit the same path is built and trusted, so the refusal above is the limit's.
        var unlimited = PKI.ssl("www.example.com")
        unlimited.maximumIntermediates = nil
        let deep = await PKI.evaluate(PKI.trust(presented.shuffled(), anchors: [root], policy: unlimited).withLeafFirst(leaf))
        #expect(deep.isTrusted, "\(deep.failures)")
        #expect(deep.chain.count == 100)
    }

    @Test func aHundredCertificateChainWithoutItsRoot() async {
        let root = PKI.root()
        var cas = [root]
        for i in 0..<98 { cas.append(cas[cas.count - 1].intermediate("Deep CA \(i)")) }
        let leaf = cas[cas.count - 1].leaf()
        let verdict = await PKI.evaluate(PKI.trust([leaf] + cas.dropFirst().reversed(), anchors: [PKI.root("Other Root")]))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes.count == 1)
        #expect([TrustFailureCode.unknownIssuer, .chainTooLong].contains(verdict.codes[0]), "\(verdict.failures)")
    }

    @Test func aCycleOfCrossSignedIntermediates() async {
        let keyA = TestKey.p256(), keyB = TestKey.p256()
        let nameA = PKI.name("Cycle CA A"), nameB = PKI.name("Cycle CA B")
        // Placeholders that hold the keys, to sign with.
        let signerA = PKI.issue(subject: nameA, key: keyA, issuer: nil, extensions: [])
        let signerB = PKI.issue(subject: nameB, key: keyB, issuer: nil, extensions: [])
        let caExtensions = [
            try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
            try! Certificate.Extension(KeyUsage(keyCertSign: true), critical: true),
        ]
        let aByB = PKI.issue(subject: nameA, key: keyA, issuer: signerB, extensions: caExtensions)
        let bByA = PKI.issue(subject: nameB, key: keyB, issuer: signerA, extensions: caExtensions)
        let leaf = aByB.leaf()
        let verdict = await PKI.evaluate(PKI.trust([leaf, aByB, bByA], anchors: [PKI.root("Unrelated Root")]))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes == [.unknownIssuer])
        #expect(verdict.chainDER == [leaf.der, aByB.der, bByA.der])
        // Both were sent: the reason is the loop, not a missing certificate.
        #expect(verdict.failures[0].certificate == 2)
        #expect(verdict.failures[0].message.hasPrefix("\(bByA.label) is issued by \(aByB.label), which is already in this chain: the intermediates sent issue each other in a loop"),
                "\(verdict.failures[0].message)")
    }

    @Test func aMeshOfCrossSignedIntermediatesExhaustsTheBudget() async {
        let n = 8
        let keys = (0..<n).map { _ in TestKey.p256() }
        let names = (0..<n).map { PKI.name("Mesh CA \($0)") }
        let signers = (0..<n).map { PKI.issue(subject: names[$0], key: keys[$0], issuer: nil, extensions: []) }
        let caExtensions = [
            try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
            try! Certificate.Extension(KeyUsage(keyCertSign: true), critical: true),
        ]
        var mesh: [TestCert] = []
        for i in 0..<n {
            for j in 0..<n where i != j {
                mesh.append(PKI.issue(subject: names[i], key: keys[i], issuer: signers[j], extensions: caExtensions))
            }
        }
        let leaf = mesh[0].leaf()
        let engine = TrustEngine(searchBudget: 512, cacheCapacity: 0)
        let verdict = await engine.evaluate(PKI.trust([leaf] + mesh, anchors: [PKI.root("Unrelated Root")]))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes.contains(.pathBuildingLimit), "\(verdict.codes)")
        #expect(verdict.failure(.pathBuildingLimit)?.message.contains("512") == true)
    }

    @Test func aMeshWithARealPathStillEndsWithAVerdict() async {
        let root = PKI.root()
        let n = 6
        let keys = (0..<n).map { _ in TestKey.p256() }
        let names = (0..<n).map { PKI.name("Mesh CA \($0)") }
        let signers = (0..<n).map { PKI.issue(subject: names[$0], key: keys[$0], issuer: nil, extensions: []) }
        var mesh: [TestCert] = []
        for i in 0..<n {
            for j in 0..<n where i != j {
                mesh.append(PKI.issue(subject: names[i], key: keys[i], issuer: signers[j], extensions: [
                    try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
                ]))
            }
        }
        // The last mesh CA is also certified by the root.
        let anchored = PKI.issue(subject: names[n - 1], key: keys[n - 1], issuer: root, extensions: [
            try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
        ])
        let leaf = mesh[0].leaf()
        var policy = PKI.ssl("www.example.com")
        policy.maximumIntermediates = nil
        let verdict = await PKI.evaluate(PKI.trust([leaf] + mesh + [anchored], anchors: [root], policy: policy))
        if verdict.isTrusted {
            #expect(verdict.chain.last?.der == root.der)
        } else {
            #expect(verdict.codes.contains(.pathBuildingLimit), "\(verdict.failures)")
        }
    }

    @Test func theSameSubjectWithManyKeys() async {
        let root = PKI.root()
        let impostors = (0..<60).map { _ in root.intermediate("Popular CA") }
        let real = root.intermediate("Popular CA")
        let leaf = real.leaf()
        let verdict = await PKI.evaluate(PKI.trust([leaf] + impostors + [real], anchors: [root]))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.chainDER == [leaf.der, real.der, root.der])

        let orphan = root.intermediate("Popular CA").leaf()
        let refused = await PKI.evaluate(PKI.trust([orphan] + impostors, anchors: [root]))
        #expect(refused.codes == [.unknownIssuer])
        #expect(refused.failures[0].message.contains("did not sign"))
    }

    @Test func aSubjectWithThousandsOfAttributesIsNamedBriefly() async {
        let root = PKI.root()
        let hugeName = try! DistinguishedName((0..<3000).map { RelativeDistinguishedName.Attribute(type: .RDNAttributeType.organizationalUnitName, value: .init(utf8String: "unit \($0)")) })
        let ca = root.intermediate("CA")
        let leaf = PKI.issue(subject: hugeName, key: .p256(), issuer: ca, extensions: [
            try! Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false),
            try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: false),
        ])
        let verdict = await PKI.evaluate(PKI.trust([leaf, ca], anchors: [root], policy: PKI.ssl("other.example.com")))
        #expect(verdict.codes == [.hostnameMismatch])
        #expect(verdict.failures[0].message.count < 600)
        #expect(verdict.failures[0].message.contains("…"))
    }

    @Test func manyGarbageCertificatesAfterTheLeaf() async {
        let (root, intermediate, leaf) = PKI.chain()
        let garbage = (0..<200).map { i in [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 64) }
        let verdict = await PKI.evaluate(ServerTrust(certificates: [leaf.der, intermediate.der] + garbage, anchors: PKI.anchors(root),
                                                     policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes == [.malformedCertificate])
        #expect(verdict.failures[0].certificate == 2)
    }
}

extension ServerTrust {
    /// The same trust with `leaf` moved to the front, after a shuffle of the whole list.
    func withLeafFirst(_ leaf: TestCert) -> ServerTrust {
        var copy = self
        copy.certificates.removeAll { $0 == leaf.der }
        copy.certificates.insert(leaf.der, at: 0)
        return copy
    }
}
