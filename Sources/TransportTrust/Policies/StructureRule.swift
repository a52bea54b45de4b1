import SwiftASN1
import X509

/// Structural soundness of every certificate on the path, checked under every policy.
///
/// These are the RFC 5280 rules whose violation makes a path ambiguous or unsafe, not merely untidy:
/// extensions that do not parse, a CA without a subject name, keyUsage that contradicts basicConstraints,
/// name constraints where they cannot apply or in a form that cannot be evaluated, and name-constraint
/// work large enough to be a denial of service.
package struct StructureRule: ChainRule {
    /// Most (constraint × name) comparisons allowed on one path before it is refused.
    package var nameConstraintBudget: Int

    package init(nameConstraintBudget: Int = 1 << 16) { self.nameConstraintBudget = nameConstraintBudget }

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        // By index: a certificate the iterator hands out is a copy, a retain per field.
        for i in chain.indices {
            let cert = chain[i]
            let parsed = context.extensions(cert)
            if let bad = parsed.unreadable {
                failures.append(.malformedExtension(bad, of: cert, at: i))
                continue
            }
            let isLeaf = i == 0 && chain.count > 1
            let usage = parsed.keyUsage.value
            let isCA = parsed.isCA
            if i > 0 && cert.subject.isEmpty {
                failures.append(TrustFailure(.malformedCertificate, certificate: i, "the CA certificate at position \(i) has an empty subject, so nothing can be chained to it by name"))
            }
            if let usage {
                if isCA && !usage.keyCertSign {
                    // An issuer gets KeyUsageRule's sentence, so that the engine reports the fault once.
                    failures.append(TrustFailure(.keyUsage, certificate: i, i > 0
                        ? "\(cert.label) signs certificates but its keyUsage lacks keyCertSign"
                        : "\(cert.label) is a CA (basicConstraints cA) but its keyUsage lacks keyCertSign"))
                } else if !isCA && usage.keyCertSign {
                    failures.append(TrustFailure(.keyUsage, certificate: i, "\(cert.label) asserts keyCertSign without being a CA (basicConstraints cA is false or absent)"))
                }
            }
            if let ext = cert.extensions[oid: .X509ExtensionID.nameConstraints] {
                if isLeaf {
                    failures.append(TrustFailure(.nameConstraints, certificate: i, "\(cert.label) is an end-entity certificate carrying nameConstraints, which only CAs may carry"))
                }
                if let problem = Self.nameConstraintsProblem(ext) {
                    failures.append(TrustFailure(.nameConstraints, certificate: i, "\(cert.label) has unusable name constraints: \(problem)"))
                }
            }
        }
        let load = NameConstraintLoad(chain, extensions: context.extensions)
        guard load.constraints > 0 else { return }
        if load.work > nameConstraintBudget {
            failures.append(TrustFailure(.nameConstraints, certificate: 0,
                "checking the leaf's \(load.names.count) subjectAltNames and \(load.subjectAttributes) subject attributes against \(load.constraints) name constraints would take \(load.work) comparisons; refused as a denial-of-service guard"))
            return
        }
        Self.checkWildcardsAgainstExclusions(chain, names: load.names, extensions: context.extensions, into: &failures)
    }

    /// Name constraints on DNS names compare strings; a wildcard SAN stands for names the string comparison
    /// does not see (CVE-2025-61727). A wildcard that could cover an excluded name is refused.
    static func checkWildcardsAgainstExclusions(_ chain: UnverifiedCertificateChain, names: [GeneralName], extensions: ExtensionMemo,
                                                into failures: inout [TrustFailure]) {
        let wildcards = names.compactMap { name -> String? in
            guard case .dnsName(let d) = name, d.hasPrefix("*.") else { return nil }
            return String(d.dropFirst(2)).lowercased()
        }
        guard !wildcards.isEmpty else { return }
        for cert in chain.dropFirst() {
            guard let nc = extensions(cert).nameConstraints.value else { continue }
            for excluded in nc.excludedDNSDomains {
                var e = excluded.lowercased()
                if e.hasPrefix(".") { e.removeFirst() }
                for base in wildcards {
                    let parentOfExcluded = e.firstIndex(of: ".").map { String(e[e.index(after: $0)...]) }
                    if e.isEmpty || base == e || base.hasSuffix("." + e) || parentOfExcluded == base {
                        failures.append(TrustFailure(.nameConstraints, certificate: 0,
                            "the wildcard *.\(base) in \(chain[0].label) covers \(e.isEmpty ? "every name" : e), which \(cert.label) excludes"))
                    }
                }
            }
        }
    }

    /// RFC 5280 §4.2.1.10: at least one of the subtrees must be present and non-empty, and a dNSName
    /// constraint is a host name, never one with a leading period (that is the URI form).
    static func nameConstraintsProblem(_ ext: Certificate.Extension) -> String? {
        guard let root = try? DER.parse(ext.value), case .constructed(let parts) = root.content else {
            return "the extension does not parse"
        }
        var present = 0
        for part in parts {
            guard case .constructed(let subtrees) = part.content else { return "a subtree list is not a SEQUENCE" }
            var iterator = subtrees.makeIterator()
            if iterator.next() == nil { return "an empty \(part.identifier.tagNumber == 0 ? "permitted" : "excluded") subtree list" }
            present += 1
        }
        if present == 0 { return "neither permitted nor excluded subtrees" }
        guard let nc = try? NameConstraints(ext) else { return "the extension does not parse" }
        for name in Array(nc.permittedDNSDomains) + Array(nc.excludedDNSDomains) where name.hasPrefix(".") {
            return "the dNSName constraint '\(name)' has a leading period, which RFC 5280 does not allow"
        }
        return nil
    }
}

/// How much name-constraint matching a path asks for: every constraint on the path against every name of the
/// leaf. `RFC5280Rule` consults it too, so that the quadratic check is never started on a hostile path.
struct NameConstraintLoad {
    var names: [GeneralName] = []
    var constraints = 0
    var work: Int { constraints * (names.count + subjectAttributes) }
    private(set) var subjectAttributes = 0

    init(_ chain: UnverifiedCertificateChain, extensions: ExtensionMemo) {
        for cert in chain.dropFirst() {
            if let nc = extensions(cert).nameConstraints.value {
                constraints += nc.permittedSubtrees.count + nc.excludedSubtrees.count
            }
        }
        guard constraints > 0, let leaf = chain.first else { return }
        names = extensions(leaf).subjectAlternativeNames.value.map(Array.init) ?? []
        subjectAttributes = leaf.subject.reduce(0) { $0 + $1.count }
    }
}
