import X509

/// One check over a candidate chain, leaf first and trust anchor last.
///
/// Rules append structured failures instead of returning strings, so that every verdict can carry a stable
/// code and the certificate it concerns. Compose them with ``ChainRuleBuilder``.
public protocol ChainRule: Sendable {
    /// Critical extensions this rule processes, so that the path builder does not reject them as unknown.
    var handledCriticalExtensions: [ASN1ObjectIdentifierLiteral] { get }
    func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure])
}

extension ChainRule {
    public var handledCriticalExtensions: [ASN1ObjectIdentifierLiteral] { [] }
}

/// What a rule may need besides the chain.
public struct RuleContext: Sendable {
    public var validationTime: Date
    /// True when the anchor of this chain is a public root: from the system store (which includes `SSL_CERT_FILE`
    /// and `SSL_CERT_DIR`) or Apple's, rather than a custom anchor from the caller.
    public var anchorIsSystem: Bool
    /// Apple's limits on the roots of its store, when the anchors are Apple's (``TrustAnchors/Store/apple``).
    var rootConstraints = RootConstraints()
    /// The evaluation's certificates' extensions, each parsed once; copies of a context share it.
    let extensions = ExtensionMemo()
}

import SwiftASN1
import Foundation
public typealias ASN1ObjectIdentifierLiteral = ASN1ObjectIdentifier

/// Composes rules in order, as swift-certificates' `PolicyBuilder` composes verifier policies.
@resultBuilder
public enum ChainRuleBuilder {
    public static func buildExpression(_ rule: any ChainRule) -> [any ChainRule] { [rule] }
    public static func buildExpression(_ rules: [any ChainRule]) -> [any ChainRule] { rules }
    public static func buildBlock(_ parts: [any ChainRule]...) -> [any ChainRule] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [any ChainRule]?) -> [any ChainRule] { part ?? [] }
    public static func buildEither(first: [any ChainRule]) -> [any ChainRule] { first }
    public static func buildEither(second: [any ChainRule]) -> [any ChainRule] { second }
    public static func buildArray(_ parts: [[any ChainRule]]) -> [any ChainRule] { parts.flatMap { $0 } }
}

extension Certificate {
    /// True for a certificate whose issuer and subject are the same name (RFC 5280 "self-issued", names compared as
    /// §7.1 asks).
    var isSelfIssued: Bool { ComparableName.matches(issuer, subject) }

    var label: String { subject.label }
}
