import Crypto
import Foundation
import X509

/// Name constraints swift-certificates refuses outright or matches otherwise than RFC 5280 says, which
/// ``RFC5280Rule`` settles here:
/// - directoryName subtrees (RFC 5280 §4.2.1.10 makes them a MUST), which it refuses: checked here;
/// - rfc822Name subtrees, which it refuses, and uniformResourceIdentifier subtrees, which it matches as DNS names
///   (so that `example.com` would admit `http://www.example.com`): checked here, as §4.2.1.10 defines them;
/// - subtrees of the types it has no matcher for (otherName, x400Address, ediPartyName, registeredID): RFC 5280
///   constrains only names of a subtree's own type, so such a subtree is a no-op when no certificate below it
///   carries a name of that type. When one does, the subtree stays and the refusal stands;
/// - the names of self-issued intermediates, which it checks although RFC 5280 §6.1.3 exempts them.
///
/// A name is within a DN subtree when the subtree's RDNs are its first RDNs. Attribute values are compared as
/// RFC 5280 §7.1 asks (``ComparableName``). The comparison fails closed both ways: a value that cannot be
/// prepared as a string matches an excluded subtree unless its bytes are unequal *and* both are strings, and
/// matches a permitted subtree only byte for byte.
enum NameConstraintGaps {
    /// The chain with the subtrees above taken out (DN subtrees, and the no-op ones), and without the SANs of
    /// self-issued intermediates, whose names RFC 5280 §6.1.3 exempts and swift-certificates checks anyway; for
    /// swift-certificates to check the rest. Certificates that change are re-signed with a scratch key: the RFC 5280
    /// policy reads fields and extensions only, and signatures were verified on the real chain. Nil when nothing
    /// would change or a certificate cannot be rebuilt.
    static func withoutSubtreesLeftToUs(_ chain: UnverifiedCertificateChain) -> UnverifiedCertificateChain? {
        var rebuilt: [Certificate] = []
        var changed = false
        for (i, cert) in chain.enumerated() {
            var extensions = Array(cert.extensions)
            var edited = false
            if isExempt(chain, i), extensions.contains(where: { $0.oid == .X509ExtensionID.subjectAlternativeName }) {
                extensions.removeAll { $0.oid == .X509ExtensionID.subjectAlternativeName }
                edited = true
            }
            if let nc = try? cert.extensions.nameConstraints {
                let below = Set(chain.indices.prefix(i).flatMap { isExempt(chain, $0) ? [] : nameKinds(chain[$0]) })
                func kept(_ subtree: GeneralName) -> Bool {
                    let kind = NameKind(subtree)
                    return !kind.isCheckedHere && (kind.isEvaluatedBySwiftCertificates || below.contains(kind))
                }
                let trimmed = NameConstraints(permittedSubtrees: nc.permittedSubtrees.filter(kept),
                                              excludedSubtrees: nc.excludedSubtrees.filter(kept))
                if trimmed != nc, let at = extensions.firstIndex(where: { $0.oid == .X509ExtensionID.nameConstraints }) {
                    if trimmed.permittedSubtrees.isEmpty && trimmed.excludedSubtrees.isEmpty {
                        extensions.remove(at: at)
                    } else {
                        guard let replacement = try? Certificate.Extension(trimmed, critical: extensions[at].critical) else { return nil }
                        extensions[at] = replacement
                    }
                    edited = true
                }
            }
            guard edited else {
                rebuilt.append(cert)
                continue
            }
            guard let copy = try? Certificate(
                version: cert.version, serialNumber: cert.serialNumber, publicKey: cert.publicKey,
                notValidBefore: cert.notValidBefore, notValidAfter: cert.notValidAfter,
                issuer: cert.issuer, subject: cert.subject, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions(extensions), issuerPrivateKey: scratchKey)
            else { return nil }
            rebuilt.append(copy)
            changed = true
        }
        return changed ? UnverifiedCertificateChain.assembled(rebuilt) : nil
    }

