import Crypto
import _CryptoExtras
import SwiftASN1
import X509

/// The strict profile: the CA/Browser Forum Baseline Requirements and RFC 5280's "conforming CA" rules, as
/// pyca/cryptography and webpki enforce them.
///
/// Apple's SecTrust does not check these, and some older private PKIs break them, so they are opt-in
/// (``TrustPolicy/Profile/webPKI``). Every violation is a sign of a mis-issued certificate.
public struct WebPKIProfileRule: ChainRule {
    public init() {}

    public var handledCriticalExtensions: [ASN1ObjectIdentifier] { [Self.policyConstraints] }

    static let policyConstraints: ASN1ObjectIdentifier = [2, 5, 29, 36]

    public func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        let last = chain.count - 1
        for (i, cert) in chain.enumerated() {
            func fail(_ code: TrustFailureCode, _ message: String) {
                failures.append(TrustFailure(code, certificate: i, "\(cert.label) \(message) (CA/B Forum profile)"))
            }
            let isAnchor = i == last
            let isLeaf = i == 0 && chain.count > 1
            let ext = cert.extensions
            let serial = Array(cert.serialNumber.bytes)
            if serial.allSatisfy({ $0 == 0 }) {
                fail(.malformedCertificate, "has serial number zero")
            } else if serial.count > 20 {
                fail(.malformedCertificate, "has a serial number longer than 20 octets")
            } else if let first = serial.first, first & 0x80 != 0 {
                fail(.malformedCertificate, "has a negative serial number")
            }
            let aki = try? ext.authorityKeyIdentifier
            let ski = try? ext.subjectKeyIdentifier
            if !cert.isSelfIssued && aki?.keyIdentifier == nil {
                fail(.malformedCertificate, "has no authorityKeyIdentifier keyIdentifier")
            }
            if (i > 0 || !isLeaf) && ski == nil && cert.isCA {
                fail(.malformedCertificate, "is a CA without a subjectKeyIdentifier")
            }
            if isAnchor && cert.isSelfIssued, let aki {
                if aki.keyIdentifier == nil || aki.authorityCertIssuer != nil || aki.authorityCertSerialNumber != nil {
                    fail(.malformedCertificate, "is a root whose authorityKeyIdentifier must hold exactly a keyIdentifier")
                } else if let ski, ski.keyIdentifier != aki.keyIdentifier {
                    fail(.malformedCertificate, "is a root whose authorityKeyIdentifier differs from its subjectKeyIdentifier")
                }
            }
            if cert.isCA, ext[oid: .X509ExtensionID.basicConstraints]?.critical == false {
                fail(.basicConstraints, "is a CA whose basicConstraints is not critical")
            }
            if ext[oid: .X509ExtensionID.nameConstraints]?.critical == false {
                fail(.nameConstraints, "has nameConstraints that are not critical")
            }
            if ext[oid: Self.policyConstraints]?.critical == false {
                fail(.malformedCertificate, "has policyConstraints that are not critical")
            }
            if let san = ext[oid: .X509ExtensionID.subjectAlternativeName], san.critical != cert.subject.isEmpty {
                fail(.malformedCertificate, cert.subject.isEmpty ? "has an empty subject, so its subjectAltName must be critical" : "marks subjectAltName critical although it has a subject")
            }
            if isAnchor && cert.isSelfIssued && chain.count > 1 && ext[oid: .X509ExtensionID.extendedKeyUsage] != nil {
                fail(.extendedKeyUsage, "is a root carrying extendedKeyUsage")
            }
            if let rsa = _RSA.Signing.PublicKey(cert.publicKey), rsa.keySizeInBits % 8 != 0 {
                fail(.weakKey, "has an RSA key of \(rsa.keySizeInBits) bits, not a multiple of 8")
            }
            if isLeaf {
                if cert.isCA { fail(.basicConstraints, "is an end-entity certificate marked as a CA") }
                if let eku = try? ext.extendedKeyUsage, eku.contains(.any) {
                    fail(.extendedKeyUsage, "lists anyExtendedKeyUsage, which server certificates may not")
                }
                Self.checkNames(cert, fail: fail)
            }
        }
    }

    /// SAN dNSNames are preferred-syntax host names, and the CN, if any, repeats one SAN entry exactly.
    static func checkNames(_ cert: Certificate, fail: (TrustFailureCode, String) -> Void) {
        let sans = (try? cert.extensions.subjectAlternativeNames).map(Array.init) ?? []
        var texts: [String] = []
        for name in sans {
            switch name {
            case .dnsName(let d):
                texts.append(d)
                let body = d.hasPrefix("*.") ? d.dropFirst(2) : Substring(d)
                if body.contains(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".")) }) {
                    fail(.malformedCertificate, "has the subjectAltName dNSName '\(d)', which is not a valid host name")
                }
            case .ipAddress(let ip):
                texts.append(IPAddressText.format(Array(ip.bytes)))
            default:
                break
            }
        }
        for rdn in cert.subject {
            for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                let cn = String(attribute.value) ?? attribute.value.description
                if !texts.contains(cn) {
                    fail(.malformedCertificate, "has the common name '\(cn)', which is not exactly one of its subjectAltNames")
                }
            }
        }
    }
}
