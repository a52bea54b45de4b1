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
            let parsed = context.extensions(chain, i)
            if let bad = parsed.unreadable {
                failures.append(.malformedExtension(bad, of: chain[i], at: i))
                continue
            }
            let isLeaf = i == 0 && chain.count > 1
            let usage = parsed.keyUsage.value
            let isCA = parsed.isCA
            // RFC 5280 §6.1.4(k): only a version 3 certificate can say it is a CA (basicConstraints); an earlier one
            // must be refused as an issuer unless it is the anchor. swift-certificates lets version 1 issuers through.
            if i > 0 && i < chain.count - 1 && chain[i].version != .v3 {
                failures.append(TrustFailure(.basicConstraints, certificate: i,
                    "\(chain[i].label) issues certificates but is a \(chain[i].version == .v1 ? "version 1" : "version 2") certificate, which cannot be marked as a CA (basicConstraints needs version 3); reissue it as a version 3 CA certificate"))
            }
            if i > 0 && chain[i].subject.isEmpty {
                failures.append(TrustFailure(.malformedCertificate, certificate: i, "the CA certificate at position \(i) has an empty subject, so nothing can be chained to it by name"))
            }
            if let usage {
                if isCA && !usage.keyCertSign {
                    // An issuer gets KeyUsageRule's sentence, so that the engine reports the fault once.
                    failures.append(TrustFailure(.keyUsage, certificate: i, i > 0
                        ? "\(chain[i].label) signs certificates but its keyUsage lacks keyCertSign"
                        : "\(chain[i].label) is a CA (basicConstraints cA) but its keyUsage lacks keyCertSign"))
                } else if !isCA && usage.keyCertSign {
                    failures.append(TrustFailure(.keyUsage, certificate: i, "\(chain[i].label) asserts keyCertSign without being a CA (basicConstraints cA is false or absent)"))
                }
            }
            if let ext = chain[i].extensions[oid: .X509ExtensionID.nameConstraints] {
                if isLeaf {
                    failures.append(TrustFailure(.nameConstraints, certificate: i, "\(chain[i].label) is an end-entity certificate carrying nameConstraints, which only CAs may carry"))
                }
                if let problem = Self.nameConstraintsProblem(ext) {
                    failures.append(TrustFailure(.nameConstraints, certificate: i, "\(chain[i].label) has unusable name constraints: \(problem)"))
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
        Self.checkNamesExclusionsCannotSee(chain, names: load.names, extensions: context.extensions, into: &failures)
    }

    /// swift-certificates' name-constraint matcher finds no subtree for a name it cannot read, which an excluded subtree
    /// then lets through: a dNSName with a trailing dot, an empty label or a label with a hyphen at either end, and an
    /// IPv4 address written in IPv6 form (::ffff:a.b.c.d), which it never compares with IPv4 ranges. Under an excluded
    /// subtree of that kind such a name is refused here. (A permitted subtree already refuses what it cannot read.)
    static func checkNamesExclusionsCannotSee(_ chain: UnverifiedCertificateChain, names: [GeneralName], extensions: ExtensionMemo,
                                              into failures: inout [TrustFailure]) {
        guard let leaf = chain.first else { return }
        for name in names {
            switch name {
            case .dnsName(let dns) where !ConstraintDNSName.isReadable(dns):
                guard let carrier = chain.dropFirst().first(where: { !(extensions($0).nameConstraints.value?.excludedDNSDomains.isEmpty ?? true) }) else { continue }
                failures.append(TrustFailure(.nameConstraints, certificate: 0,
                    "the subjectAltName '\(dns)' in \(leaf.label) cannot be checked against name constraints (a trailing dot, an empty label, or a label that starts or ends with '-'), and \(carrier.label) excludes DNS names; refused rather than trusted unchecked"))
            case .ipAddress(let address):
                guard let v4 = Self.mappedIPv4(Array(address.bytes)) else { continue }
                let dotted = v4.map { String($0) }.joined(separator: ".")
                for cert in chain.dropFirst() {
                    guard let nc = extensions(cert).nameConstraints.value else { continue }
                    for range in nc.excludedIPRanges where Self.ipv4Range(Array(range.bytes), contains: v4) {
                        failures.append(TrustFailure(.nameConstraints, certificate: 0,
                            "the address ::ffff:\(dotted) in \(leaf.label) is the IPv4 address \(dotted), which \(cert.label) excludes"))
                        return
                    }
                }
            default:
                continue
            }
        }
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
                // As swift-certificates reads the constraint: one trailing dot names the same domain.
                var e = excluded.lowercased()
                if e.hasPrefix(".") { e.removeFirst() }
                if e.hasSuffix(".") { e.removeLast() }
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

    /// The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:0:0/96, RFC 4291 §2.5.5.2).
    static func mappedIPv4(_ address: [UInt8]) -> [UInt8]? {
        guard address.count == 16, address[..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF else { return nil }
        return Array(address[12...])
    }

    /// Whether an iPAddress constraint (address then mask, RFC 5280 §4.2.1.10) is an IPv4 range holding `v4`.
    static func ipv4Range(_ constraint: [UInt8], contains v4: [UInt8]) -> Bool {
        guard constraint.count == 8, v4.count == 4 else { return false }
        for i in 0..<4 {
            let mask = constraint[4 + i]
            if v4[i] & mask != constraint[i] & mask { return false }
        }
        return true
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
        // By index: a certificate the slice hands out is a copy, a retain per field.
        for i in chain.indices.dropFirst() {
            if let nc = extensions(chain, i).nameConstraints.value {
                constraints += nc.permittedSubtrees.count + nc.excludedSubtrees.count
            }
        }
        guard constraints > 0, !chain.isEmpty else { return }
        names = extensions(chain, 0).subjectAlternativeNames.value.map(Array.init) ?? []
        subjectAttributes = chain[0].subject.reduce(0) { $0 + $1.count }
    }
}
