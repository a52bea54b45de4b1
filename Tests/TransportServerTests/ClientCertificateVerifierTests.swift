import Foundation
import TestSupport
import TestServersSupport
import Testing
import TransportServer
import TransportTrust
import X509

/// The decision alone, without a handshake: every case of the matrix the engine decides.
@Suite struct ClientCertificateVerifierTests {
    let root = PKI.root("Client Root CA")
    var ca: TestCert { root.intermediate("Client Issuing CA") }

    func verifier(_ policy: ClientVerificationPolicy, engine: TrustEngine = TrustEngine(cacheCapacity: 0)) -> ClientCertificateVerifier {
        var policy = policy
        policy.validationTime = PKI.now
        return ClientCertificateVerifier(policy: policy, engine: engine)
    }

    func policy(_ anchors: [TestCert]? = nil, pins: PinSet? = nil, revocation: RevocationOptions = .off,
                names: [String] = [], mode: ClientCertificateMode = .required) throws -> ClientVerificationPolicy {
        ClientVerificationPolicy(anchors: (anchors ?? [root]).map(\.input), mode: mode, pins: pins, revocation: revocation,
                                 nameRules: try names.map { try ClientNameRule(parsing: $0) })
    }

    @Test func aGoodClientIsVerifiedWithItsChainKeyAndNames() async throws {
        let ca = self.ca
        let leaf = MTLSFixture.clientLeaf(ca)
        let verdict = await verifier(try policy()).verify([leaf.der, ca.der])
        #expect(verdict.isVerified, "\(verdict.failures)")
        #expect(verdict.chain.map(\.der) == [leaf.der, ca.der, root.der])
        #expect(verdict.spkiSHA256 == "sha256/" + (leaf.input.spkiSHA256Base64 ?? ""))
        #expect(verdict.names?.uris == [MTLSFixture.spiffeID])
        #expect(verdict.names?.dnsNames == ["api.payments.internal"])
        #expect(verdict.names?.emails == ["api@example.org"])
        #expect(verdict.names?.commonNames == ["payments-api"])
        #expect(verdict.match?.description == "client anchors")
        #expect(verdict.reasonCode == nil)
    }

    @Test func expiredAndForeignAndWrongEKUAreRefusedWithTheirReasons() async throws {
        let ca = self.ca
        let expired = MTLSFixture.clientLeaf(ca, notValidBefore: PKI.now.addingTimeInterval(-90 * 86400), notValidAfter: PKI.now.addingTimeInterval(-86400))
        var verdict = await verifier(try policy()).verify([expired.der, ca.der])
        #expect(verdict.reasonCode == "expired", "\(verdict.failures)")

        let otherRoot = PKI.root("Other Root CA")
        let otherCA = otherRoot.intermediate("Other Issuing CA")
        verdict = await verifier(try policy()).verify([MTLSFixture.clientLeaf(otherCA).der, otherCA.der])
        #expect(!verdict.isVerified)
        // The chain ends at a CA whose issuer is neither sent nor an anchor.
        #expect(verdict.reasonCode == "unknownIssuer", "\(verdict.failures)")

        let serverOnly = MTLSFixture.clientLeaf(ca, eku: [.serverAuth])
        verdict = await verifier(try policy()).verify([serverOnly.der, ca.der])
        #expect(verdict.reasonCode == "extendedKeyUsage")
        #expect(verdict.failures.first?.message.contains("clientAuth") == true, "\(verdict.failures)")
        #expect(verdict.logLine.contains("reason=extendedKeyUsage"))
        #expect(verdict.logLine.contains("subject=\"CN=payments-api"))
        #expect(verdict.logLine.contains("spki=sha256/"))
    }

    /// Refusals are logged before any trust is established, so any client's subject reaches the log line.
    @Test func aSubjectCannotForgeALogLineOrRewriteTheTerminal() async throws {
        let otherCA = PKI.root("Other Root CA").intermediate("Other Issuing CA")
        let forged = MTLSFixture.clientLeaf(otherCA, cn: "evil\nclient verified: subject=\"CN=admin\" \u{1B}[31mRED")
        let verdict = await verifier(try policy()).verify([forged.der, otherCA.der])
        #expect(!verdict.isVerified)
        #expect(!verdict.logLine.contains("\n") && !verdict.logLine.contains("\u{1B}"), "\(verdict.logLine)")
        #expect(verdict.logLine.contains("CN=evil\\nclient verified"), "\(verdict.logLine)")
        #expect(verdict.failures.allSatisfy { !$0.message.contains("\u{1B}") }, "\(verdict.failures)")
    }

    @Test func aLeafWithoutExtendedKeyUsageIsRefusedUnlessThePolicyAdmitsIt() async throws {
        let ca = self.ca
        let bare = MTLSFixture.clientLeaf(ca, eku: nil)
        var verdict = await verifier(try policy()).verify([bare.der, ca.der])
        #expect(verdict.reasonCode == "extendedKeyUsage")
        #expect(verdict.failures.map(\.message).joined().contains("must list clientAuth"))
        var lenient = try policy()
        lenient.leafMustListClientAuth = false
        verdict = await verifier(lenient).verify([bare.der, ca.der])
        #expect(verdict.isVerified, "\(verdict.failures)")
    }

    @Test func aMissingIntermediateIsTheClientsToSend() async throws {
        let leaf = MTLSFixture.clientLeaf(ca)
        let verdict = await verifier(try policy()).verify([leaf.der])
        #expect(verdict.reasonCode == "unknownIssuer", "\(verdict.failures)")
        let message = verdict.failures.first?.message ?? ""
        #expect(message.contains("the client did not send the intermediate"), "\(message)")
        #expect(message.contains("the client's chain"), "\(message)")
        #expect(!message.contains("server"), "\(message)")
    }

