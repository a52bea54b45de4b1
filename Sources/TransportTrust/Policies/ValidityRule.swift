import Foundation
import X509

/// Every certificate, the anchor included, must be valid at the validation time (as SecTrust checks).
package struct ValidityRule: ChainRule {
    package init() {}

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        let now = Self.wholeSeconds(context.validationTime)
        // By index, reading fields: a certificate the iterator hands out is a copy, a retain per field.
        for i in chain.indices {
            // Each read converts the certificate's time to a Date: once each.
            let notValidBefore = chain[i].notValidBefore, notValidAfter = chain[i].notValidAfter
            if notValidAfter < notValidBefore {
                failures.append(TrustFailure(.malformedCertificate, certificate: i,
                    "\(chain[i].label) has a validity period that ends before it starts; it can never be valid"))
            } else if now > notValidAfter {
                failures.append(TrustFailure(.expired, certificate: i,
                    "\(chain[i].label) expired on \(RFC3339.format(notValidAfter)); the server must install a renewed certificate"))
            } else if now < notValidBefore {
                failures.append(TrustFailure(.notYetValid, certificate: i,
                    "\(chain[i].label) is not valid until \(RFC3339.format(notValidBefore)); check the clock of this machine or of the issuing CA"))
            }
        }
    }

    /// X.509 times have whole-second precision and notAfter is inclusive: 00:00:00.005 is still 00:00:00.
    /// The validated-path cache compares against the same value.
    static func wholeSeconds(_ time: Date) -> Date { Date(timeIntervalSince1970: time.timeIntervalSince1970.rounded(.down)) }
}
