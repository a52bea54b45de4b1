import Foundation
import NIOConcurrencyHelpers
import SwiftASN1
import X509

/// Evaluates server trust: builds a path with swift-certificates' `Verifier`, applies the policy's rules to
/// every candidate path, and explains the outcome.
///
/// A path that fails any rule (an expired cross-sign, a SHA-1 intermediate) is a dead end, and the search
/// backtracks to the next candidate. The search is bounded, so hostile inputs end in bounded time. When the
/// certificates allow one path by their names alone, the rules run on it before any signature is verified
/// (`SoleNamePath`).
///
/// Paths already validated are remembered (same DER, same anchors): a repeat evaluation never verifies a
/// signature again. Under a policy the path already passed, only the time is rechecked; under another policy
/// (another host, say) the rules run again on the remembered path. Intermediates are remembered as well (their
/// parse, and the signatures over them that verified), so a new leaf under a known one costs one parse and one
/// signature check.
public final class TrustEngine: Sendable {
    /// The engine ``ServerTrust/evaluate()`` and the evaluators use by default, with one validated-path cache for the
    /// whole process.
    public static let shared = TrustEngine()

    /// Most candidate issuers handed to the path builder in one evaluation (each costs a signature check).
    public let searchBudget: Int
    let cache: ValidatedPathCache
    /// Intermediates parsed and links verified before, so a new leaf under a known intermediate pays for itself only.
    let intermediateCache: IntermediateCache
    /// The rules of the policy last evaluated: an engine mostly serves one policy (a client, one host), and building
    /// the list and its handled extensions again was 2% of a cold evaluation.
    private let lastRules = NIOLockedValueBox<(RuleFingerprint, PolicyRules)?>(nil)

    /// An engine with its own validated-path cache.
    /// - Parameters:
    ///   - searchBudget: the most candidate issuers one evaluation hands the path builder; beyond it the chain is
    ///     refused with ``TrustFailureCode/pathBuildingLimit``.
    ///   - cacheCapacity: the most validated paths remembered; the least recently used is forgotten first. With 0,
    ///     nothing is remembered: neither paths nor intermediates (up to 1,024 otherwise, with the links they verified).
    public convenience init(searchBudget: Int = 2048, cacheCapacity: Int = 4096) {
        self.init(searchBudget: searchBudget, pathCapacity: cacheCapacity,
                  intermediateCapacity: cacheCapacity == 0 ? 0 : Self.intermediateCapacity)
    }

    /// An engine whose two memories are sized apart: a benchmark measures a new leaf under a warm intermediate with
    /// no path remembered (the Benchmarks package).
    @_spi(Benchmarks) public init(searchBudget: Int = 2048, pathCapacity: Int, intermediateCapacity: Int) {
        self.searchBudget = searchBudget
        self.cache = ValidatedPathCache(capacity: pathCapacity)
        self.intermediateCache = IntermediateCache(capacity: intermediateCapacity)
    }

    /// Intermediates remembered by default: far more than the issuing CAs a client meets.
    static let intermediateCapacity = 1024

    /// Validated paths currently remembered; never more than the capacity given at init.
    public var cachedPathCount: Int { cache.count }

    /// Verdicts given from the cache alone, without a signature check; for tests and benchmarks.
    package var answeredFromCache: Int { cache.answered }