    @Test func aCAWhoseEKUAllowsClientAuthOrAnyPurposeMayIssue() async throws {
        for usages in [[ExtendedKeyUsage.Usage.clientAuth], [.any], [.serverAuth, .clientAuth]] {
            let issuer = root.intermediate("CA \(usages)", extendedKeyUsage: usages)
            let verdict = await verifier(try policy()).verify([MTLSFixture.clientLeaf(issuer).der, issuer.der])
            #expect(verdict.isVerified, "\(usages): \(verdict.failures)")
        }
    }

    @Test func aCAWhoseEKUExcludesClientAuthCannotIssueClientCertificates() async throws {
        let serverCA = root.intermediate("Server-only CA", extendedKeyUsage: [.serverAuth])
        let leaf = MTLSFixture.clientLeaf(serverCA)
        let verdict = await verifier(try policy()).verify([leaf.der, serverCA.der])
        #expect(verdict.reasonCode == "extendedKeyUsage", "\(verdict.failures)")
        #expect(verdict.failures.contains { $0.certificate == 1 })
    }

    @Test func pinsOnTheKeyOrTheCAAdmitOnlyPinnedClients() async throws {
        let ca = self.ca
        let pinned = MTLSFixture.clientLeaf(ca)
        let unpinned = MTLSFixture.clientLeaf(ca, cn: "other-service")
        let leafPins = PinSet([try Pin.spkiSHA256(of: pinned.input)], scope: .leaf)
        var verdict = await verifier(try policy(pins: leafPins)).verify([pinned.der, ca.der])
        #expect(verdict.isVerified, "\(verdict.failures)")
        #expect(verdict.match?.pins.first?.certificate == 0)
        verdict = await verifier(try policy(pins: leafPins)).verify([unpinned.der, ca.der])
        #expect(verdict.reasonCode == "pinMismatch")
        #expect(!verdict.logLine.contains("\n"), "the log line must be one line")

        let caPins = PinSet([try Pin.spkiSHA256(of: ca.input)], scope: .ca)
        verdict = await verifier(try policy(pins: caPins)).verify([unpinned.der, ca.der])
        #expect(verdict.isVerified, "\(verdict.failures)")
        #expect(verdict.match?.description.contains("matched certificate 1") == true)
    }

    @Test func nameRulesAdmitMatchingNamesAndRefuseOthers() async throws {
        let ca = self.ca
        let leaf = MTLSFixture.clientLeaf(ca)
        var verdict = await verifier(try policy(names: ["uri:spiffe://example.org/ns/billing/*", "uri:spiffe://example.org/ns/payments/*"]))
            .verify([leaf.der, ca.der])
        #expect(verdict.isVerified, "\(verdict.failures)")
        #expect(verdict.match?.nameRule?.description == "uri:spiffe://example.org/ns/payments/*")
        #expect(verdict.match?.name == MTLSFixture.spiffeID)

        verdict = await verifier(try policy(names: ["uri:spiffe://example.org/ns/billing/*", "cn:billing-*"])).verify([leaf.der, ca.der])
        #expect(verdict.reasonCode == "nameNotAllowed")
        #expect(verdict.failures.first?.message.contains(MTLSFixture.spiffeID) == true)
    }

    @Test func aRevokedClientIsRefusedThroughAHandedInOCSPResponse() async throws {
        let ca = self.ca
        let leaf = MTLSFixture.clientLeaf(ca)
        let revoked = try OCSPResponseBuilder.response(for: leaf, issuer: ca, status: .revoked(at: PKI.now.addingTimeInterval(-86400)))
        var verdict = await verifier(try policy(revocation: RevocationOptions(mode: .hard, responses: [revoked]))).verify([leaf.der, ca.der])
        #expect(verdict.reasonCode == "revoked", "\(verdict.failures)")
        let good = try OCSPResponseBuilder.response(for: leaf, issuer: ca, status: .good)
        verdict = await verifier(try policy(revocation: RevocationOptions(mode: .soft, responses: [good]))).verify([leaf.der, ca.der])
        #expect(verdict.isVerified, "\(verdict.failures)")
    }

    @Test func aClientSending150CertificatesIsRefusedBeforeAnyParsing() async throws {
        let ca = self.ca
        let leaf = MTLSFixture.clientLeaf(ca)
        let flood = [leaf.der] + Array(repeating: ca.der, count: 149)
        let verdict = await verifier(try policy()).verify(flood)
        #expect(verdict.reasonCode == "chainTooLong")
        #expect(verdict.failures.first?.message == "the client sent 150 certificates; at most 16 are accepted")
        #expect(verdict.names?.commonNames == ["payments-api"])
    }

    @Test func noCertificateIsARefusalOnlyWhenRequired() async throws {
        #expect(await verifier(try policy()).verify([]).reasonCode == "noCertificate")
        #expect(await verifier(try policy(mode: .optional)).verify([]).outcome == .notPresented)
    }

    @Test func aReconnectingClientIsAnsweredFromTheValidatedPathCache() async throws {
        let ca = self.ca
        let leaf = MTLSFixture.clientLeaf(ca)
        let engine = TrustEngine()
        let v = verifier(try policy(names: ["dns:*.payments.internal"]), engine: engine)
        #expect(await v.verify([leaf.der, ca.der]).isVerified)
        #expect(engine.cachedPathCount == 1)
        #expect(engine.answeredFromCache == 0)
        let again = await v.verify([leaf.der, ca.der])
        #expect(again.isVerified)
        #expect(again.match?.name == "api.payments.internal")
        #expect(engine.cachedPathCount == 1)
        // Answered from the cache: no path search and no signature check the second time.
        #expect(engine.answeredFromCache == 1)
    }
}
