import Foundation
import SwiftASN1
import X509

/// extendedKeyUsage, for TLS servers as Apple has required since iOS 13 and as the CA/Browser Forum requires, and
/// for any other key purpose the same way:
/// - the leaf's EKU, when it carries one (under the SSL policy it must), lists every required purpose;
///   anyExtendedKeyUsage alone is not enough. For TLS purposes (serverAuth, clientAuth) it must not be critical;
/// - an issuing CA that carries an EKU constrains what it may issue, so it must include the purpose or
///   anyExtendedKeyUsage;
/// - a trust anchor's EKU, when present, constrains the same way.
package struct ExtendedKeyUsageRule: ChainRule {
    /// The purposes the leaf must be valid for.
    package var required: [ExtendedKeyUsage.Usage]
    /// True for the CA/B Forum profile: the leaf must carry the extension at all.
    package var leafMustCarryEKU: Bool

    package init(required: [ExtendedKeyUsage.Usage] = [.serverAuth], leafMustCarryEKU: Bool = true) {
        self.required = required
        self.leafMustCarryEKU = leafMustCarryEKU
    }

    package var handledCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.extendedKeyUsage] }

    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        // By index: a certificate the iterator hands out is a copy, a retain per field.
        for i in chain.indices {
            let eku: ExtendedKeyUsage?
            switch context.extensions(chain, i).extendedKeyUsage {
            case .absent: eku = nil
            case .value(let value): eku = value
            case .unreadable:
                failures.append(TrustFailure(.malformedCertificate, certificate: i, "\(chain[i].label) has an unreadable extendedKeyUsage extension"))
                continue
            }
            if i == 0 {
                guard let eku else {
                    if leafMustCarryEKU {
                        failures.append(TrustFailure(.extendedKeyUsage, certificate: 0,
                            "\(chain[i].label) has no extendedKeyUsage extension; a TLS server certificate must list \(required.map(Self.name).joined(separator: ", "))"))
                    }
                    continue
                }
                if chain[i].extensions[oid: .X509ExtensionID.extendedKeyUsage]?.critical == true && chain.count > 1
                    && required.contains(where: { $0 == .serverAuth || $0 == .clientAuth })
                {
                    failures.append(TrustFailure(.extendedKeyUsage, certificate: 0,
                        "\(chain[i].label) marks extendedKeyUsage critical, which the CA/Browser Forum forbids for TLS certificates"))
                }
                for purpose in required where !eku.contains(purpose) {
                    failures.append(TrustFailure(.extendedKeyUsage, certificate: 0,
                        "\(chain[i].label) is not valid for \(Self.name(purpose)): its extendedKeyUsage lists \(Self.describe(eku))"))
                }
            } else if let eku, !eku.contains(.any) {
                for purpose in required where !eku.contains(purpose) {
                    failures.append(TrustFailure(.extendedKeyUsage, certificate: i,
                        "\(chain[i].label) may only issue for \(Self.describe(eku)), not for \(Self.name(purpose))"))
                }
            }
        }
    }

    static func name(_ u: ExtendedKeyUsage.Usage) -> String {
        switch u {
        case .serverAuth: return "serverAuth"
        case .clientAuth: return "clientAuth"
        case .codeSigning: return "codeSigning"
        case .emailProtection: return "emailProtection"
        case .timeStamping: return "timeStamping"
        case .ocspSigning: return "OCSPSigning"
        case .any: return "anyExtendedKeyUsage"
        default: return ASN1ObjectIdentifier(u).description
        }
    }

    static func describe(_ eku: ExtendedKeyUsage) -> String {
        eku.isEmpty ? "nothing" : eku.map(name).joined(separator: ", ")
    }
}
