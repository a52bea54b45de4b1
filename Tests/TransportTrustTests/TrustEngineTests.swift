import TestSupport
import Foundation
import Testing
import X509

@testable import TransportTrust

@Suite struct TrustEngineTests {
    // MARK: Trusted chains

    @Test func trustsAnECDSAChainAndReportsItLeafToAnchor() async {
        let (root, intermediate, leaf) = PKI.chain()
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.failures.isEmpty)
        #expect(verdict.anchor == .custom)
        #expect(verdict.chainDER == [leaf.der, intermediate.der, root.der])
        let summaries = verdict.chainSummaries
        #expect(summaries.map(\.keyType) == ["EC P-256", "EC P-256", "EC P-256"])
        #expect(summaries.map(\.signatureAlgorithm) == ["ecdsaWithSHA256", "ecdsaWithSHA256", "ecdsaWithSHA256"])
        #expect(summaries[0].subjectAlternativeNames == ["DNS:www.example.com"])
    }

    /// `ServerTrust(chain:)` hands its parses to the engine; replacing the DER afterwards must drop them.
    @Test func replacedCertificatesAreEvaluatedNotTheParsesTheyReplaced() async {
        let (root, intermediate, leaf) = PKI.chain()
        let other = intermediate.leaf(dns: ["other.example.com"])
        var trust = ServerTrust(chain: [leaf.input, intermediate.input], anchors: TrustAnchors(custom: [root.input]),
                                policy: PKI.ssl("www.example.com"), validationTime: PKI.now)
        #expect(await PKI.evaluate(trust).isTrusted)
        trust.certificates = [other.der, intermediate.der]
        let verdict = await PKI.evaluate(trust)
        #expect(verdict.codes == [.hostnameMismatch])
        #expect(verdict.chainDER.first == other.der)
        trust.additionalIntermediates = [intermediate.der]
        trust.certificates[0] = leaf.der
        #expect(await PKI.evaluate(trust).isTrusted)
    }

    @Test func trustsAnRSAChain() async {
        let root = PKI.root("RSA Root", key: .rsa2048(0))
        let intermediate = root.intermediate("RSA Intermediate", key: .rsa2048(1))
        let leaf = intermediate.leaf(key: .rsa2048(2))
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.chainDER == [leaf.der, intermediate.der, root.der])
        #expect(verdict.chainSummaries.map(\.keyType) == ["RSA 2048", "RSA 2048", "RSA 2048"])
        #expect(verdict.chainSummaries.map(\.keySize) == [2048, 2048, 2048])
        #expect(verdict.chainSummaries[0].signatureAlgorithm == "sha256WithRSAEncryption")
    }

    @Test func trustsAP384ChainUnderTheATSStrengthPolicy() async {
        let root = PKI.root(key: .p384())
        let intermediate = root.intermediate("P-384 Intermediate", key: .p384())
        let leaf = intermediate.leaf(key: .p384())
        var policy = PKI.ssl("www.example.com")
        policy.requiresATSStrength = true
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: policy))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.chainSummaries[0].signatureAlgorithm == "ecdsaWithSHA384")
    }

    @Test func buildsThePathWhenTheServerSendsTheChainOutOfOrder() async {
        let root = PKI.root()
        let upper = root.intermediate("Upper CA")
        let lower = upper.intermediate("Lower CA")
        let leaf = lower.leaf()
        let verdict = await PKI.evaluate(PKI.trust([leaf, upper, lower], anchors: [root]))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.chainDER == [leaf.der, lower.der, upper.der, root.der])
    }

    @Test func ignoresASuperfluousCertificate() async {
        let (root, intermediate, leaf) = PKI.chain()
        let stranger = PKI.root("Unrelated CA").intermediate("Unrelated Intermediate")
        let verdict = await PKI.evaluate(PKI.trust([leaf, stranger, intermediate, root], anchors: [root]))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.chainDER == [leaf.der, intermediate.der, root.der])
        #expect(!verdict.chainDER.contains(stranger.der))
    }

    @Test func usesAdditionalIntermediatesTheServerDidNotSend() async {
        let (root, intermediate, leaf) = PKI.chain()
        let verdict = await PKI.evaluate(PKI.trust([leaf], anchors: [root], extra: [intermediate]))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.chainDER == [leaf.der, intermediate.der, root.der])
    }

    @Test func trustsALeafThatIsItselfAnAnchor() async {
        let selfSigned = PKI.issue(subject: PKI.name("www.example.com"), key: .p256(), issuer: nil, extensions: [
            try! Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false),
            try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: false),
        ])
        let verdict = await PKI.evaluate(PKI.trust([selfSigned], anchors: [selfSigned]))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.anchor == .custom)
    }

    // MARK: No path to an anchor

    @Test func namesTheMissingIntermediate() async {
        let (root, intermediate, leaf) = PKI.chain()
        let verdict = await PKI.evaluate(PKI.trust([leaf], anchors: [root]))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes == [.unknownIssuer])
        let failure = verdict.failures[0]
        #expect(failure.certificate == 0)
        #expect(failure.message.contains("'\(intermediate.subject)'"), "\(failure.message)")
        #expect(failure.message.contains("add the intermediate to the server's chain"), "\(failure.message)")
        #expect(verdict.anchor == nil)
        #expect(verdict.chainDER == [leaf.der])
    }

    @Test func namesTheMissingIssuerHigherUpTheChain() async {
        let root = PKI.root()
        let upper = root.intermediate("Upper CA")
        let lower = upper.intermediate("Lower CA")
        let leaf = lower.leaf()
        let verdict = await PKI.evaluate(PKI.trust([leaf, lower], anchors: [root]))
        #expect(verdict.codes == [.unknownIssuer])
        #expect(verdict.failures[0].certificate == 1)
        #expect(verdict.failures[0].message.contains("'\(upper.subject)'"), "\(verdict.failures[0].message)")
        #expect(verdict.failures[0].message.contains(lower.label))
        #expect(verdict.chainDER == [leaf.der, lower.der])
    }

    @Test func reportsAnIntermediateWhoseKeyDidNotSignTheLeaf() async {
        let (root, intermediate, _) = PKI.chain()
        // Same name as the intermediate, another key: the CA was re-keyed and the server sends the old one.
        let rekeyed = root.intermediate("Test Intermediate CA")
        let leaf = rekeyed.leaf()
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(verdict.codes == [.unknownIssuer])
        #expect(verdict.failures[0].certificate == 0)
        #expect(verdict.failures[0].message.contains("did not sign"), "\(verdict.failures[0].message)")
    }

    @Test func refusesASelfSignedLeaf() async {
        let otherRoot = PKI.root("Some Root")
        let selfSigned = PKI.issue(subject: PKI.name("www.example.com"), key: .p256(), issuer: nil, extensions: [
            try! Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false),
            try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: false),
        ])
        let verdict = await PKI.evaluate(PKI.trust([selfSigned], anchors: [otherRoot]))
        #expect(verdict.codes == [.selfSignedLeaf])
        #expect(verdict.failures[0].certificate == 0)
        #expect(verdict.failures[0].message.contains(selfSigned.label), "\(verdict.failures[0].message)")
        #expect(verdict.failures[0].message.contains("self-signed"))
    }

    @Test func refusesAChainEndingAtAnUntrustedRoot() async {
        let (root, intermediate, leaf) = PKI.chain()
        let otherRoot = PKI.root("Another Root")
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate, root], anchors: [otherRoot]))
        #expect(verdict.codes == [.untrustedRoot])
        #expect(verdict.failures[0].certificate == 2)
        #expect(verdict.failures[0].message.contains(root.label), "\(verdict.failures[0].message)")
        #expect(verdict.failures[0].message.contains("not among the given anchors"))
        #expect(verdict.chainDER == [leaf.der, intermediate.der, root.der])
    }

    @Test func refusesAChainWhoseRootWasNotSentAndIsNotTrusted() async {
        let (root, intermediate, leaf) = PKI.chain()
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [PKI.root("Another Root")]))
        #expect(verdict.codes == [.unknownIssuer])
        #expect(verdict.failures[0].certificate == 1)
        #expect(verdict.failures[0].message.contains("'\(root.subject)'"), "\(verdict.failures[0].message)")
    }

    @Test func refusesAnEmptyChain() async {
        let verdict = await PKI.evaluate(ServerTrust(certificates: [], anchors: PKI.anchors(PKI.root()), policy: .basicX509))
        #expect(verdict.codes == [.malformedCertificate])
        #expect(verdict.failures[0].certificate == nil)
        #expect(!verdict.isTrusted)
    }

    // MARK: Validity and --at

    @Test func refusesAnExpiredLeafAtALaterValidationTime() async {
        let (root, intermediate, _) = PKI.chain()
        let leaf = intermediate.leaf(notValidAfter: PKI.now.addingTimeInterval(86400))
        let trusted = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(trusted.isTrusted, "\(trusted.failures)")
        let later = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], at: PKI.now.addingTimeInterval(2 * 86400)))
        #expect(later.codes == [.expired])
        #expect(later.failures[0].certificate == 0)
        #expect(later.failures[0].message.contains(leaf.label))
        #expect(later.failures[0].message.contains("expired"))
        // The built chain is still reported, anchored.
        #expect(later.chainDER == [leaf.der, intermediate.der, root.der])
    }

    @Test func refusesALeafNotYetValid() async {
        let (root, intermediate, _) = PKI.chain()
        let leaf = intermediate.leaf(notValidBefore: PKI.now.addingTimeInterval(86400))
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(verdict.codes == [.notYetValid])
        #expect(verdict.failures[0].certificate == 0)
        #expect(verdict.failures[0].message.contains(leaf.label))
        let later = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], at: PKI.now.addingTimeInterval(2 * 86400)))
        #expect(later.isTrusted, "\(later.failures)")
    }

    @Test func pointsAtTheExpiredIntermediate() async {
        let root = PKI.root()
        let intermediate = root.intermediate("Short-lived CA", notValidAfter: PKI.now.addingTimeInterval(-60))
        let leaf = intermediate.leaf()
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(verdict.codes == [.expired])
        #expect(verdict.failures[0].certificate == 1)
        #expect(verdict.failures[0].message.contains(intermediate.label))
    }

    // MARK: Anchors

    /// An anchor is a name and a key (RFC 5280 §6.1.1 (d)), as SecTrust takes it: a version 1 root, or one whose
    /// basicConstraints say it is no CA, still anchors a chain. The Web PKI profile requires a CA (review-anchor F4).
    @Test func aVersion1OrNonCAAnchorStillAnchors() async throws {
        let v1Key = TestKey.p256()
        let v1Root = TestCert(certificate: try Certificate(
            version: .v1, serialNumber: PKI.serial(), publicKey: v1Key.publicKey, notValidBefore: PKI.notBefore,
            notValidAfter: PKI.notAfter, issuer: PKI.name("Version 1 Root"), subject: PKI.name("Version 1 Root"),
            signatureAlgorithm: v1Key.defaultSignatureAlgorithm, extensions: Certificate.Extensions([]),
            issuerPrivateKey: v1Key.certificateKey), key: v1Key)
        let notCAKey = TestKey.p256()
        let notCA = PKI.issue(subject: PKI.name("Not A CA Root"), key: notCAKey, issuer: nil, extensions: [
            try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
            try Certificate.Extension(KeyUsage(digitalSignature: true), critical: true)])
        for root in [v1Root, notCA] {
            let ca = root.intermediate("Issuing CA under \(root.label)")
            let direct = await PKI.evaluate(PKI.trust([root.leaf(), ], anchors: [root]))
            #expect(direct.isTrusted, "\(root.label): \(direct.failures)")
            let viaCA = await PKI.evaluate(PKI.trust([ca.leaf(), ca], anchors: [root]))
            #expect(viaCA.isTrusted, "\(root.label): \(viaCA.failures)")
        }
        var strict = PKI.ssl("www.example.com")
        strict.profile = .webPKI
        #expect(await PKI.evaluate(PKI.trust([notCA.leaf()], anchors: [notCA], policy: strict)).codes.contains(.basicConstraints))
        // The anchor's other constraints still hold: its name constraints, say.
        let constrainedKey = TestKey.p256()
        let constrained = PKI.issue(subject: PKI.name("Constrained Root"), key: constrainedKey, issuer: nil, extensions: [
            try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
            try Certificate.Extension(NameConstraints(permittedDNSDomains: ["example.org"]), critical: true)])
        #expect(await PKI.evaluate(PKI.trust([constrained.leaf()], anchors: [constrained])).codes == [.nameConstraints])
    }

    // MARK: Rules before signatures

    /// With one path by name, the rules run before any signature is verified: a leaf forged under the intermediate's
    /// name that also names another host is refused for the host. The same forgery naming the right host reaches the
    /// signature check and is refused for it.
    @Test func aSolePathThatFailsARuleIsRefusedBeforeItsSignaturesAreChecked() async {
        let (root, intermediate, _) = PKI.chain()
        let impostor = root.intermediate("Test Intermediate CA")
        let forgedForAnotherHost = impostor.leaf(dns: ["other.example.com"])
        let verdict = await PKI.evaluate(PKI.trust([forgedForAnotherHost, intermediate], anchors: [root]))
        #expect(verdict.codes == [.hostnameMismatch])
        #expect(verdict.chainDER == [forgedForAnotherHost.der, intermediate.der, root.der])
        #expect(verdict.notes.contains { $0.hasPrefix("signatures were not checked") }, "\(verdict.notes)")

        let forged = impostor.leaf()
        let checked = await PKI.evaluate(PKI.trust([forged, intermediate], anchors: [root]))
        #expect(checked.codes == [.unknownIssuer])
        #expect(checked.failures.first?.message.contains("did not sign") == true)
        #expect(checked.notes.isEmpty)
    }

    /// A sole path that passes its rules is decided without the path builder when every link would pass it; a search
    /// budget too small for that shortcut sends the same chain to the path builder, which must agree.
    @Test func aTrustedSolePathGetsThePathBuildersVerdict() async {
        for key in [TestKey.p256(), .rsa2048(0)] {
            let (root, intermediate, leaf) = PKI.chain(key: key)
            let trust = PKI.trust([leaf, intermediate], anchors: [root])
            let direct = await TrustEngine(cacheCapacity: 0).evaluate(trust)
            let built = await TrustEngine(searchBudget: SoleNamePath.searchLimit - 1, cacheCapacity: 0).evaluate(trust)
            #expect(direct.isTrusted, "\(direct.failures)")
            #expect(built.isTrusted, "\(built.failures)")
            #expect(direct.chainDER == [leaf.der, intermediate.der, root.der])
            #expect(built.chainDER == direct.chainDER)
            #expect(built.anchor == direct.anchor && direct.anchor == .custom)
            #expect(built.notes == direct.notes)
        }
    }

    /// Links the shortcut leaves to the path builder: an issuer with the name of a certificate below it (the path
    /// builder's loop check then compares keys), and a signature that does not verify.
    @Test func aSolePathLinkTheShortcutCannotJudgeGoesToThePathBuilder() async {
        let root = PKI.root()
        let intermediate = root.intermediate("Issuing CA")
        let namesake = intermediate.leaf(subject: PKI.name("Issuing CA"))
        let verdict = await PKI.evaluate(PKI.trust([namesake, intermediate], anchors: [root]))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.chainDER == [namesake.der, intermediate.der, root.der])

        let forged = PKI.root().intermediate("Issuing CA").leaf()
        let refused = await PKI.evaluate(PKI.trust([forged, intermediate], anchors: [root]))
        #expect(refused.codes == [.unknownIssuer])
        #expect(refused.notes.isEmpty)
    }

    // MARK: Backtracking

    @Test func backtracksPastAnExpiredCrossSignToAValidPath() async {
        let oldRoot = PKI.root("Old Root", notValidAfter: PKI.now.addingTimeInterval(-86400))
        let newRoot = PKI.root("New Root")
        let caKey = TestKey.p256()
        let viaOld = oldRoot.intermediate("Shared CA", key: caKey)
        let viaNew = newRoot.intermediate("Shared CA", key: caKey)
        let leaf = viaNew.leaf()
        for presented in [[leaf, viaOld, viaNew], [leaf, viaNew, viaOld]] {
            let verdict = await PKI.evaluate(PKI.trust(presented, anchors: [oldRoot, newRoot]))
            #expect(verdict.isTrusted, "\(verdict.failures)")
            #expect(verdict.chainDER == [leaf.der, viaNew.der, newRoot.der])
        }
    }

    @Test func backtracksPastASHA1CrossSignedIntermediateToTheSHA256Path() async {
        let legacyRoot = PKI.root("Legacy RSA Root", key: .rsa2048(0))
        let modernRoot = PKI.root("Modern Root")
        let caKey = TestKey.rsa2048(1)
        let sha1Cross = legacyRoot.intermediate("Cross-signed CA", key: caKey, signatureAlgorithm: .sha1WithRSAEncryption)
        let sha256 = modernRoot.intermediate("Cross-signed CA", key: caKey)
        let leaf = sha256.leaf()
        var policy = PKI.ssl("www.example.com")
        policy.requiresATSStrength = true
        for presented in [[leaf, sha1Cross, sha256], [leaf, sha256, sha1Cross]] {
            let verdict = await PKI.evaluate(PKI.trust(presented, anchors: [legacyRoot, modernRoot], policy: policy))
            #expect(verdict.isTrusted, "\(verdict.failures)")
            #expect(verdict.chainDER == [leaf.der, sha256.der, modernRoot.der])
        }
        // With only the SHA-1 path, the verdict names the weak signature.
        let onlySHA1 = await PKI.evaluate(PKI.trust([leaf, sha1Cross], anchors: [legacyRoot, modernRoot], policy: policy))
        #expect(onlySHA1.codes == [.weakSignature])
        #expect(onlySHA1.failures[0].certificate == 1)
        #expect(onlySHA1.failures[0].message.contains(sha1Cross.label))
        #expect(onlySHA1.chainDER == [leaf.der, sha1Cross.der, legacyRoot.der])
    }

    // MARK: Policies

    @Test func basicX509PolicyChecksNoHost() async {
        let (root, intermediate, _) = PKI.chain()
        let leaf = intermediate.leaf(dns: ["other.example.net"], extendedKeyUsage: nil)
        let basic = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: .basicX509))
        #expect(basic.isTrusted, "\(basic.failures)")
        let ssl = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: PKI.ssl("www.example.com")))
        #expect(Set(ssl.codes) == [.hostnameMismatch, .extendedKeyUsage])
    }

    @Test func sslPolicyWithoutAHostChecksEverythingButTheName() async {
        let (root, intermediate, _) = PKI.chain()
        let leaf = intermediate.leaf(dns: ["other.example.net"])
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: .ssl(host: nil)))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        let noEKU = intermediate.leaf(dns: ["other.example.net"], extendedKeyUsage: nil)
        let refused = await PKI.evaluate(PKI.trust([noEKU, intermediate], anchors: [root], policy: .ssl(host: nil)))
        #expect(refused.codes == [.extendedKeyUsage])
    }

    @Test func refusesAnUnknownCriticalExtensionOnTheLeaf() async {
        let (root, intermediate, _) = PKI.chain()
        let odd = Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 55555, 1], critical: true, value: [0x05, 0x00])
        let leaf = intermediate.leaf(extra: [odd])
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(verdict.codes == [.unhandledCriticalExtension])
        #expect(verdict.failures[0].certificate == 0)
        #expect(verdict.failures[0].message.contains("1.3.6.1.4.1.55555.1"), "\(verdict.failures[0].message)")
        #expect(verdict.failures[0].message.contains(leaf.label))
        // The same extension, not critical, is ignored.
        let benign = intermediate.leaf(extra: [Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 55555, 1], critical: false, value: [0x05, 0x00])])
        #expect(await PKI.evaluate(PKI.trust([benign, intermediate], anchors: [root])).isTrusted)
    }

    @Test func refusesAnUnknownCriticalExtensionOnAnIntermediate() async {
        let root = PKI.root()
        let odd = Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 55555, 2], critical: true, value: [0x05, 0x00])
        let intermediate = root.intermediate("Odd CA", extra: [odd])
        let leaf = intermediate.leaf()
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(verdict.codes == [.unhandledCriticalExtension])
        #expect(verdict.failures[0].certificate == 1)
        #expect(verdict.failures[0].message.contains("1.3.6.1.4.1.55555.2"), "\(verdict.failures[0].message)")
        #expect(verdict.failures[0].message.contains(intermediate.label))
    }

    @Test func aCriticalSubjectAltNameIsUnderstoodWithOrWithoutAHost() async {
        // RFC 5280 §4.2.1.6: a certificate with an empty subject must mark its subjectAltName critical.
        let (root, intermediate, _) = PKI.chain()
        let leaf = PKI.issue(subject: DistinguishedName(), key: .p256(), issuer: intermediate, extensions: [
            try! Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
            try! Certificate.Extension(KeyUsage(digitalSignature: true), critical: true),
            try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: false),
            try! Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: true),
        ])
        for policy in [PKI.ssl("www.example.com"), TrustPolicy.ssl(host: nil), .basicX509] {
            let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: policy))
            #expect(verdict.isTrusted, "\(policy.kind): \(verdict.failures)")
        }
        let skipHost = await DefaultTrustEvaluator(validateHost: false, engine: TrustEngine(cacheCapacity: 0))
            .evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: PKI.ssl("other.example.com")))
        #expect(skipHost.isTrusted, "\(skipHost.failures)")
    }

    @Test func aFaultTwoRulesFindIsReportedOnce() async {
        let (root, intermediate, _) = PKI.chain()
        // A subjectAltName that is not a SEQUENCE: StructureRule and HostnameRule both find it.
        let leaf = intermediate.leaf("garbled.example.com", dns: [], extra: [
            Certificate.Extension(oid: .X509ExtensionID.subjectAlternativeName, critical: false, value: [0x04, 0x00]),
        ])
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(verdict.failures.count { $0.code == .malformedCertificate } == 1, "\(verdict.failures)")
        #expect(verdict.failures.first?.message.contains("malformed subjectAltName") == true, "\(verdict.failures)")
        #expect(Set(verdict.failures).count == verdict.failures.count)

        // A CA without keyCertSign: StructureRule and KeyUsageRule both find it.
        let noSign = root.intermediate("No keyCertSign CA", keyUsage: KeyUsage(cRLSign: true))
        let signed = await PKI.evaluate(PKI.trust([noSign.leaf(), noSign], anchors: [root]))
        #expect(signed.failures.filter { $0.code == .keyUsage }.map(\.certificate) == [1], "\(signed.failures)")
    }

    @Test func enforcesTheMaximumChainDepth() async {
        let root = PKI.root()
        let a = root.intermediate("CA A")
        let b = a.intermediate("CA B")
        let c = b.intermediate("CA C")
        let leaf = c.leaf()
        var policy = PKI.ssl("www.example.com")
        policy.maximumIntermediates = 2
        let verdict = await PKI.evaluate(PKI.trust([leaf, c, b, a], anchors: [root], policy: policy))
        #expect(verdict.codes == [.chainTooLong])
        #expect(verdict.failures[0].certificate == 4)
        #expect(verdict.failures[0].message.contains("3 intermediate CAs, more than the allowed 2"), "\(verdict.failures[0].message)")
        policy.maximumIntermediates = 3
        #expect(await PKI.evaluate(PKI.trust([leaf, c, b, a], anchors: [root], policy: policy)).isTrusted)
    }

    @Test func refusesACertificateThatCannotBeRead() async {
        let (root, intermediate, leaf) = PKI.chain()
        let truncated = Array(leaf.der.prefix(leaf.der.count / 2))
        let verdict = await PKI.evaluate(ServerTrust(certificates: [truncated, intermediate.der], anchors: PKI.anchors(root), policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(!verdict.isTrusted)
        #expect(verdict.codes == [.malformedCertificate])
        #expect(verdict.failures[0].certificate == 0)
        #expect(verdict.failures[0].message.contains("certificate 0"))
        let badIntermediate = await PKI.evaluate(ServerTrust(certificates: [leaf.der, Array(intermediate.der.dropLast(3))], anchors: PKI.anchors(root), policy: PKI.ssl("www.example.com"), validationTime: PKI.now))
        #expect(badIntermediate.codes == [.malformedCertificate])
        #expect(badIntermediate.failures[0].certificate == 1)
    }

    // MARK: Names compared as RFC 5280 §7.1 asks

    typealias Attribute = RelativeDistinguishedName.Attribute

    static func printableName(_ o: String, _ cn: String) -> DistinguishedName {
        DistinguishedName([RelativeDistinguishedName(try! Attribute(type: .RDNAttributeType.organizationName, printableString: o)),
                           RelativeDistinguishedName(try! Attribute(type: .RDNAttributeType.commonName, printableString: cn))])
    }

    static func ca(_ subject: DistinguishedName, issuer: TestCert, issuerName: DistinguishedName) -> TestCert {
        PKI.issue(subject: subject, key: .p256(), issuer: issuer, issuerName: issuerName, extensions: [
            try! Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true),
            try! Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
        ])
    }

    static func serverLeaf(issuer: TestCert, issuerName: DistinguishedName) -> TestCert {
        PKI.issue(subject: PKI.name("leaf"), key: .p256(), issuer: issuer, issuerName: issuerName, extensions: [
            try! Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
            try! Certificate.Extension(KeyUsage(digitalSignature: true), critical: true),
            try! Certificate.Extension(try! ExtendedKeyUsage([.serverAuth]), critical: false),
            try! Certificate.Extension(SubjectAlternativeNames([.dnsName("www.example.com")]), critical: false),
        ])
    }

    /// UTF8String root named in PrintableString, other case and spacing; PrintableString intermediate named in
    /// UTF8String: each link is found, in the anchors and among the intermediates.
    @Test func chainsThroughIssuerNamesReEncodedEitherWay() async {
        let root = PKI.root()
        let intermediate = Self.ca(Self.printableName("Transport Trust Tests", "Test Intermediate CA"), issuer: root,
                                   issuerName: Self.printableName("TRANSPORT TRUST  TESTS", " test root ca"))
        let leaf = Self.serverLeaf(issuer: intermediate, issuerName: PKI.name("test intermediate ca", organization: "transport trust tests"))
        #expect(leaf.certificate.issuer != intermediate.subject && intermediate.certificate.issuer != root.subject)
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(verdict.isTrusted, "\(verdict.failures)")
        #expect(verdict.chainDER == [leaf.der, intermediate.der, root.der])
        // A second intermediate of the same name (another key) leaves more than one path by name: the path builder
        // decides, through the same name comparison.
        let decoy = Self.ca(Self.printableName("Transport Trust Tests", "Test Intermediate CA"), issuer: root, issuerName: root.subject)
        let searched = await PKI.evaluate(PKI.trust([leaf, decoy, intermediate], anchors: [root]))
        #expect(searched.isTrusted, "\(searched.failures)")
        #expect(searched.chainDER == [leaf.der, intermediate.der, root.der])
    }

    @Test func anIssuerNameWithItsRDNsInAnotherOrderFindsNoIssuer() async {
        let root = PKI.root()
        let reordered = DistinguishedName([RelativeDistinguishedName(Attribute(type: .RDNAttributeType.commonName, utf8String: "Test Root CA")),
                                           RelativeDistinguishedName(Attribute(type: .RDNAttributeType.organizationName, utf8String: "Transport Trust Tests"))])
        let intermediate = Self.ca(PKI.name("Test Intermediate CA"), issuer: root, issuerName: reordered)
        let leaf = intermediate.leaf()
        let verdict = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(verdict.codes == [.unknownIssuer], "\(verdict.failures)")
    }

    /// A name of 10,000 RDNs is compared in one pass, byte for byte, and the verdict says so.
    @Test func anIssuerNameOfTenThousandRDNsEndsWithAReason() async {
        let root = PKI.root()
        let units = (0..<10_000).map { "Unit \($0)" }
        let utf8 = DistinguishedName(units.map { RelativeDistinguishedName(Attribute(type: .RDNAttributeType.organizationalUnitName, utf8String: $0)) })
        let printable = DistinguishedName(units.map { RelativeDistinguishedName(try! Attribute(type: .RDNAttributeType.organizationalUnitName, printableString: $0)) })
        let intermediate = Self.ca(utf8, issuer: root, issuerName: root.subject)
        let leaf = Self.serverLeaf(issuer: intermediate, issuerName: printable)
        let verdict = await bounded(.seconds(60)) { await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root])) }
        #expect(verdict?.codes == [.unknownIssuer], "\(verdict?.failures ?? [])")
        #expect(verdict?.failures.first?.message.contains("has 10000 attributes") == true, "\(verdict?.failures ?? [])")
    }

    // MARK: Anchors in the leaf position

    /// As SecTrust and OpenSSL's partial chain do: a leaf that is an anchor needs no path above it.
    @Test func aLeafThatIsItselfAnAnchorIsTrustedAsOne() async {
        let (root, intermediate, leaf) = PKI.chain()
        let alone = await PKI.evaluate(PKI.trust([leaf], anchors: [leaf]))
        #expect(alone.isTrusted, "\(alone.failures)")
        #expect(alone.leafIsAnchor)
        #expect(alone.anchor == .custom)
        #expect(alone.chainDER == [leaf.der])
        // Its issuers at hand change nothing: the path stops at the first anchor, the leaf.
        let withIssuers = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root, leaf]))
        #expect(withIssuers.leafIsAnchor)
        #expect(withIssuers.chainDER == [leaf.der])
        let path = await PKI.evaluate(PKI.trust([leaf, intermediate], anchors: [root]))
        #expect(path.isTrusted && !path.leafIsAnchor)
    }

    @Test func aLeafAnchorStillMeetsThePolicy() async {
        let (_, intermediate, leaf) = PKI.chain()
        let otherHost = await PKI.evaluate(PKI.trust([leaf], anchors: [leaf], policy: PKI.ssl("other.example.com")))
        #expect(otherHost.codes == [.hostnameMismatch])
        #expect(!otherHost.leafIsAnchor)
        let expired = intermediate.leaf(notValidBefore: PKI.now.addingTimeInterval(-90 * 86400), notValidAfter: PKI.now.addingTimeInterval(-86400))
        #expect(await PKI.evaluate(PKI.trust([expired], anchors: [expired])).codes == [.expired])
        let clientOnly = intermediate.leaf(extendedKeyUsage: [.clientAuth])
        #expect(await PKI.evaluate(PKI.trust([clientOnly], anchors: [clientOnly])).codes == [.extendedKeyUsage])
    }

    // MARK: Evaluators

    @Test func defaultEvaluatorCanSkipTheHostButNotTheRest() async {
        let (root, intermediate, _) = PKI.chain()
        let leaf = intermediate.leaf(dns: ["other.example.net"])
        let trust = PKI.trust([leaf, intermediate], anchors: [root])
        let engine = TrustEngine(cacheCapacity: 0)
        let checked = await DefaultTrustEvaluator(engine: engine).evaluate(trust)
        #expect(checked.codes == [.hostnameMismatch])
        #expect(checked.failures[0].message.contains("www.example.com"))
        #expect(checked.failures[0].message.contains("other.example.net"))
        let unchecked = await DefaultTrustEvaluator(validateHost: false, engine: engine).evaluate(trust)
        #expect(unchecked.isTrusted, "\(unchecked.failures)")

        let expired = await DefaultTrustEvaluator(validateHost: false, engine: engine)
            .evaluate(PKI.trust([leaf, intermediate], anchors: [root], at: PKI.notAfter.addingTimeInterval(1)))
        #expect(expired.codes.contains(.expired))
    }

    struct Refusing: ServerTrustEvaluating {
        func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
            .refused(TrustFailure(.pinMismatch, certificate: 0, "no pinned key matches"))
        }
    }

    struct Noting: ServerTrustEvaluating {
        func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
            TrustVerdict(anchor: nil, chain: [], failures: [], notes: ["looked"])
        }
    }

    @Test func compositeEvaluatorNeedsEveryEvaluatorAndKeepsEveryReason() async {
        let (root, intermediate, leaf) = PKI.chain()
        let trust = PKI.trust([leaf, intermediate], anchors: [root])
        let engine = TrustEngine(cacheCapacity: 0)

        let allGood = await CompositeTrustEvaluator([DefaultTrustEvaluator(engine: engine), Noting()]).evaluate(trust)
        #expect(allGood.isTrusted)
        #expect(allGood.notes == ["looked"])
        #expect(allGood.anchor == .custom)
        #expect(allGood.chainDER == [leaf.der, intermediate.der, root.der])

        let pinned = await CompositeTrustEvaluator([DefaultTrustEvaluator(engine: engine), Refusing()]).evaluate(trust)
        #expect(!pinned.isTrusted)
        #expect(pinned.codes == [.pinMismatch])
        #expect(pinned.chainDER == [leaf.der, intermediate.der, root.der])

        let both = await CompositeTrustEvaluator([DefaultTrustEvaluator(engine: engine), Refusing()])
            .evaluate(PKI.trust([leaf, intermediate], anchors: [root], policy: PKI.ssl("other.example.net")))
        #expect(both.codes == [.hostnameMismatch, .pinMismatch])

        let none = await CompositeTrustEvaluator([]).evaluate(trust)
        #expect(!none.isTrusted)
        #expect(none.codes == [.policy])
    }

    /// A cancelled evaluation stops searching and refuses, saying why; it leaves nothing behind that a later
    /// evaluation of the same chain would reuse.
    @Test func aCancelledEvaluationRefusesAndIsNotRemembered() async {
        let root = PKI.root()
        // Two issuers of one name: the path builder, not the one-path shortcut, has to search.
        let intermediate = root.intermediate("Test Intermediate CA")
        let namesake = root.intermediate("Test Intermediate CA")
        let leaf = intermediate.leaf()
        let trust = PKI.trust([leaf, namesake, intermediate], anchors: [root])
        let engine = TrustEngine()
        let cancelled = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await engine.evaluate(trust)
        }.value
        #expect(!cancelled.isTrusted)
        #expect(cancelled.codes == [.internalError], "\(cancelled.failures)")
        #expect(cancelled.failures.first?.message.contains("cancelled") == true)

        let again = await engine.evaluate(trust)
        #expect(again.isTrusted, "\(again.failures)")
        #expect(again.chain.map(\.der) == [leaf.der, intermediate.der, root.der])
    }
}