    /// Decides whether `trust`'s certificates are trusted under its anchors, policy and time.
    ///
    /// Builds a path from the leaf to an anchor on which every rule of `TrustPolicy/rules` holds, then checks
    /// Certificate Transparency and revocation as the policy asks. A path validated before is reused without a
    /// signature check. Never throws: whatever goes wrong, including an internal error, is a refusal with its reason.
    /// Cancelling the calling task stops the path search; the verdict is then a refusal that says so, and is not cached.
    ///
    /// - Returns: a trusted verdict with the built chain, leaf first and anchor last; or a refusal with every
    ///   ``TrustFailure`` of the best path found. See <doc:HowAnEvaluationRuns>.
    public func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        let time = trust.validationTime ?? Date()
        let key = ValidatedPathCache.Key(presented: trust.certificates, extra: trust.additionalIntermediates, anchors: trust.anchors.identity)
        let fingerprint = RuleFingerprint(trust.policy)
        let hit = cache.lookup(key)
        let transparency = trust.policy.transparencyCheck
        if let hit, let fingerprint, hit.passed.contains(fingerprint), hit.isValid(at: time),
           let verdict = answerFromMemory(hit, transparency: transparency, time: time) {
            return verdict
        }
        let revocationMemo = RevocationMemo()
        // Parsed once, for the remembered path's revocation check and for a full search should that fail.
        var parsed: Presented?
        // When the remembered path fails, another path may still pass: a full search decides.
        if let hit, let verdict = await recheck(hit, trust, key: key, fingerprint: fingerprint, time: time, transparency: transparency,
                                                revocationMemo: revocationMemo, parsed: &parsed) {
            return verdict
        }
        let presented: [InputCertificate]
        let warmExtensions: [WarmExtensions]
        switch parsed ?? presentedCertificates(trust) {
        case .refused(let verdict): return verdict
        case .parsed(let certificates, let warm): (presented, warmExtensions) = (certificates, warm)
        }
        var (verdict, passedChain) = await evaluateCold(trust, presented: presented, warmExtensions: warmExtensions, time: time,
                                                        revocationMemo: revocationMemo,
                                                        rules: policyRules(trust.policy, fingerprint: fingerprint))
        // A chain sent issuer first fails for what its first certificate lacks as a leaf; the order is the fault.
        if !verdict.isTrusted, let misordered = Diagnosis.leafNotFirst(presented) {
            verdict.failures = [misordered]
        }
        if verdict.isTrusted, let anchor = verdict.anchor, let passed = passedChain {
            let anchorIsPublic = trust.anchors.entry(for: CertificateKey(passed.chain, passed.chain.count - 1))?.isPublic ?? false
            cache.insert(key, path: verdict.chain, chain: passed.chain, anchorIsCustom: anchor == .custom, anchorIsPublic: anchorIsPublic,
                         passed: fingerprint, transparency: Self.memo(transparency, passed.ct))
        }
        return verdict
    }

    /// The verdict from memory alone, for a remembered path that passed this policy and is valid at `time`; nil when
    /// its CT findings no longer hold.
    private func answerFromMemory(_ hit: ValidatedPathCache.Entry, transparency: CertificateTransparencyCheck?, time: Date) -> TrustVerdict? {
        let anchor: AnchorSource = hit.anchorIsCustom ? .custom : .system
        guard let transparency else {
            cache.noteAnswered()
            return TrustVerdict(anchor: anchor, chain: hit.path, failures: [])
        }
        // CT depends on the time (an SCT from the future, the list's age). Inside the range where the remembered
        // findings hold they are reused; outside it the arithmetic runs again on the remembered signature
        // results. Should it fail, a full search decides.
        let ct: TransparencyFindings
        if let memo = hit.transparency, memo.check == transparency, memo.findings.stable.contains(time) {
            ct = memo.findings
        } else {
            ct = transparency.check(hit.chain, context: RuleContext(validationTime: time, anchorIsSystem: hit.anchorIsPublic),
                                    cached: hit.sctAnalysis)
        }
        guard ct.failure == nil else { return nil }
        cache.noteAnswered()
        return TrustVerdict(anchor: anchor, chain: hit.path, failures: [], notes: ct.note.map { [$0] } ?? [],
                            certificateTransparency: ct.report)
    }

    /// The remembered path checked again under this policy (rules, CT, revocation), with no signature verified: its
    /// verdict when it passes, else nil. The presented certificates parsed for revocation are left in `parsed`.
    private func recheck(_ hit: ValidatedPathCache.Entry, _ trust: ServerTrust, key: ValidatedPathCache.Key, fingerprint: RuleFingerprint?,
                         time: Date, transparency: CertificateTransparencyCheck?, revocationMemo: RevocationMemo,
                         parsed: inout Presented?) async -> TrustVerdict? {
        // Revocation is checked again on the remembered path, with the same CRL signers a full search would offer.
        if trust.policy.revocation.mode != .off {
            parsed = presentedCertificates(trust)
        }
        if case .parsed(let presented, _)? = parsed, let first = presented.first, let leaf = first.certificate {
            revocationMemo.signerCandidates = Candidates(leaf: leaf, leafInput: first, others: [presented.dropFirst(), trust.inputIntermediates[...]].joined(),
                                                         anchors: trust.anchors).intermediates
        }
        let (rules, handled) = policyRules(trust.policy, fingerprint: fingerprint).parts
        let context = RuleContext(validationTime: time, anchorIsSystem: hit.anchorIsPublic, rootConstraints: trust.anchors.constraints,
                                  passedAbove: intermediateCache.passedAbove)
        // The path was validated under some policy; a critical extension this one does not process rules it out,
        // as it would have in the path builder.
        guard !hit.chain.contains(where: { Diagnosis.unhandledCritical($0, handled: handled) != nil }) else { return nil }
        let findings = await Self.check(hit.chain, rules: rules, revocation: trust.policy.revocation, transparency: transparency,
                                        context: context, memo: revocationMemo, cachedAnalysis: hit.sctAnalysis)
        guard findings.failures.isEmpty else { return nil }
        if let fingerprint { cache.remember(fingerprint, for: key, generation: hit.generation, transparency: Self.memo(transparency, findings.ct)) }
        return TrustVerdict(anchor: hit.anchorIsCustom ? .custom : .system, chain: hit.path, failures: [], notes: findings.notes,
                            certificateTransparency: findings.ct?.report)
    }

    /// CT findings to keep with a path, with the check that produced them.
    static func memo(_ check: CertificateTransparencyCheck?, _ findings: TransparencyFindings?)
        -> (check: CertificateTransparencyCheck, findings: TransparencyFindings)? {
        guard let check, let findings else { return nil }
        return (check, findings)
    }

    /// A warm intermediate's parsed extensions, by its signed bytes: the certificate itself would be a copy, a retain
    /// per field.
    typealias WarmExtensions = (tbs: ArraySlice<UInt8>, parsed: ParsedExtensions)

    enum Presented {
        /// The certificates, and the parsed extensions of the intermediates that came from `IntermediateCache`.
        case parsed([InputCertificate], warmExtensions: [WarmExtensions])
        case refused(TrustVerdict)
    }

    /// The certificates as presented, each parsed once for the whole evaluation, or why they cannot be used.
    /// Intermediates parsed under the same anchors before are taken from memory; the leaf is always parsed.
    func presentedCertificates(_ trust: ServerTrust) -> Presented {
        guard !trust.certificates.isEmpty else {
            return .refused(.refused(TrustFailure(.malformedCertificate, certificate: nil, "no certificate was presented")))
        }
        if let parsed = trust.parsedCertificates { return .parsed(parsed, warmExtensions: []) }
        var presented: [InputCertificate] = []
        var warm: [WarmExtensions] = []
        for (i, der) in trust.certificates.enumerated() {
            do {
                guard i > 0 else {
                    presented.append(try InputCertificate(der: der))
                    continue
                }
                let known = try intermediateCache.intermediate(der: der, anchors: trust.anchors.identity)
                presented.append(known.input)
                if let tbs = known.input.certificate?.tbsCertificateBytes, let extensions = known.extensions { warm.append((tbs, extensions)) }
            } catch {
                return .refused(.refused(TrustFailure(.malformedCertificate, certificate: i, "certificate \(i) as presented cannot be read: \(error)"),
                                         chain: presented.prefix(1).map { $0 }))
            }
        }
        return .parsed(presented, warmExtensions: warm)
    }

    private func evaluateCold(_ trust: ServerTrust, presented: [InputCertificate], warmExtensions: [WarmExtensions], time: Date,
                              revocationMemo: RevocationMemo, rules policyRules: PolicyRules) async -> (TrustVerdict, RecordingPolicy.Passed?) {
        let extra = trust.inputIntermediates
        let leafInput = presented[0]
        guard let leaf = leafInput.certificate else {
            return (.refused(Diagnosis.unusable(leafInput, index: 0, policy: trust.policy), chain: [leafInput]), nil)
        }

        let candidates = Candidates(leaf: leaf, leafInput: leafInput, others: [presented.dropFirst(), extra[...]].joined(), anchors: trust.anchors)
        let intermediates = candidates.intermediates
        // A CRL may be signed by a certificate the peer sent beside the path (RFC 5280 §6.3.3 (f)).
        if trust.policy.revocation.mode != .off { revocationMemo.signerCandidates = intermediates }

        let handled = policyRules.handled
        let transparency = trust.policy.transparencyCheck
        let context = RuleContext(validationTime: time, anchorIsSystem: true, rootConstraints: trust.anchors.constraints,
                                  passedAbove: intermediateCache.passedAbove)
        context.extensions.adopt(trust.anchors)
        for warm in warmExtensions { context.extensions.seed(warm.tbs, warm.parsed) }
        if let bad = Diagnosis.unhandledCritical(leaf, handled: handled) {
            return (.refused(TrustFailure(.unhandledCriticalExtension, certificate: 0,
                "\(leaf.label) has a critical extension this verifier does not process (\(bad)); it must be rejected"), chain: [leafInput]), nil)
        }

        // The rules first, on the one path the names allow; signatures only when it passes them.
        var ruleAbiding: [Certificate]?
        // More certificates than the search makes partial paths: no server sends that many, a hostile peer may. Paths
        // past the policy's limit are then not followed (a hundred linked CAs would cost a hundred signatures in the
        // path builder); a usual chain keeps every rule's reasons on its one path.
        let limit = intermediates.count > SoleNamePath.searchLimit ? trust.policy.maximumIntermediates : nil
        let names = SoleNamePath(leaf: leaf, intermediates: intermediates, anchors: trust.anchors, maximumIntermediates: limit)
        var sole = names.certificates
        if case .tooLong = names, let limit {
            // One long path by names: refused on it, with its rules' reasons. Else refused for the length alone.
            sole = SoleNamePath.followingSoleIssuers(leaf: leaf, intermediates: intermediates, anchors: trust.anchors)
            guard sole != nil else {
                return (TrustVerdict(anchor: nil, chain: [leafInput], failures: [TrustFailure(.chainTooLong, certificate: nil,
                    "no path of at most \(limit) intermediate CAs links \(leaf.label) to an anchor, and its issuers' names lead on past \(limit); a longer chain is not allowed")],
                    notes: [SoleNamePath.tooLongNote]), nil)
            }
        }
        if let sole, let chain = UnverifiedCertificateChain.assembled(sole) {
            if let decided = await decideSolePath(sole, chain, leaf: leaf, candidates: candidates, trust: trust, rules: policyRules,
                                                  transparency: transparency, context: context, revocationMemo: revocationMemo) {
                return decided
            }
            ruleAbiding = sole
        }
        return await searchPaths(leaf, candidates: candidates, trust: trust, rules: policyRules, transparency: transparency,
                                 context: context, revocationMemo: revocationMemo, ruleAbiding: ruleAbiding)
    }

    /// The verdict on the one path the names allow, before path building: refused when it fails a rule (no other path
    /// could pass), trusted when it also passes the path builder's checks, CT and revocation. Nil when the path builder
    /// must decide; the rules then need not run on this path again.
    private func decideSolePath(_ sole: [Certificate], _ chain: UnverifiedCertificateChain, leaf: Certificate, candidates: Candidates, trust: ServerTrust,
                                rules policyRules: PolicyRules, transparency: CertificateTransparencyCheck?, context: RuleContext,
                                revocationMemo: RevocationMemo) async -> (TrustVerdict, RecordingPolicy.Passed?)? {
        let anchor = trust.anchors.entry(for: CertificateKey(chain, chain.count - 1))
        let custom = anchor?.isCustom ?? false
        var soleContext = context
        soleContext.anchorIsSystem = anchor?.isPublic ?? false
        let failures = Self.ruleFailures(chain, rules: policyRules.rules, context: soleContext)
        guard failures.isEmpty else {
            return (TrustVerdict(anchor: custom ? .custom : .system, chain: candidates.inputs(sole), failures: failures,
                                 notes: [SoleNamePath.unverifiedNote]), nil)
        }
        // The path builder could only return this path, and would: decide it here, without its search machinery.
        // Not if its budget could run out first: it is handed at most every intermediate for each partial path.
        guard candidates.intermediates.count * SoleNamePath.searchLimit <= searchBudget,
              passesPathBuilderChecks(chain, leaf: leaf, handled: policyRules.handled, anchors: trust.anchors.identity)
        else { return nil }
        let findings = await Self.check(chain, rules: policyRules.rules, revocation: trust.policy.revocation, transparency: transparency,
                                        context: soleContext, memo: revocationMemo, rulesPassed: true)
        guard findings.failures.isEmpty else { return nil }
        // The leaf's entry in byCertificate is always leafInput: no lookup needed.
        return (TrustVerdict(anchor: custom ? .custom : .system, chain: [candidates.leafInput] + candidates.inputs(sole.dropFirst()), failures: [],
                             notes: findings.notes, certificateTransparency: findings.ct?.report),
                RecordingPolicy.Passed(chain: chain, notes: findings.notes, ct: findings.ct))
    }

    /// Path building proper: swift-certificates' `Verifier` over the candidates, with every rule run on each path it
    /// tries (less the rules `ruleAbiding` already passed).
    private func searchPaths(_ leaf: Certificate, candidates: Candidates, trust: ServerTrust, rules policyRules: PolicyRules,
                             transparency: CertificateTransparencyCheck?, context: RuleContext, revocationMemo: RevocationMemo,
                             ruleAbiding: [Certificate]?) async -> (TrustVerdict, RecordingPolicy.Passed?) {
        let store = BudgetedIntermediates(candidates.intermediates, limit: searchBudget)
        let attempts = RecordingPolicy.Attempts()
        var verifier = Verifier(rootCertificates: trust.anchors.store) {
            RecordingPolicy(rules: policyRules.rules, revocation: trust.policy.revocation, transparency: transparency, revocationMemo: revocationMemo,
                            handled: policyRules.handled, context: context, anchors: trust.anchors, attempts: attempts, ruleAbiding: ruleAbiding)
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(custom: store))

        switch result {
        case .validCertificate(let chain):
            let path = candidates.inputs(chain)
            let anchorDER = path.last?.der ?? []
            let passed = attempts.passed
            return (TrustVerdict(anchor: trust.anchors.isCustom(anchorDER) ? .custom : .system, chain: path, failures: [],
                                 notes: passed?.notes ?? [], certificateTransparency: passed?.ct?.report), passed)
        case .couldNotValidate:
            if store.counter.wasCancelled {
                // Fail closed, and say that nothing was decided: a cut-short search proves nothing about the chain.
                return (TrustVerdict(anchor: nil, chain: [candidates.leafInput], failures: [TrustFailure(.internalError, certificate: nil,
                    "the evaluation was cancelled before a trusted path was found (its caller stopped waiting, e.g. a time limit passed)")]), nil)
            }
            return (refusal(trust, candidates: candidates, attempts: attempts.all, handled: policyRules.handled,
                            searchExhausted: store.counter.wasExhausted), nil)
        }
    }

    /// The verdict when no path passed: the attempt that failed the fewest rules, or why no path could be built.
    private func refusal(_ trust: ServerTrust, candidates: Candidates, attempts: [RecordingPolicy.Attempt], handled: [ASN1ObjectIdentifier],
                         searchExhausted: Bool) -> TrustVerdict {
        var verdict: TrustVerdict
        if let best = attempts.min(by: { $0.failures.count < $1.failures.count }) {
            let path = candidates.inputs(best.chain)
            verdict = TrustVerdict(anchor: trust.anchors.isCustom(path.last?.der ?? []) ? .custom : .system,
                                   chain: path, failures: best.failures, certificateTransparency: best.transparency)
        } else {
            let (chain, failures) = Diagnosis.noPath(leaf: candidates.leafInput, intermediates: candidates.intermediates, unusable: candidates.unusable,
                                                      anchors: trust.anchors, handled: handled, lookup: candidates.input(for:),
                                                      policy: trust.policy)
            verdict = TrustVerdict(anchor: nil, chain: chain, failures: failures)
        }
        if searchExhausted {
            verdict.failures.append(TrustFailure(.pathBuildingLimit, certificate: nil,
                "path building stopped after examining \(searchBudget) candidate issuers; the server sends too many or cyclic cross-signed certificates"))
        }
        if verdict.failures.isEmpty {
            verdict.failures.append(TrustFailure(.internalError, certificate: nil, "no trusted path was found"))
        }
        return verdict
    }

    /// The certificates one evaluation may build from, each with the input it came from.
    struct Candidates {
        let leafInput: InputCertificate
        let anchors: TrustAnchors
        private let leafKey: CertificateKey
        /// Readable certificates other than the leaf, deduplicated, in the order given.
        private(set) var intermediates: [Certificate] = []
        /// Each intermediate's key and input, at its index.
        private var keys: [CertificateKey] = []
        private var inputsByIndex: [InputCertificate] = []
        /// Indices by key, made only once there are more than `scanned`: the usual one or two intermediates are found
        /// by comparing keys, which costs less than hashing them.
        private var index: [CertificateKey: Int] = [:]
        private static let scanned = 8
        /// Certificates that could not be read, kept to explain a missing path.
        private(set) var unusable: [InputCertificate] = []

        init(leaf: Certificate, leafInput: InputCertificate, others: some Sequence<InputCertificate>, anchors: TrustAnchors) {
            self.leafInput = leafInput
            self.anchors = anchors
            leafKey = CertificateKey(leaf)
            for input in others {
                guard let cert = input.certificate else {
                    unusable.append(input)
                    continue
                }
                let key = CertificateKey(cert)
                // A certificate given twice keeps its first place and its last input, as a dictionary update would.
                if let i = position(of: key) {
                    inputsByIndex[i] = input
                    continue
                }
                intermediates.append(cert)
                keys.append(key)
                inputsByIndex.append(input)
                if keys.count > Self.scanned {
                    if index.isEmpty { for (i, k) in keys.enumerated() { index[k] = i } } else { index[key] = keys.count - 1 }
                }
            }
        }

        private func position(of key: CertificateKey) -> Int? {
            keys.count > Self.scanned ? index[key] : keys.firstIndex(of: key)
        }

        /// The input `cert` came from, when it is the leaf or one of the intermediates.
        func input(for cert: Certificate) -> InputCertificate? { input(for: CertificateKey(cert)) }

        private func input(for key: CertificateKey) -> InputCertificate? {
            if key == leafKey { return leafInput }
            return position(of: key).map { inputsByIndex[$0] }
        }

        /// The inputs of a built chain, as presented where they were presented.
        func inputs<C: Collection<Certificate>>(_ chain: C) -> [InputCertificate] {
            var found: [InputCertificate] = []
            found.reserveCapacity(chain.count)
            // By index, keys read from the fields: a certificate the iterator hands out is a copy, a retain per field.
            for i in chain.indices {
                let key = CertificateKey(chain, i)
                if let input = input(for: key) ?? anchors.entry(for: key)?.input ?? (try? InputCertificate(chain[i])) { found.append(input) }
            }
            return found
        }
    }

    /// Whether swift-certificates' path builder would accept each link of `chain`, the one path the names allow: every
    /// issuer's critical extensions handled, no issuer repeating a certificate below it, every signature valid.
    ///
    /// On the sole name-linked path the path builder can build no other path, so when every link passes (and the
    /// rules did) it returns this very path; running it costs a tenth of a cold evaluation in store lookups, issuer
    /// sorting and candidate copies. A link it might judge otherwise (an issuer whose subject repeats one below it,
    /// which its loop check compares by key and SAN) answers false, and the path builder decides as before. The
    /// signatures are verified by swift-certificates' own `isValidSignature`, as the path builder does; a link above
    /// the leaf verified before under the same anchors is not verified again (`IntermediateCache`).
    /// `leaf` is `chain[0]`, held by the caller: handing `chain[0]` to the signature check copied it.
    func passesPathBuilderChecks(_ chain: UnverifiedCertificateChain, leaf: Certificate, handled: [ASN1ObjectIdentifier], anchors: [UInt8]) -> Bool {
        guard chain.count > 1 else { return false }
        for i in 1..<chain.count {
            // By index: a certificate copied out of the chain is a retain per field.
            guard Diagnosis.unhandledCritical(chain[i].extensions, handled: handled) == nil,
                  !(0..<i).contains(where: { Self.sameEncoding(chain[$0].subject, chain[i].subject) }),
                  i == 1 ? chain[i].publicKey.isValidSignature(leaf.signature, for: leaf)
                      : intermediateCache.verifies(chain, link: i, anchors: anchors)
            else { return false }
        }
        return true
    }

    /// `a == b`, deciding the usual unequal pair on its last RDN, where two CAs' names differ, rather than its first.
    static func sameEncoding(_ a: DistinguishedName, _ b: DistinguishedName) -> Bool {
        a.count == b.count && a.last == b.last && a == b
    }

    /// `policy`'s rules, from the last evaluation's when the fingerprint is the same. The rules are a function of the
    /// fingerprinted fields alone (a test checks every stored field of the policy is keyed or named as unkeyed), and
    /// a policy without a fingerprint builds its own.
    func policyRules(_ policy: TrustPolicy, fingerprint: RuleFingerprint?) -> PolicyRules {
        guard let fingerprint else { return PolicyRules(policy.rules) }
        if let last = lastRules.withLockedValue({ $0?.0 == fingerprint ? $0?.1 : nil }) { return last }
        let made = PolicyRules(policy.rules)
        lastRules.withLockedValue { $0 = (fingerprint, made) }
        return made
    }

    /// A policy's rules and the critical extensions they process between them.
    struct PolicyRules: Sendable {
        let rules: [any ChainRule]
        let handled: [ASN1ObjectIdentifier]

        init(_ rules: [any ChainRule]) {
            self.rules = rules
            handled = TrustEngine.handledCriticalExtensions(rules)
        }

        var parts: ([any ChainRule], [ASN1ObjectIdentifier]) { (rules, handled) }
    }

    static func handledCriticalExtensions(_ rules: [any ChainRule]) -> [ASN1ObjectIdentifier] {
        var seen: [ASN1ObjectIdentifier] = []
        seen.reserveCapacity(8)
        for rule in rules { for oid in rule.handledCriticalExtensions where !seen.contains(oid) { seen.append(oid) } }
        return seen
    }

    /// The rules' failures on a path, then CT's, then revocation's, each only if what came before passed: CT costs
    /// signature checks and revocation may ask a responder. `rulesPassed` skips rules already run on this path.
    static func check(_ chain: UnverifiedCertificateChain, rules: [any ChainRule], revocation: RevocationOptions,
                      transparency: CertificateTransparencyCheck?, context: RuleContext, memo: RevocationMemo,
                      rulesPassed: Bool = false, cachedAnalysis: SCTAnalysis? = nil) async -> PathFindings {
        let failures = rulesPassed ? [] : ruleFailures(chain, rules: rules, context: context)
        guard failures.isEmpty else { return PathFindings(failures: failures) }
        let ct = transparency?.check(chain, context: context, cached: cachedAnalysis)
        if let failure = ct?.failure {
            return PathFindings(failures: [failure], ct: ct)
        }
        var findings = await RevocationCheck(options: revocation, memo: memo).check(chain, validationTime: context.validationTime)
        if let note = ct?.note { findings.notes.insert(note, at: 0) }
        findings.ct = ct
        return findings
    }

    static func ruleFailures(_ chain: UnverifiedCertificateChain, rules: [any ChainRule], context: RuleContext) -> [TrustFailure] {
        var failures: [TrustFailure] = []
        for rule in rules { rule.check(chain, context: context, into: &failures) }
        // Rules stand alone, so two can find the same fault (a malformed SAN is both structure and hostname); say it once.
        if failures.count > 1 {
            var seen = Set<TrustFailure>()
            failures = failures.filter { seen.insert($0).inserted }
        }
        return failures
    }
}