    /// True for a self-issued intermediate: RFC 5280 §6.1.3 (b, c) checks no names of it. The leaf is always
    /// checked, and nothing above the anchor constrains it, so neither counts (a self-signed anchor would otherwise
    /// send every name-constraint failure down the slower path).
    static func isExempt(_ chain: UnverifiedCertificateChain, _ index: Int) -> Bool {
        index > chain.startIndex && index < chain.endIndex - 1 && chain[index].isSelfIssued
    }

    /// The kinds of name a certificate carries for name constraints: its SANs' types, a directoryName for a
    /// non-empty subject, and rfc822Name for a subject emailAddress attribute (RFC 5280 §4.2.1.10 applies email
    /// constraints to it). A SAN that cannot be read counts as every kind, so nothing is stripped on its account.
    static func nameKinds(_ cert: Certificate) -> [NameKind] {
        var kinds: [NameKind] = []
        do { kinds += (try cert.extensions.subjectAlternativeNames).map { $0.map(NameKind.init) } ?? [] } catch { return NameKind.allCases }
        if !cert.subject.isEmpty { kinds.append(.directoryName) }
        if cert.subject.contains(where: { $0.contains { $0.type == .RDNAttributeType.emailAddress } }) { kinds.append(.rfc822Name) }
        return kinds
    }

    enum NameKind: CaseIterable {
        case otherName, rfc822Name, dnsName, x400Address, directoryName, ediPartyName, uniformResourceIdentifier, ipAddress, registeredID

        init(_ name: GeneralName) {
            switch name {
            case .otherName: self = .otherName
            case .rfc822Name: self = .rfc822Name
            case .dnsName: self = .dnsName
            case .x400Address: self = .x400Address
            case .directoryName: self = .directoryName
            case .ediPartyName: self = .ediPartyName
            case .uniformResourceIdentifier: self = .uniformResourceIdentifier
            case .ipAddress: self = .ipAddress
            case .registeredID: self = .registeredID
            }
        }

        /// The subtree types swift-certificates matches names against as RFC 5280 does.
        var isEvaluatedBySwiftCertificates: Bool { self == .dnsName || self == .ipAddress }

        /// The subtree types ``NameConstraintGaps/violation(in:)`` checks.
        var isCheckedHere: Bool { self == .directoryName || self == .rfc822Name || self == .uniformResourceIdentifier }
    }

    /// True when a CA on the path has a subtree of a type checked here: swift-certificates must then see the path
    /// without it, or it refuses the path or judges the names otherwise.
    static func hasSubtreesCheckedHere(_ chain: UnverifiedCertificateChain, extensions: ExtensionMemo) -> Bool {
        chain.dropFirst().contains { cert in
            guard let nc = extensions(cert).nameConstraints.value else { return false }
            return (nc.permittedSubtrees + nc.excludedSubtrees).contains { NameKind($0).isCheckedHere }
        }
    }

    private static let scratchKey = Certificate.PrivateKey(P256.Signing.PrivateKey())

    /// Attribute comparisons one evaluation may make: a hostile RDN of thousands of attributes against a subtree
    /// of as many would otherwise cost their product.
    static let comparisonBudget = 1 << 16

    /// The first violation of a directoryName, rfc822Name or URI constraint in the chain (leaf first), or nil.
    /// Each CA's constraints apply to the names of every certificate below it that RFC 5280 §6.1.3 does not exempt.
    static func violation(in chain: UnverifiedCertificateChain) -> TrustFailure? {
        var budget = comparisonBudget
        for i in chain.indices.dropFirst() {
            let constraints: NameConstraints?
            do { constraints = try chain[i].extensions.nameConstraints } catch {
                return TrustFailure(.nameConstraints, certificate: i, "\(chain[i].label) has a nameConstraints extension that cannot be read")
            }
            guard let constraints else { continue }
            for j in chain.indices where j < i && !isExempt(chain, j) {
                let sans: SubjectAlternativeNames?
                do { sans = try chain[j].extensions.subjectAlternativeNames } catch {
                    return TrustFailure(.nameConstraints, certificate: j, "\(chain[j].label) has a subjectAltName extension that cannot be read")
                }
                if let failure = directoryNameViolation(chain, carrier: i, constraints, subject: j, sans: sans, budget: &budget)
                    ?? NameConstraintMatching.violation(chain, carrier: i, constraints, subject: j, sans: sans, budget: &budget)
                {
                    return failure
                }
            }
        }
        return nil
    }

