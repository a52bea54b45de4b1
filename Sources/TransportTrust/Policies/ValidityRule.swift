import Foundation
import X509

/// Every certificate, the anchor included, must be valid at the validation time (as SecTrust checks).
package struct ValidityRule: ChainRule {
    package init() {}

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        let now = Self.wholeSeconds(context.validationTime)
        for (i, cert) in chain.enumerated() {
            // Each read converts the certificate's time to a Date: once each. The dates' getters are not inlined and
            // take the whole certificate, so it is bound once here rather than copied for each.
            let notValidBefore = cert.notValidBefore, notValidAfter = cert.notValidAfter
            if notValidAfter < notValidBefore {
                failures.append(TrustFailure(.malformedCertificate, certificate: i,
                    "\(cert.label) has a validity period that ends before it starts; it can never be valid"))
            } else if now > notValidAfter {
                failures.append(TrustFailure(.expired, certificate: i,
                    "\(cert.label) expired on \(RFC3339.format(notValidAfter)); the server must install a renewed certificate"))
            } else if now < notValidBefore {
                failures.append(TrustFailure(.notYetValid, certificate: i,
                    "\(cert.label) is not valid until \(RFC3339.format(notValidBefore)); check the clock of this machine or of the issuing CA"))
            }
        }
    }

    /// X.509 times have whole-second precision and notAfter is inclusive: 00:00:00.005 is still 00:00:00.
    /// The validated-path cache compares against the same value.
    static func wholeSeconds(_ time: Date) -> Date { Date(timeIntervalSince1970: time.timeIntervalSince1970.rounded(.down)) }
}