/// What the rules and revocation found on one path.
struct PathFindings: Sendable {
    var failures: [TrustFailure] = []
    /// Facts that do not refuse the path: a revocation status soft-fail could not establish, and why.
    var notes: [String] = []
    /// What CT found, when the policy looked.
    var ct: TransparencyFindings?
}

/// The verifier policy that runs our rules and keeps each failed path with its structured failures.
struct RecordingPolicy: VerifierPolicy {
    struct Attempt {
        var chain: UnverifiedCertificateChain
        var failures: [TrustFailure]
        var transparency: CertificateTransparencyReport?
    }

    /// The path that met the policy, with what the engine keeps of it.
    struct Passed: Sendable {
        var chain: UnverifiedCertificateChain
        var notes: [String]
        var ct: TransparencyFindings?
    }

    /// Shared with the engine: swift-certificates' policy builder hides the policy's concrete type.
    final class Attempts: Sendable {
        private let state = NIOLockedValueBox((attempts: [Attempt](), passed: Passed?.none))

        func record(_ attempt: Attempt) {
            // Keep enough attempts to explain, not every one a hostile input can produce.
            state.withLockedValue { if $0.attempts.count < 64 { $0.attempts.append(attempt) } }
        }

        var all: [Attempt] { state.withLockedValue { $0.attempts } }

