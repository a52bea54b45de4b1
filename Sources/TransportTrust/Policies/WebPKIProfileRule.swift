import SwiftASN1
import _CryptoExtras
import X509

/// The strict profile: the CA/Browser Forum Baseline Requirements and RFC 5280's "conforming CA" rules, as
/// pyca/cryptography and webpki enforce them.
///
/// Apple's SecTrust does not check these, and some older private PKIs break them, so they are opt-in
/// (``TrustPolicy/Profile/webPKI``). Every violation is a sign of a mis-issued certificate.
package struct WebPKIProfileRule: ChainRule {
    /// True when the leaf is a TLS server certificate (the SSL policy): the Baseline Requirements' EKU rules for
    /// subscriber and subordinate CA certificates then apply.
    package var tlsServer: Bool

    package init(tlsServer: Bool = true) { self.tlsServer = tlsServer }

    /// Key purposes a TLS subscriber certificate must not list (BR 7.1.2.7.10); anyExtendedKeyUsage is refused for
    /// every leaf.
    static let purposesForbiddenToTLSServers: [ExtendedKeyUsage.Usage] = [.codeSigning, .emailProtection, .timeStamping, .ocspSigning]

    /// Only whether policyConstraints is critical is checked here. What it constrains is certificate policy
    /// processing's to enforce, so the extension is not declared handled by this rule.
    static let policyConstraints: ASN1ObjectIdentifier = [2, 5, 29, 36]

    /// A checklist of independent profile checks per certificate, in the profile's order.
    package func check(_ chain: UnverifiedCertificateChain, context: RuleContext, into failures: inout [TrustFailure]) {
        let last = chain.count - 1
        for (i, cert) in chain.enumerated() {
            func fail(_ code: TrustFailureCode, _ message: String) {
                failures.append(TrustFailure(code, certificate: i, "\(cert.label) \(message) (CA/B Forum profile)"))
            }
            let at = Position(isAnchor: i == last, isLeaf: i == 0 && chain.count > 1, isLone: chain.count == 1)
            let ext = cert.extensions
            let parsed = context.extensions(cert)
            Self.checkIdentifiers(cert, parsed, at, fail: fail)
            Self.checkPolicyQualifiers(cert, ext, at, fail: fail)
            Self.checkRootKeyIdentifiers(cert, parsed, at, fail: fail)
            Self.checkCriticality(cert, ext, parsed, fail: fail)
            checkKeysAndPurposes(cert, ext, parsed, at, fail: fail)
        }
    }

    /// Where a certificate stands in the path.
    private struct Position {
        var isAnchor: Bool
        var isLeaf: Bool
        /// The path is this one certificate, its own anchor.
        var isLone: Bool

        /// A trusted root is configuration, not issuance: its serial and policies are the root program's business.
        var isJudgedAsIssued: Bool { !isAnchor || isLone }
    }

    /// The serial number, and the key identifiers every certificate must carry.
    private static func checkIdentifiers(_ cert: Certificate, _ parsed: ParsedExtensions, _ at: Position,
                                         fail: (TrustFailureCode, String) -> Void) {
        if at.isJudgedAsIssued {
            let serial = Self.rawSerial(cert)
            if serial.allSatisfy({ $0 == 0 }) {
                fail(.malformedCertificate, "has serial number zero")
            } else if serial.count > 20 {
                fail(.malformedCertificate, "has a serial number longer than 20 octets")
            }
        }
        // Anchors too: rfc5280::aki::cross-signed-root-missing-aki refuses a cross-signed anchor without one.
        if !cert.isSelfIssued && parsed.authorityKeyIdentifier.value?.keyIdentifier == nil {
            fail(.malformedCertificate, "has no authorityKeyIdentifier keyIdentifier")
        }
        if !at.isLeaf && parsed.subjectKeyIdentifier.value == nil && parsed.isCA {
            fail(.malformedCertificate, "is a CA without a subjectKeyIdentifier")
        }
    }

    /// RFC 5280 §4.2.1.4: a critical certificatePolicies must be interpreted whole, qualifiers included, or the
    /// certificate refused; BoringSSL refuses a qualifier it does not know on the path below the anchor (it leaves the
    /// anchor out of policy processing), and so does this profile.
    private static func checkPolicyQualifiers(_ cert: Certificate, _ ext: Certificate.Extensions, _ at: Position,
                                              fail: (TrustFailureCode, String) -> Void) {
        if at.isJudgedAsIssued, let policies = ext[oid: PolicyExtensions.certificatePoliciesOID], policies.critical,
           let read = try? PolicyExtensions(cert),
           let unknown = read.qualifierIDs.first(where: { !PolicyExtensions.knownQualifiers.contains($0) }) {
            fail(.unhandledCriticalExtension, "has a critical certificatePolicies extension with a policy qualifier of an unknown type (\(unknown)); only the CPS pointer and the user notice can be interpreted")
        }
    }

    /// A self-issued anchor's authorityKeyIdentifier, when it has one, names its own key and nothing else.
    private static func checkRootKeyIdentifiers(_ cert: Certificate, _ parsed: ParsedExtensions, _ at: Position,
                                                fail: (TrustFailureCode, String) -> Void) {
        guard at.isAnchor && cert.isSelfIssued, let aki = parsed.authorityKeyIdentifier.value else { return }
        if aki.keyIdentifier == nil || aki.authorityCertIssuer != nil || aki.authorityCertSerialNumber != nil {
            fail(.malformedCertificate, "is a root whose authorityKeyIdentifier must hold exactly a keyIdentifier")
        } else if let ski = parsed.subjectKeyIdentifier.value, ski.keyIdentifier != aki.keyIdentifier {
            fail(.malformedCertificate, "is a root whose authorityKeyIdentifier differs from its subjectKeyIdentifier")
        }
    }

    /// The extensions the profile requires critical, or not critical.
    private static func checkCriticality(_ cert: Certificate, _ ext: Certificate.Extensions, _ parsed: ParsedExtensions,
                                         fail: (TrustFailureCode, String) -> Void) {
        if parsed.isCA, ext[oid: .X509ExtensionID.basicConstraints]?.critical == false {
            fail(.basicConstraints, "is a CA whose basicConstraints is not critical")
        }
        if ext[oid: .X509ExtensionID.nameConstraints]?.critical == false {
            fail(.nameConstraints, "has nameConstraints that are not critical")
        }
        if ext[oid: Self.policyConstraints]?.critical == false {
            fail(.malformedCertificate, "has policyConstraints that are not critical")
        }
        if let san = ext[oid: .X509ExtensionID.subjectAlternativeName], san.critical != cert.subject.isEmpty {
            fail(.malformedCertificate, cert.subject.isEmpty ? "has a non-critical subjectAltName, which a certificate with an empty subject must mark critical" : "marks subjectAltName critical although it has a subject")
        }
    }

    /// The key size, and the purposes each place in the path may list; the leaf's names.
    private func checkKeysAndPurposes(_ cert: Certificate, _ ext: Certificate.Extensions, _ parsed: ParsedExtensions, _ at: Position,
                                      fail: (TrustFailureCode, String) -> Void) {
        if at.isAnchor && cert.isSelfIssued && !at.isLone && ext[oid: .X509ExtensionID.extendedKeyUsage] != nil {
            fail(.extendedKeyUsage, "is a root carrying extendedKeyUsage")
        }
        if let bits = Self.rsaModulusBits(cert), bits % 8 != 0 {
            fail(.weakKey, "has an RSA key of \(bits) bits, not a multiple of 8")
        }
        if tlsServer && !at.isLeaf && !at.isAnchor, let eku = parsed.extendedKeyUsage.value, eku.contains(.any), !eku.contains(.serverAuth) {
            fail(.extendedKeyUsage, "lists anyExtendedKeyUsage without serverAuth; under the Baseline Requirements a CA's anyExtendedKeyUsage does not stand in for serverAuth")
        }
        guard at.isLeaf else { return }
        if parsed.isCA { fail(.basicConstraints, "is an end-entity certificate marked as a CA") }
        if let eku = parsed.extendedKeyUsage.value {
            if eku.contains(.any) { fail(.extendedKeyUsage, "lists anyExtendedKeyUsage, which server certificates may not") }
            for purpose in Self.purposesForbiddenToTLSServers where tlsServer && eku.contains(purpose) {
                fail(.extendedKeyUsage, "lists \(ExtendedKeyUsageRule.name(purpose)), which a TLS server certificate may not list")
            }
        }
        Self.checkNames(cert, sans: parsed.subjectAlternativeNames.value, fail: fail)
    }

    /// SAN dNSNames are preferred-syntax host names, and the CN, if any, repeats one SAN entry exactly.
    static func checkNames(_ cert: Certificate, sans: SubjectAlternativeNames?, fail: (TrustFailureCode, String) -> Void) {
        var texts: [String] = []
        for name in sans.map(Array.init) ?? [] {
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
        // CABF 7.1.4.3 asks for the CN to repeat a SAN exactly. Browsers and SecTrust ignore the CN, and
        // private PKIs routinely carry an unrelated CN, so only the forms that fool CN-reading clients are
        // refused: a CN that spells one of the SANs differently (case, IP notation), and a host name in
        // U-label form, which no dNSName (IA5String, A-labels) can ever repeat.
        for rdn in cert.subject {
            for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                let cn = String(attribute.value) ?? attribute.value.description
                guard !texts.contains(cn), let canonical = canonicalHost(cn) else { continue }
                if texts.contains(where: { canonicalHost($0) == canonical }) {
                    fail(.malformedCertificate, "has the common name '\(cn)', a non-canonical spelling of one of its subjectAltNames")
                } else if !cn.unicodeScalars.allSatisfy(\.isASCII) && cn.contains(".") {
                    fail(.malformedCertificate, "has the common name '\(cn)', an internationalized host name in U-label form; a CN may only repeat a subjectAltName, which is always in A-label form (\(canonical))")
                }
            }
        }
    }

    /// The lower-case A-label or RFC 5952 form of a host name or IP literal, accepting the loose spellings
    /// (hex or zero-padded IPv4, upper-case or uncompressed IPv6) that a CN might carry.
    static func canonicalHost(_ text: String) -> String? {
        if let bytes = looseIPv4(text) { return IPAddressText.format(bytes) }
        // A peer name never holds a wildcard, but a CN may repeat a wildcard SAN.
        if text.hasPrefix("*.") { return canonicalHost(String(text.dropFirst(2))).map { "*." + $0 } }
        return (try? PeerName(text))?.description
    }

    /// inet_aton spellings: `0xC0A80101`, `192.168.001.001`.
    static func looseIPv4(_ text: String) -> [UInt8]? {
        let lower = text.lowercased()
        if lower.hasPrefix("0x"), let value = UInt32(lower.dropFirst(2), radix: 16) {
            return [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
        }
        let parts = lower.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 4, let v = UInt8(part, radix: 10) else { return nil }
            out.append(v)
        }
        return out
    }

    /// The serial's content octets as encoded. swift-certificates keeps the value with its leading zero octets
    /// stripped, and refuses a negative serial when parsing; DER's minimal form restores exactly one zero octet,
    /// before a set top bit or for zero. This replaces a parse of the whole TBSCertificate per certificate.
    static func rawSerial(_ cert: Certificate) -> ArraySlice<UInt8> {
        let value = cert.serialNumber.bytes
        guard let first = value.first else { return [0] }
        return first & 0x80 != 0 ? [0] + value : value
    }

    static func rsaModulusBits(_ cert: Certificate) -> Int? {
        // Serialising an EC key converts its point; only RSA keys have a modulus to measure.
        guard _RSA.Signing.PublicKey(cert.publicKey) != nil else { return nil }
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(cert.publicKey)) != nil, let node = try? DER.parse(serializer.serializedBytes), let key = try? KeyAlgorithm(spki: node), case .rsa(let bits) = key
        else { return nil }
        return bits
    }
}
