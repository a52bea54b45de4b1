import SwiftASN1
@_spi(DisableValidityCheck) import X509

/// RFC 5280 path checks that swift-certificates implements: version, basic constraints, path length and name
/// constraints. Validity is left to ``ValidityRule`` so that it gets its own codes.
///
/// swift-certificates reports only a sentence; this rule maps it to a stable code and a certificate index.
public struct RFC5280Rule: ChainRule {
    private let policy = RFC5280Policy.withValidityCheckDisabled()

    /// Paths whose name-constraint work exceeds this are left to ``StructureRule``, which refuses them.
    public var nameConstraintBudget: Int

    public init(nameConstraintBudget: Int = 1 << 16) { self.nameConstraintBudget = nameConstraintBudget }

    public var handledCriticalExtensions: [ASN1ObjectIdentifier] { policy.verifyingCriticalExtensions }

    public func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        guard NameConstraintLoad(chain).work <= nameConstraintBudget,
            case .failsToMeetPolicy(let reason) = policy.chainMeetsPolicyRequirements(chain: chain) else {
            return
        }
        let text = reason.description
        let index = chain.indices.last(where: { text.contains(chain[$0].subject.description) })
        let who = index.map { chain[$0].label } ?? "a certificate in the chain"
        let code: TrustFailureCode
        let message: String
        if text.contains("maximum path length") {
            code = .pathLength
            message = "\(who) limits how many CAs may follow it (pathLenConstraint), and this chain has more"
        } else if text.contains("is not marked as a CA") {
            code = .basicConstraints
            message = "\(who) issues certificates but is not marked as a CA (basicConstraints cA is false or absent)"
        } else if text.contains("basic constraints") {
            code = .basicConstraints
            message = "\(who) has an invalid basicConstraints extension"
        } else if text.contains("name constraints") || text.contains("subtree") || text.contains("SAN field") {
            code = .nameConstraints
            message = "a name in the chain is outside the name constraints of \(who)"
        } else if text.contains("version") {
            code = .malformedCertificate
            message = "\(who) is a version 1 certificate that carries extensions"
        } else {
            code = .policy
            message = "RFC 5280 path validation failed"
        }
        failures.append(TrustFailure(code, certificate: index, message + " (\(Self.shorten(text, chain: chain)))"))
    }

    /// swift-certificates embeds whole certificate dumps in its reasons; keep the sentence only.
    static func shorten(_ text: String, chain: UnverifiedCertificateChain) -> String {
        var t = text.replacingOccurrences(of: "RFC5280Policy: ", with: "")
        for cert in chain { t = t.replacingOccurrences(of: cert.description, with: cert.label) }
        if t.count > 240 { t = String(t.prefix(240)) + "…" }
        return t
    }
}

import Foundation