        /// The chain that met the policy, with its notes and CT findings, kept for the validated-path cache.
        var passed: Passed? { state.withLockedValue { $0.passed } }

        func pass(_ passed: Passed) {
            state.withLockedValue { $0.passed = passed }
        }
    }

    let rules: [any ChainRule]
    let revocation: RevocationOptions
    let transparency: CertificateTransparencyCheck?
    let revocationMemo: RevocationMemo
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier]
    let context: RuleContext
    let anchors: TrustAnchors
    let attempts: Attempts
    /// A path whose rules already passed before path building (``SoleNamePath``).
    let ruleAbiding: [Certificate]?

    init(rules: [any ChainRule], revocation: RevocationOptions, transparency: CertificateTransparencyCheck?, revocationMemo: RevocationMemo,
         handled: [ASN1ObjectIdentifier], context: RuleContext, anchors: TrustAnchors, attempts: Attempts, ruleAbiding: [Certificate]? = nil) {
        self.transparency = transparency
        self.revocationMemo = revocationMemo
        self.attempts = attempts
        self.ruleAbiding = ruleAbiding
        self.rules = rules
        self.revocation = revocation
        self.verifyingCriticalExtensions = handled
        self.context = context
        self.anchors = anchors
    }

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        var context = self.context
        context.anchorIsSystem = anchors.isPublic(chain[chain.count - 1])
        let findings = await TrustEngine.check(chain, rules: rules, revocation: revocation, transparency: transparency, context: context,
                                               memo: revocationMemo, rulesPassed: ruleAbiding.map { chain.elementsEqual($0) } ?? false)
        let failures = findings.failures
        if failures.isEmpty {
            attempts.pass(Passed(chain: chain, notes: findings.notes, ct: findings.ct))
            return .meetsPolicy
        }
        attempts.record(Attempt(chain: chain, failures: failures, transparency: findings.ct?.report))
        let summary = failures.map(\.code.rawValue).joined(separator: ", ")
        return .failsToMeetPolicy(reason: PolicyFailureReason(summary))
    }
}
