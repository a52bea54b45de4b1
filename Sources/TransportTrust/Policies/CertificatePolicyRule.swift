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

    // Long (about 75 lines): §6.1.3 to §6.1.5 in the standard's order, over one graph and three counters; split into
    // steps, each would take and return all of them.
    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        // A lone certificate is its own anchor: there is no path.
        guard chain.count > 1 else { return }
        let any = PolicyExtensions.anyPolicy
        let n = chain.count - 1
        guard let parsed = Self.parse(chain, into: &failures) else { return }
        func fail(_ index: Int, _ message: String) { failures.append(TrustFailure(.certificatePolicy, certificate: index, message)) }

        // §6.1.4 (a), for every intermediate and the anchor whatever else the path asks.
        for c in 1...n {
            if let maps = parsed[c].mappings, maps.contains(where: { $0.issuer == any || $0.subject == any }) {
                return fail(c, "\(chain[c].label) maps anyPolicy in its policyMappings, which RFC 5280 §6.1.4 (a) forbids")
            }
        }

        var acceptable = options.acceptablePolicies
        let anchor = parsed[n]
        var narrowedByAnchor = false
        if let own = anchor.policies, !own.contains(any) {
            acceptable = acceptable.contains(any) ? Set(own) : acceptable.intersection(own)
            narrowedByAnchor = true
        }
        var state = Counters(options, pathLength: n)
        // The anchor's own mappings are inhibited only by the options: its policyConstraints count from below it.
        let anchorMapping = state.mapping > 0
        state.tighten(by: anchor, label: "the anchor \(chain[n].label)")

        // Without an explicit policy required anywhere, every path is valid whatever its policies (§6.1.5).
        guard state.explicit <= n || parsed[0..<n].contains(where: { $0.requireExplicitPolicy != nil }) else { return }

        var graph = PolicyGraph()
        var emptied: (index: Int, reason: String)?
        func overBudget(_ c: Int) -> Bool {
            guard graph.size > budget else { return false }
            fail(c, "certificate policy processing of this path reached \(graph.size) policy graph entries at \(chain[c].label), more than the \(budget) allowed; its certificates assert or map too many policies, and it is refused as a denial-of-service guard")
            return true
        }
        if let maps = anchor.mappings {
            graph.addDepth(policies: anchor.policies ?? [any], anyPolicyCounts: true)
            graph.apply(mappings: Self.grouped(maps), allowed: anchorMapping)
            if graph.isNull {
                emptied = (n, "the anchor \(chain[n].label) maps \(Self.list(maps.map(\.issuer))), and policy mapping is inhibited by \(state.mappingBy), so no valid policy remains")
            }
            if overBudget(n) { return }
        }
        for i in 1...n {
            let c = n - i
            let cert = chain[c]
            let ext = parsed[c]
            // §6.1.3 (d) to (f).
            if !graph.isNull {
                if let policies = ext.policies {
                    let before = graph
                    graph.addDepth(policies: policies, anyPolicyCounts: state.inhibitAny > 0 || (i < n && cert.isSelfIssued))
                    if graph.isNull {
                        emptied = (c, policies.allSatisfy { $0 == any }
                            ? "\(cert.label) asserts only anyPolicy, and anyPolicy is inhibited by \(state.anyBy)"
                            : "\(cert.label) asserts \(Self.list(policies)), none of which its issuers allow (they allow \(Self.list(before.expectedPolicies)))")
                    }
                } else {
                    graph.makeNull()
                    emptied = (c, "\(cert.label) has no certificatePolicies extension")
                }
                if overBudget(c) { return }
            }
            if state.explicit == 0 && graph.isNull {
                let at = emptied?.index ?? c
                return fail(at, "no certificate policy is valid for the path down to \(cert.label), and \(state.explicitBy): \(emptied?.reason ?? "no policy remains")")
            }
            guard i < n else { break }
            // §6.1.4 (b), (h) to (j).
            if let maps = ext.mappings, !graph.isNull {
                let grouped = Self.grouped(maps)
                graph.apply(mappings: grouped, allowed: state.mapping > 0)
                if graph.isNull {
                    emptied = (c, "\(cert.label) maps \(Self.list(grouped.map(\.issuer))), and policy mapping is inhibited by \(state.mappingBy), so no valid policy remains")
                }
                if overBudget(c) { return }
            }
            if !cert.isSelfIssued { state.countDown() }
            state.tighten(by: ext, label: cert.label)
        }
        // §6.1.5 (a), (b) and (g).
        state.countDownExplicit()
        if parsed[0].requireExplicitPolicy == 0 { state.explicit = 0; state.explicitBy = "\(chain[0].label) requires an explicit policy (policyConstraints)" }
        guard state.explicit == 0 else { return }
        if graph.isNull {
            return fail(emptied?.index ?? 0, "no certificate policy is valid for this path, and \(state.explicitBy): \(emptied?.reason ?? "no policy remains")")
        }
        if !graph.isValid(for: acceptable) {
            var valid = Array(graph.authorityPolicies())
            if graph.deepest[any] != nil { valid.append(any) }
            let accepted = acceptable.isEmpty ? "no policy" : Self.list(Array(acceptable))
            fail(0, "\(chain[0].label) is valid for \(Self.list(valid)), and none of them is acceptable (\(accepted)\(narrowedByAnchor ? ", as narrowed by the anchor's own certificatePolicies" : "")); \(state.explicitBy)")
        }
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
    static func parse(_ chain: UnverifiedCertificateChain, into failures: inout [TrustFailure]) -> [PolicyExtensions]? {
        var parsed: [PolicyExtensions] = []
        parsed.reserveCapacity(chain.count)
        for i in chain.indices {
            do { parsed.append(try PolicyExtensions(chain[i])) } catch {
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