    private static func directoryNameViolation(_ chain: UnverifiedCertificateChain, carrier i: Int, _ constraints: NameConstraints, subject j: Int,
                                               sans: SubjectAlternativeNames?, budget: inout Int) -> TrustFailure? {
        let permitted = constraints.permittedSubtrees.compactMap(\.directoryName)
        let excluded = constraints.excludedSubtrees.compactMap(\.directoryName)
        if permitted.isEmpty && excluded.isEmpty { return nil }
        var names = (sans.map { $0.compactMap(\.directoryName) } ?? []).map { (name: $0, what: "\(chain[j].label) has the directoryName SAN \($0.label)") }
        if !chain[j].subject.isEmpty { names.insert((chain[j].subject, "the subject of \(chain[j].label)"), at: 0) }
        for (name, what) in names {
            let admitted = permitted.isEmpty || permitted.contains { isWithin(name, $0, excluding: false, budget: &budget) }
            let banned = excluded.first { isWithin(name, $0, excluding: true, budget: &budget) }
            if budget < 0 { return tooLarge(chain, i) }
            if !admitted {
                return TrustFailure(.nameConstraints, certificate: i,
                    "\(what) is outside the directory names \(chain[i].label) permits (\(permitted.map(\.label).joined(separator: ", ")))")
            }
            if let banned {
                return TrustFailure(.nameConstraints, certificate: i,
                    "\(what) is within \(banned.label), a directory name \(chain[i].label) excludes")
            }
        }
        return nil
    }

    static func tooLarge(_ chain: UnverifiedCertificateChain, _ i: Int) -> TrustFailure {
        TrustFailure(.nameConstraints, certificate: i,
                     "the names in this chain are too large to check against the name constraints of \(chain[i].label) (more than \(comparisonBudget) comparisons); refused")
    }

    /// True when `subtree`'s RDNs begin `name`. `excluding` makes uncertain comparisons count as equal, and so does
    /// running out of `budget` (the caller refuses the chain then).
    static func isWithin(_ name: DistinguishedName, _ subtree: DistinguishedName, excluding: Bool, budget: inout Int) -> Bool {
        guard subtree.count <= name.count else { return false }
        for (a, b) in zip(subtree, name) where !sameRDN(a, b, excluding: excluding, budget: &budget) { return false }
        return true
    }

    static func isWithin(_ name: DistinguishedName, _ subtree: DistinguishedName, excluding: Bool) -> Bool {
        var budget = comparisonBudget
        return isWithin(name, subtree, excluding: excluding, budget: &budget)
    }

    private static func sameRDN(_ a: RelativeDistinguishedName, _ b: RelativeDistinguishedName, excluding: Bool, budget: inout Int) -> Bool {
        guard a.count == b.count else { return false }
        budget -= 2 * a.count * b.count
        if budget < 0 { return true }
        return a.allSatisfy { x in b.contains { y in sameAttribute(x, y, excluding: excluding) } }
            && b.allSatisfy { y in a.contains { x in sameAttribute(x, y, excluding: excluding) } }
    }

    private static func sameAttribute(_ a: RelativeDistinguishedName.Attribute, _ b: RelativeDistinguishedName.Attribute,
                                      excluding: Bool) -> Bool {
        guard a.type == b.type else { return false }
        // TeletexString and the like, or a prohibited character: uncertain, so equal only when excluding.
        return ComparableName.sameValue(a.value, b.value) ?? excluding
    }
}

extension GeneralName {
    fileprivate var directoryName: DistinguishedName? {
        if case .directoryName(let name) = self { return name }
        return nil
    }
}
