import X509

/// One check over a candidate chain, leaf first and trust anchor last.
///
/// Rules append structured failures instead of returning strings, so that every verdict can carry a stable
/// code and the certificate it concerns. Compose them with `ChainRuleBuilder`.
package protocol ChainRule: Sendable {
    /// Critical extensions this rule processes, so that the path builder does not reject them as unknown.
    var handledCriticalExtensions: [ASN1ObjectIdentifierLiteral] { get }
    func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure])
}

extension ChainRule {
    package var handledCriticalExtensions: [ASN1ObjectIdentifierLiteral] { [] }
}

/// What a rule may need besides the chain.
package struct RuleContext: Sendable {
    package var validationTime: Date
    /// True when the anchor of this chain is a public root: a root of the system store (which includes `SSL_CERT_FILE`
    /// and `SSL_CERT_DIR`) or Apple's, even when the caller also supplied it as a custom anchor (trustd asks the store).
    package var anchorIsSystem: Bool
    /// Apple's limits on the roots of its store, when the anchors are Apple's (``TrustAnchors/Store/apple``).
    var rootConstraints = RootConstraints()
    /// The evaluation's certificates' extensions, each parsed once; copies of a context share it.
    let extensions = ExtensionMemo()
    /// The engine's memory of paths above a leaf that passed swift-certificates' RFC 5280 policy (``RFC5280Rule``);
    /// nil runs the policy every time.
    var passedAbove: RFC5280Rule.PassedAbove?
}

import SwiftASN1
import Foundation
package typealias ASN1ObjectIdentifierLiteral = ASN1ObjectIdentifier

/// Composes rules in order, as swift-certificates' `PolicyBuilder` composes verifier policies.
@resultBuilder
package enum ChainRuleBuilder {
    package static func buildExpression(_ rule: any ChainRule) -> [any ChainRule] { [rule] }
    package static func buildExpression(_ rules: [any ChainRule]) -> [any ChainRule] { rules }
    package static func buildBlock(_ parts: [any ChainRule]...) -> [any ChainRule] { parts.flatMap { $0 } }
    package static func buildOptional(_ part: [any ChainRule]?) -> [any ChainRule] { part ?? [] }
    package static func buildEither(first: [any ChainRule]) -> [any ChainRule] { first }
    package static func buildEither(second: [any ChainRule]) -> [any ChainRule] { second }
    package static func buildArray(_ parts: [[any ChainRule]]) -> [any ChainRule] { parts.flatMap { $0 } }
}

extension Certificate {
    /// True for a certificate whose issuer and subject are the same name (RFC 5280 "self-issued", names compared as
    /// §7.1 asks).
    var isSelfIssued: Bool { ComparableName.matches(issuer, subject) }

    var label: String { subject.label }
}
