import TestSupport
import Foundation
import SwiftASN1
import X509

@testable import TransportTrust

/// Runs one ``ChainRule`` on the path swift-certificates builds from `leaf` to `anchors`, without the rest of
/// the policy, so that a rule can be tested on its own.
enum RuleProbe {
    /// The failures `rule` reports on the first path that reaches an anchor, or nil when no path was built.
    static func failures(
        _ rule: any ChainRule,
        leaf: TestCert,
        intermediates: [TestCert] = [],
        anchors: [TestCert],
        at time: Date = PKI.now,
        anchorIsSystem: Bool = false
    ) async -> [TrustFailure]? {
        let box = Box()
        var verifier = Verifier(rootCertificates: CertificateStore(anchors.map(\.certificate))) {
            Probe(rule: rule, context: RuleContext(validationTime: time, anchorIsSystem: anchorIsSystem), box: box)
        }
        _ = await verifier.validate(leaf: leaf.certificate, intermediates: CertificateStore(intermediates.map(\.certificate)))
        return await box.failures
    }

    /// The failures of the first path the policy saw.
    actor Box {
        private(set) var failures: [TrustFailure]?

        func noteFirst(_ found: [TrustFailure]) {
            if failures == nil { failures = found }
        }
    }

    struct Probe: VerifierPolicy {
        let rule: any ChainRule
        let context: RuleContext
        let box: Box
        // Every extension the test certificates use, so that the path builder leaves the judgement to the rule.
        let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
            .X509ExtensionID.basicConstraints, .X509ExtensionID.keyUsage, .X509ExtensionID.extendedKeyUsage,
            .X509ExtensionID.subjectAlternativeName, .X509ExtensionID.nameConstraints,
        ]

        mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
            var failures: [TrustFailure] = []
            rule.check(chain, context: context, into: &failures)
            await box.noteFirst(failures)
            return .meetsPolicy
        }
    }
}
