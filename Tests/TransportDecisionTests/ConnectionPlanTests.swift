import AppTransportSecurity
import Foundation
import TestSupport
import Testing
import TransportDecision
import TransportTrust
import X509

/// Every branch of the connection decision, without a socket: certificates from the test PKI, negotiated
/// parameters written down, and the delegate's answer given as a value.
@Suite struct ConnectionPlanTests {
    static let tls13 = HandshakeSummary(tlsVersion: .tls13, cipherSuite: "TLS_AES_128_GCM_SHA256", cipherSuiteCode: 0x1301)
    static let host = "www.example.com"
    let pki = PKI.chain()

    /// Requirements for `url` under an Info.plist whose NSAppTransportSecurity holds `ats` (XML elements).
    static func requirements(_ ats: String = "", url: String = "https://\(host)/") throws -> ConnectionRequirements {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>NSAppTransportSecurity</key><dict>\(ats)</dict></dict></plist>
            """
        let source = try ConfigurationLoader().load(data: Data(plist.utf8), name: "Info.plist")
        return try RequirementsResolver(configuration: source.configuration).requirements(for: url)
    }

    func plan(_ ats: String = "", anchors: TrustAnchors? = nil, manager: ServerTrustManager? = nil) throws -> ConnectionPlan {
        let settings = TrustSettings(anchors: anchors ?? PKI.anchors(pki.root), trustManager: manager, validationTime: PKI.now)
        return ConnectionPlan(peer: PKI.host(Self.host), port: 443, requirements: try Self.requirements(ats), settings: settings)
    }

    var served: [[UInt8]] { [pki.leaf.der, pki.intermediate.der] }

    func decide(_ plan: ConnectionPlan, _ handshake: HandshakeSummary = tls13, presented: [[UInt8]]? = nil,
                answer: ServerTrustAnswer = .evaluationStands) async -> ConnectionDecision {
        plan.decide(await plan.assess(presented: presented ?? served, handshake: handshake), answer: answer)
    }

    static func pinned(ca: [String]? = nil, leaf: [String]? = nil) -> String {
        func array(_ key: String, _ hashes: [String]?) -> String {
            guard let hashes else { return "" }
            return "<key>\(key)</key><array>" + hashes.map { "<dict><key>SPKI-SHA256-BASE64</key><string>\($0)</string></dict>" }.joined() + "</array>"
        }
        return "<key>NSPinnedDomains</key><dict><key>\(host)</key><dict>\(array("NSPinnedCAIdentities", ca))\(array("NSPinnedLeafIdentities", leaf))</dict></dict>"
    }

    static func pin(_ cert: TestCert) -> String { cert.input.spkiSHA256Base64 ?? "" }

    // MARK: Trust

    @Test func aTrustedChainUnderDefaultATSIsAllowed() async throws {
        let decision = await decide(try plan())
        #expect(decision.isAllowed, "\(String(describing: decision.refusal))")
        #expect(decision.verdict.isTrusted)
        #expect(decision.evaluation.reasons.map(\.kind) == [.tlsVersion, .cipherSuite, .certificate])
    }

    @Test func anUntrustedChainIsRefusedForItsCertificate() async throws {
        let decision = await decide(try plan(anchors: PKI.anchors(PKI.root("Other Root"))))
        #expect(decision.refusal?.kind == .serverTrustRefused)
        #expect(decision.evaluation.blockingReasons.map(\.kind) == [.certificate])
    }

    /// ATS's key sizes are checked by the trust policy, not after it: where ATS applies the policy carries the rule,
    /// and where it does not, the rule is off with it.
    @Test func atsKeyStrengthIsARuleOfTheTrustPolicy() throws {
        #expect(try plan().trustPolicy.requiresATSStrength)
        #expect(try plan("<key>NSAllowsArbitraryLoads</key><true/>").trustPolicy.requiresATSStrength == false)
    }

    @Test func aChainForAnotherHostIsRefused() async throws {
        let other = pki.intermediate.leaf(dns: ["api.example.org"])
        let decision = await decide(try plan(), presented: [other.der, pki.intermediate.der])
        #expect(decision.refusal?.kind == .serverTrustRefused)
        #expect(decision.verdict.failures.map(\.code).contains(.hostnameMismatch))
    }

    // MARK: ATS version and suites

    @Test func aVersionBelowTheMinimumIsAnATSRefusal() async throws {
        let tls11 = HandshakeSummary(tlsVersion: .tls11, cipherSuite: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", cipherSuiteCode: 0xC009)
        let decision = await decide(try plan(), tls11)
        #expect(decision.refusal?.kind == .atsRefused)
        #expect(decision.evaluation.blockingReasons.map(\.kind).contains(.tlsVersion))
        #expect(decision.verdict.isTrusted)
    }

    @Test func aSuiteWithoutForwardSecrecyIsAnATSRefusalUnlessTheExceptionAllowsIt() async throws {
        let rsa = HandshakeSummary(tlsVersion: .tls12, cipherSuite: "TLS_RSA_WITH_AES_128_GCM_SHA256", cipherSuiteCode: 0x009C)
        let refused = await decide(try plan(), rsa)
        #expect(refused.refusal?.kind == .atsRefused)
        #expect(refused.evaluation.blockingReasons.map(\.kind) == [.cipherSuite])

        let exception = "<key>NSExceptionDomains</key><dict><key>\(Self.host)</key><dict><key>NSExceptionRequiresForwardSecrecy</key><false/></dict></dict>"
        #expect(await decide(try plan(exception), rsa).isAllowed)
    }

    @Test func aHandshakeWhoseServerHelloWasNotReadIsRefusedWhateverElseHeld() async throws {
        let unread = HandshakeSummary(tlsVersion: nil, cipherSuite: nil, cipherSuiteCode: nil)
        for answer in [ServerTrustAnswer.evaluationStands, .acceptServerTrust] {
            let decision = await decide(try plan(), unread, answer: answer)
            #expect(decision.refusal?.kind == .atsRefused)
            #expect(decision.verdict.isTrusted)
        }
    }

    // MARK: Pins

    @Test func atsPinsAreCheckedAgainstTheChainAsBuilt() async throws {
        // The root is not sent, but it is on the built chain, so a root pin holds.
        #expect(await decide(try plan(Self.pinned(ca: [Self.pin(pki.root)]))).isAllowed)
        #expect(await decide(try plan(Self.pinned(ca: [Self.pin(pki.intermediate)], leaf: [Self.pin(pki.leaf)]))).isAllowed)

        let wrong = await decide(try plan(Self.pinned(ca: [Self.pin(PKI.root("Other"))])))
        #expect(wrong.refusal?.kind == .pinMismatch)
        #expect(wrong.evaluation.blockingReasons.map(\.kind) == [.pins])
        #expect(wrong.verdict.isTrusted)
        // A leaf pin never matches a CA, and a CA pin never the leaf.
        #expect(await decide(try plan(Self.pinned(leaf: [Self.pin(pki.intermediate)]))).refusal?.kind == .pinMismatch)
        #expect(await decide(try plan(Self.pinned(ca: [Self.pin(pki.leaf)]))).refusal?.kind == .pinMismatch)
        // Both arrays: one of each must match.
        #expect(await decide(try plan(Self.pinned(ca: [Self.pin(pki.root)], leaf: [Self.pin(pki.root)]))).refusal?.kind == .pinMismatch)
    }

    @Test func anATSPinArrayWithNothingUsableStillHasToMatch() async throws {
        // Fail closed: an empty or malformed CA array must not leave the CA scope unpinned.
        for ca in [[], ["not base64!"], ["AAAA"]] {
            let decision = await decide(try plan(Self.pinned(ca: ca, leaf: [Self.pin(pki.leaf)])))
            #expect(decision.refusal?.kind == .pinMismatch, "\(ca)")
        }
    }

    @Test func theTrustManagersPinsAndHostListDecideToo() async throws {
        let pins = PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + Self.pin(PKI.root("Other")))], scope: .any)
        let manager = ServerTrustManager(rules: [.init(try HostPattern(Self.host), pins)])
        let mismatch = await decide(try plan(manager: manager))
        #expect(mismatch.refusal?.kind == .pinMismatch)

        let elsewhere = ServerTrustManager(allHostsMustBeEvaluated: true, rules: [.init(try HostPattern("api.example.org"), DefaultTrustEvaluator())])
        let notListed = await decide(try plan(manager: elsewhere))
        #expect(notListed.refusal?.kind == .hostNotAllowed)
    }

    // MARK: CT and revocation

    @Test func aPublicChainWithTooFewSCTsIsRefusedUnderEnforcement() async throws {
        let ct = try CTTestPKI()
        let logs = [TestCTLog(name: "A"), TestCTLog(name: "B")]
        let leaf = ct.ca.leafWithSCTs([logs[0]])
        var settings = TrustSettings(anchors: ct.publicAnchors, validationTime: PKI.now)
        settings.certificateTransparency = CertificateTransparencyOptions(mode: .enforce, logList: try ct.list(logs))
        let plan = ConnectionPlan(peer: PKI.host(Self.host), port: 443, requirements: try Self.requirements(), settings: settings)
        let refused = plan.decide(await plan.assess(presented: [leaf.der, ct.ca.der], handshake: Self.tls13), answer: .evaluationStands)
        #expect(refused.refusal?.kind == .serverTrustRefused)
        #expect(refused.verdict.failures.map(\.code).contains(.certificateTransparency))

        let enough = ct.ca.leafWithSCTs(logs)
        #expect(plan.decide(await plan.assess(presented: [enough.der, ct.ca.der], handshake: Self.tls13), answer: .evaluationStands).isAllowed)
    }

    @Test func aRevokedLeafIsRefusedWhenRevocationIsChecked() async throws {
        let aia = try Certificate.Extension(AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier("http://ocsp.invalid/"))]), critical: false)
        let leaf = pki.intermediate.leaf(extra: [aia])
        let revoked = try OCSPResponseBuilder.response(for: leaf, issuer: pki.intermediate, status: .revoked(at: PKI.notBefore))
        var settings = TrustSettings(anchors: PKI.anchors(pki.root), revocation: .soft, ocspSource: Responder(answer: revoked), validationTime: PKI.now)
        let plan = ConnectionPlan(peer: PKI.host(Self.host), port: 443, requirements: try Self.requirements(), settings: settings)
        let decision = plan.decide(await plan.assess(presented: [leaf.der, pki.intermediate.der], handshake: Self.tls13), answer: .evaluationStands)
        #expect(decision.refusal?.kind == .serverTrustRefused)
        #expect(decision.verdict.failures.map(\.code).contains(.revoked))

        settings.revocation = .off
        let unchecked = ConnectionPlan(peer: PKI.host(Self.host), port: 443, requirements: try Self.requirements(), settings: settings)
        #expect(unchecked.decide(await unchecked.assess(presented: [leaf.der, pki.intermediate.der], handshake: Self.tls13), answer: .evaluationStands).isAllowed)
    }

    struct Responder: OCSPResponseSource {
        let answer: [UInt8]
        func response(for request: [UInt8], responderURI: String) async -> [UInt8]? { answer }
    }

    // MARK: The delegate

    @Test func theDelegateMayCancelAnyConnection() async throws {
        let cancelled = await decide(try plan(), answer: .cancel)
        #expect(cancelled.refusal?.kind == .authenticationCancelled)
        let wrong = await decide(try plan(), answer: .wrongCredential)
        #expect(wrong.refusal?.kind == .authenticationCancelled)
    }

    @Test func theDelegateMayAcceptAnUntrustedChainOnlyWhereTheRequirementsRelaxValidation() async throws {
        let otherRoot = PKI.anchors(PKI.root("Other Root"))
        let strict = await decide(try plan(anchors: otherRoot), answer: .acceptServerTrust)
        #expect(strict.refusal?.kind == .serverTrustRefused)
        #expect(strict.notes.contains { $0.contains("was ignored") })

        let relaxed = "<key>NSExceptionDomains</key><dict><key>\(Self.host)</key><dict><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict></dict>"
        let accepted = await decide(try plan(relaxed, anchors: otherRoot), answer: .acceptServerTrust)
        #expect(accepted.isAllowed, "\(String(describing: accepted.refusal))")
        #expect(accepted.notes.contains { $0.contains("accepted a chain that failed evaluation") })
        // The default answer leaves the refusal in place.
        #expect(await decide(try plan(relaxed, anchors: otherRoot)).refusal?.kind == .serverTrustRefused)
    }

    /// Outside ATS (arbitrary loads, or a `.local` device ATS exempts) URLSession lets the delegate decide server trust:
    /// the self-signed printer or NAS case. Pins still hold there.
    @Test func whereATSDoesNotApplyTheDelegateMayAcceptAnUntrustedChain() async throws {
        let otherRoot = PKI.anchors(PKI.root("Other Root"))
        let arbitrary = "<key>NSAllowsArbitraryLoads</key><true/>"
        let accepted = await decide(try plan(arbitrary, anchors: otherRoot), answer: .acceptServerTrust)
        #expect(accepted.isAllowed, "\(String(describing: accepted.refusal))")
        #expect(accepted.notes.contains { $0.contains("ATS does not apply here") }, "\(accepted.notes)")
        #expect(await decide(try plan(arbitrary, anchors: otherRoot)).refusal?.kind == .serverTrustRefused, "the default answer refuses")

        let printer = "printer.local"
        let local = ConnectionPlan(peer: PKI.host(printer), port: 443, requirements: try Self.requirements(url: "https://\(printer)/"),
                                   settings: TrustSettings(anchors: otherRoot, validationTime: PKI.now))
        #expect(local.delegateMayLoosenTrust)
        let device = pki.intermediate.leaf(dns: [printer])
        let decision = local.decide(await local.assess(presented: [device.der, pki.intermediate.der], handshake: Self.tls13), answer: .acceptServerTrust)
        #expect(decision.isAllowed, "\(String(describing: decision.refusal))")

        let pinnedElsewhere = arbitrary + Self.pinned(ca: [Self.pin(PKI.root("Other"))])
        let pins = await decide(try plan(pinnedElsewhere, anchors: otherRoot), answer: .acceptServerTrust)
        #expect(pins.refusal?.kind == .pinMismatch, "\(String(describing: pins.refusal))")
    }

    @Test func theDelegateCanNeverWaivePinsOrAVersionRule() async throws {
        let relaxed = "<key>NSExceptionDomains</key><dict><key>\(Self.host)</key><dict><key>NSExceptionAllowsInsecureHTTPLoads</key><true/></dict></dict>"
        let pinnedElsewhere = relaxed + Self.pinned(ca: [Self.pin(PKI.root("Other"))])
        let pins = await decide(try plan(pinnedElsewhere, anchors: PKI.anchors(PKI.root("Other Root"))), answer: .acceptServerTrust)
        #expect(pins.refusal?.kind == .pinMismatch)

        let tls10 = HandshakeSummary(tlsVersion: .tls10, cipherSuite: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", cipherSuiteCode: 0xC009)
        let version = await decide(try plan(relaxed), tls10, answer: .acceptServerTrust)
        #expect(version.refusal?.kind == .atsRefused)
    }

    @Test func aHandshakeThatSkippedTheEvaluationIsRefused() {
        #expect(ConnectionPlan.unevaluatedHandshake.kind == .serverTrustRefused)
        #expect(ConnectionPlan.unevaluatedHandshake.message.contains("without server trust evaluation"))
    }

    // MARK: Before the handshake

    @Test func theServerNameIsSentForNamesOnly() throws {
        let requirements = try Self.requirements()
        #expect(ConnectionPlan(peer: PKI.host(Self.host), port: 443, requirements: requirements, settings: TrustSettings()).serverName == Self.host)
        #expect(ConnectionPlan(peer: PKI.host("192.0.2.1"), port: 443, requirements: requirements, settings: TrustSettings()).serverName == nil)
    }

    @Test func thePolicyCarriesTheSettingsAndTheRequirements() throws {
        var settings = TrustSettings(platform: ApplePlatform(.iOS, 15), revocation: .hard)
        settings.certificateTransparency.mode = .report
        let plan = ConnectionPlan(peer: PKI.host(Self.host), port: 443, requirements: try Self.requirements(), settings: settings)
        let policy = plan.trustPolicy
        #expect(policy.host == PKI.host(Self.host))
        #expect(policy.platform == ApplePlatform(.iOS, 15))
        #expect(policy.revocation.mode == .hard)
        #expect(policy.certificateTransparency.mode == .report)
        #expect(policy.requiresATSStrength)
        #expect(!plan.delegateMayLoosenTrust)
    }

    /// On iOS 11 the system requires no CT, so a chain to a public root without SCTs passes, unless the app's
    /// NSRequiresCertificateTransparency asks for CT: the key reaches the evaluation through the plan.
    @Test func theCTKeyReachesTheEvaluation() async throws {
        let ct = try CTTestPKI()
        let logs = (0..<2).map { TestCTLog(name: "Plan Log \($0)") }
        let settings = TrustSettings(anchors: ct.publicAnchors, platform: ApplePlatform(.iOS, 11),
                                     certificateTransparency: CertificateTransparencyOptions(logList: try ct.list(logs)), validationTime: PKI.now)
        let bare = ct.ca.leafWithSCTs([])
        func verdict(_ ats: String) async throws -> TrustVerdict {
            let plan = ConnectionPlan(peer: PKI.host(Self.host), port: 443, requirements: try Self.requirements(ats), settings: settings)
            return await plan.assess(presented: [bare.der, ct.ca.der], handshake: Self.tls13).verdict
        }
        #expect(try await verdict("").isTrusted)
        let key = "<key>NSExceptionDomains</key><dict><key>\(Self.host)</key><dict><key>NSRequiresCertificateTransparency</key><true/></dict></dict>"
        let asked = try await verdict(key)
        #expect(!asked.isTrusted)
        #expect(asked.failures.map(\.code) == [.certificateTransparency])
    }

    // MARK: Resolving a target once

    @Test func resolvingATargetChoosesItsEvaluatorOnceOrRefusesTheHost() async throws {
        let settings = TrustSettings(anchors: PKI.anchors(pki.root),
                                     trustManager: try ServerTrustManager.allowList([Self.host]), validationTime: PKI.now)
        let url = "https://\(Self.host)/"
        let listed = try ConnectionPlan.resolving(ConnectionTarget(url: url), url: url, ats: .default(), platform: .newest, settings: settings).get()
        #expect(listed.chosenEvaluator != nil)
        #expect(listed.requirements.minimumTLSVersion.value == .tls12)
        #expect(await listed.decide(await listed.assess(presented: served, handshake: Self.tls13), answer: .evaluationStands).isAllowed)

        let other = "https://other.example.com/"
        let refused = ConnectionPlan.resolving(try ConnectionTarget(url: other), url: other, ats: .default(), platform: .newest, settings: settings)
        guard case .failure(let refusal) = refused else {
            Issue.record("an unlisted host was planned")
            return
        }
        #expect(refusal.kind == .hostNotAllowed)
        #expect(refusal.message.contains("other.example.com"), "\(refusal.message)")

        // Plain http carries no server trust: the manager is not asked.
        let plain = "http://other.example.com/"
        let http = try ConnectionPlan.resolving(ConnectionTarget(url: plain), url: plain, ats: .disabled, platform: .newest, settings: settings).get()
        #expect(http.chosenEvaluator == nil)
    }

    @Test func aPlansTrustPolicyAndParametersAreItsRequirementsAndSettings() throws {
        let plan = try plan()
        #expect(plan.trustPolicy.host == PKI.host(Self.host))
        #expect(try plan.tlsParameters() == TLSParameters(plan.requirements))
    }
}
