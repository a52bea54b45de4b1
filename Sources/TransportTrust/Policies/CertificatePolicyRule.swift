import SwiftASN1
import X509

/// RFC 5280 §6.1 certificate policy processing: certificatePolicies, policyMappings, policyConstraints and
/// inhibitAnyPolicy, critical or not, with the initial inputs of ``CertificatePolicyOptions``. The path is refused
/// when an explicit policy is required (by the options or by a requireExplicitPolicy) and no acceptable policy is
/// valid for it, when an intermediate maps anyPolicy, and when one of these extensions is malformed.
///
/// The trust anchor is not part of the path, but its own certificatePolicies, policyConstraints and inhibitAnyPolicy
/// constrain it when present, as RFC 5937 reads trust anchor constraints: its policies narrow the acceptable set, and
/// its SkipCerts count from the first certificate below it, as an initial input set to true does at zero. When it
/// also carries policyMappings, those apply too: it then heads the policy graph as a certificate would, with its
/// policies (anyPolicy when it has none) mapped as it says, so that a policy it maps away is not valid below it.
///
/// The valid policy tree is a `PolicyGraph`, so that a policy-mapping bomb (CVE-2023-0464) costs what its
/// certificates weigh; a path whose graph would outgrow ``budget`` nodes and edges is refused.
package struct CertificatePolicyRule: ChainRule {
    package var options: CertificatePolicyOptions
    /// Most nodes and edges of the policy graph allowed on one path before it is refused.
    package var budget: Int

    package init(options: CertificatePolicyOptions = CertificatePolicyOptions(), budget: Int = 1 << 16) {
        self.options = options
        self.budget = budget
    }

    package var handledCriticalExtensions: [ASN1ObjectIdentifier] {
        [PolicyExtensions.certificatePoliciesOID, PolicyExtensions.policyMappingsOID,
         PolicyExtensions.policyConstraintsOID, PolicyExtensions.inhibitAnyPolicyOID]
    }

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        // A lone certificate is its own anchor: there is no path.
        guard chain.count > 1 else { return }
        let n = chain.count - 1
        guard let parsed = Self.parse(chain, extensions: context.extensions, into: &failures) else { return }
        if let failure = Self.anyPolicyMapping(chain, parsed) { return failures.append(failure) }
        var walk = PolicyWalk(chain: chain, parsed: parsed, options: options, budget: budget)
        // Without an explicit policy required anywhere, every path is valid whatever its policies (§6.1.5).
        guard walk.state.explicit <= n || parsed[0..<n].contains(where: { $0.requireExplicitPolicy != nil }) else { return }
        let (acceptable, narrowedByAnchor) = Self.acceptable(options.acceptablePolicies, anchor: parsed[n])
        if let failure = walk.run(acceptable: acceptable, narrowedByAnchor: narrowedByAnchor) { failures.append(failure) }
    }

    /// §6.1.4 (a), for every intermediate and the anchor whatever else the path asks.
    private static func anyPolicyMapping(_ chain: UnverifiedCertificateChain, _ parsed: [PolicyExtensions]) -> TrustFailure? {
        for c in 1..<chain.count {
            if let maps = parsed[c].mappings, maps.contains(where: { $0.issuer == PolicyExtensions.anyPolicy || $0.subject == PolicyExtensions.anyPolicy }) {
                return failure(c, "\(chain[c].label) maps anyPolicy in its policyMappings, which RFC 5280 §6.1.4 (a) forbids")
            }
        }
        return nil
    }

    /// The acceptable policies, narrowed by the anchor's own certificatePolicies when it has some other than anyPolicy.
    private static func acceptable(_ initial: Set<ASN1ObjectIdentifier>, anchor: PolicyExtensions) -> (Set<ASN1ObjectIdentifier>, narrowed: Bool) {
        guard let own = anchor.policies, !own.contains(PolicyExtensions.anyPolicy) else { return (initial, false) }
        return (initial.contains(PolicyExtensions.anyPolicy) ? Set(own) : initial.intersection(own), true)
    }

    private static func failure(_ index: Int, _ message: String) -> TrustFailure {
        TrustFailure(.certificatePolicy, certificate: index, message)
    }

    /// §6.1.3 to §6.1.5 in the standard's order over one path, from the anchor down: the valid policy graph, the
    /// counters, and which certificate emptied the graph, for the reason of a refusal.
    private struct PolicyWalk {
        let chain: UnverifiedCertificateChain
        let parsed: [PolicyExtensions]
        let budget: Int
        var state: Counters
        /// The anchor's own mappings are inhibited only by the options: its policyConstraints count from below it.
        let anchorMapping: Bool
        var graph = PolicyGraph()
        var emptied: (index: Int, reason: String)?

        init(chain: UnverifiedCertificateChain, parsed: [PolicyExtensions], options: CertificatePolicyOptions, budget: Int) {
            self.chain = chain
            self.parsed = parsed
            self.budget = budget
            let n = chain.count - 1
            state = Counters(options, pathLength: n)
            anchorMapping = state.mapping > 0
            state.tighten(by: parsed[n], label: "the anchor \(chain[n].label)")
        }

        /// The failure that refuses the path, or nil when it is valid for an acceptable policy.
        mutating func run(acceptable: Set<ASN1ObjectIdentifier>, narrowedByAnchor: Bool) -> TrustFailure? {
            let n = chain.count - 1
            if let maps = parsed[n].mappings, let failure = startAtAnchor(mapping: maps) { return failure }
            for i in 1...n {
                let c = n - i
                let cert = chain[c]
                let ext = parsed[c]
                if let failure = addDepth(cert, ext, at: c, step: i) { return failure }
                guard i < n else { break }
                if let maps = ext.mappings, !graph.isNull, let failure = applyMappings(maps, of: cert, at: c) { return failure }
                if !cert.isSelfIssued { state.countDown() }
                state.tighten(by: ext, label: cert.label)
            }
            return finish(acceptable: acceptable, narrowedByAnchor: narrowedByAnchor)
        }

        /// An anchor that maps policies heads the graph as a certificate would, with its policies mapped as it says.
        private mutating func startAtAnchor(mapping maps: [(issuer: ASN1ObjectIdentifier, subject: ASN1ObjectIdentifier)]) -> TrustFailure? {
            let n = chain.count - 1
            graph.addDepth(policies: parsed[n].policies ?? [PolicyExtensions.anyPolicy], anyPolicyCounts: true)
            graph.apply(mappings: CertificatePolicyRule.grouped(maps), allowed: anchorMapping)
            if graph.isNull {
                emptied = (n, "the anchor \(chain[n].label) maps \(CertificatePolicyRule.list(maps.map(\.issuer))), and policy mapping is inhibited by \(state.mappingBy), so no valid policy remains")
            }
            return overBudget(at: n)
        }

        /// §6.1.3 (d) to (f) for certificate `c`, the `i`-th below the anchor; then the refusal when no policy is left
        /// and an explicit one is required by now.
        private mutating func addDepth(_ cert: Certificate, _ ext: PolicyExtensions, at c: Int, step i: Int) -> TrustFailure? {
            if !graph.isNull {
                if let policies = ext.policies {
                    let before = graph
                    graph.addDepth(policies: policies, anyPolicyCounts: state.inhibitAny > 0 || (i < chain.count - 1 && cert.isSelfIssued))
                    if graph.isNull {
                        emptied = (c, policies.allSatisfy { $0 == PolicyExtensions.anyPolicy }
                            ? "\(cert.label) asserts only anyPolicy, and anyPolicy is inhibited by \(state.anyBy)"
                            : "\(cert.label) asserts \(CertificatePolicyRule.list(policies)), none of which its issuers allow (they allow \(CertificatePolicyRule.list(before.expectedPolicies)))")
                    }
                } else {
                    graph.makeNull()
                    emptied = (c, "\(cert.label) has no certificatePolicies extension")
                }
                if let failure = overBudget(at: c) { return failure }
            }
            if state.explicit == 0 && graph.isNull {
                let at = emptied?.index ?? c
                return failure(at, "no certificate policy is valid for the path down to \(cert.label), and \(state.explicitBy): \(emptied?.reason ?? "no policy remains")")
            }
            return nil
        }

        /// §6.1.4 (b): an intermediate's policyMappings, unless policy mapping is inhibited by now.
        private mutating func applyMappings(_ maps: [(issuer: ASN1ObjectIdentifier, subject: ASN1ObjectIdentifier)], of cert: Certificate,
                                            at c: Int) -> TrustFailure? {
            let grouped = CertificatePolicyRule.grouped(maps)
            graph.apply(mappings: grouped, allowed: state.mapping > 0)
            if graph.isNull {
                emptied = (c, "\(cert.label) maps \(CertificatePolicyRule.list(grouped.map(\.issuer))), and policy mapping is inhibited by \(state.mappingBy), so no valid policy remains")
            }
            return overBudget(at: c)
        }

        /// §6.1.5 (a), (b) and (g).
        private mutating func finish(acceptable: Set<ASN1ObjectIdentifier>, narrowedByAnchor: Bool) -> TrustFailure? {
            state.countDownExplicit()
            if parsed[0].requireExplicitPolicy == 0 { state.explicit = 0; state.explicitBy = "\(chain[0].label) requires an explicit policy (policyConstraints)" }
            guard state.explicit == 0 else { return nil }
            if graph.isNull {
                return failure(emptied?.index ?? 0, "no certificate policy is valid for this path, and \(state.explicitBy): \(emptied?.reason ?? "no policy remains")")
            }
            guard !graph.isValid(for: acceptable) else { return nil }
            var valid = Array(graph.authorityPolicies())
            if graph.deepest[PolicyExtensions.anyPolicy] != nil { valid.append(PolicyExtensions.anyPolicy) }
            let accepted = acceptable.isEmpty ? "no policy" : CertificatePolicyRule.list(Array(acceptable))
            return failure(0, "\(chain[0].label) is valid for \(CertificatePolicyRule.list(valid)), and none of them is acceptable (\(accepted)\(narrowedByAnchor ? ", as narrowed by the anchor's own certificatePolicies" : "")); \(state.explicitBy)")
        }

        private func overBudget(at c: Int) -> TrustFailure? {
            guard graph.size > budget else { return nil }
            return failure(c, "certificate policy processing of this path reached \(graph.size) policy graph entries at \(chain[c].label), more than the \(budget) allowed; its certificates assert or map too many policies, and it is refused as a denial-of-service guard")
        }

        private func failure(_ index: Int, _ message: String) -> TrustFailure { CertificatePolicyRule.failure(index, message) }
    }

    /// §6.1.2's explicit_policy, policy_mapping and inhibit_anyPolicy, each with what last lowered it, for the reason.
    struct Counters {
        var explicit: Int, mapping: Int, inhibitAny: Int
        var explicitBy = "the verification options require an explicit policy (initial-explicit-policy)"
        var mappingBy = "the verification options (initial-policy-mapping-inhibit)"
        var anyBy = "the verification options (initial-any-policy-inhibit)"

        init(_ options: CertificatePolicyOptions, pathLength n: Int) {
            explicit = options.requireExplicitPolicy ? 0 : n + 1
            mapping = options.inhibitPolicyMapping ? 0 : n + 1
            inhibitAny = options.inhibitAnyPolicy ? 0 : n + 1
        }

        /// §6.1.4 (h) for a certificate that is not self-issued.
        mutating func countDown() {
            countDownExplicit()
            if mapping > 0 { mapping -= 1 }
            if inhibitAny > 0 { inhibitAny -= 1 }
        }

        mutating func countDownExplicit() { if explicit > 0 { explicit -= 1 } }

        /// §6.1.4 (i) and (j): policyConstraints and inhibitAnyPolicy only ever lower a counter.
        /// The label is built only when a constraint applies: naming a certificate costs more than the check.
        mutating func tighten(by ext: PolicyExtensions, label: @autoclosure () -> String) {
            if let r = ext.requireExplicitPolicy, r < explicit { explicit = r; explicitBy = "\(label()) requires an explicit policy (policyConstraints)" }
            if let m = ext.inhibitPolicyMapping, m < mapping { mapping = m; mappingBy = "\(label()) (policyConstraints)" }
            if let a = ext.inhibitAnyPolicy, a < inhibitAny { inhibitAny = a; anyBy = "\(label()) (inhibitAnyPolicy)" }
        }
    }

    /// Each certificate's policy extensions, or nil with the failure when one is malformed.
    static func parse(_ chain: UnverifiedCertificateChain, extensions: ExtensionMemo, into failures: inout [TrustFailure]) -> [PolicyExtensions]? {
        var parsed: [PolicyExtensions] = []
        parsed.reserveCapacity(chain.count)
        for i in chain.indices {
            do { parsed.append(try extensions(chain, i).policies.get()) } catch {
                failures.append(TrustFailure(.malformedCertificate, certificate: i,
                    "\(chain[i].label) has a malformed \(error.extensionName) extension: \(error.reason)"))
                return nil
            }
        }
        return parsed
    }

    /// A policyMappings extension's pairs grouped by issuer policy, in first-seen order, without repeated subjects.
    static func grouped(_ maps: [(issuer: ASN1ObjectIdentifier, subject: ASN1ObjectIdentifier)]) -> [(issuer: ASN1ObjectIdentifier, subjects: [ASN1ObjectIdentifier])] {
        var grouped: [(issuer: ASN1ObjectIdentifier, subjects: [ASN1ObjectIdentifier])] = []
        var slot: [ASN1ObjectIdentifier: Int] = [:]
        for (issuer, subject) in maps {
            if let k = slot[issuer] {
                if !grouped[k].subjects.contains(subject) { grouped[k].subjects.append(subject) }
            } else {
                slot[issuer] = grouped.count
                grouped.append((issuer, [subject]))
            }
        }
        return grouped
    }

    /// OIDs for a sentence, anyPolicy by name, at most four.
    static func list(_ oids: [ASN1ObjectIdentifier]) -> String {
        guard !oids.isEmpty else { return "no policy" }
        let names = oids.map { $0 == PolicyExtensions.anyPolicy ? "anyPolicy" : $0.description }.sorted()
        let shown = names.prefix(4).joined(separator: ", ")
        return names.count > 4 ? "\(shown) and \(names.count - 4) more" : shown
    }
}
