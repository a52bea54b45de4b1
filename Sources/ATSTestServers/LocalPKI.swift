import Crypto
import TransportTrust
import Foundation
import NIOConcurrencyHelpers
import SwiftASN1
import X509
import _CryptoExtras

/// Why the local servers could not be set up.
public struct TestServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    /// An error that says what went wrong, in words.
    public init(_ description: String) { self.description = description }
}

/// A private key of the local PKI.
///
/// `@unchecked`: swift-crypto 3.12 does not mark its keys `Sendable`, though they are immutable once made.
public enum LocalKey: @unchecked Sendable {
    /// An ECDSA P-256 key, what most of the cases use.
    case p256(P256.Signing.PrivateKey)
    /// An RSA key, for the cases that need one (static RSA key exchange, RSA-1024, SHA-1).
    case rsa(_RSA.Signing.PrivateKey)

    var certificateKey: Certificate.PrivateKey {
        switch self {
        case .p256(let k): return Certificate.PrivateKey(k)
        case .rsa(let k): return Certificate.PrivateKey(k)
        }
    }

    var signatureAlgorithm: Certificate.SignatureAlgorithm {
        switch self {
        case .p256: return .ecdsaWithSHA256
        case .rsa: return .sha256WithRSAEncryption
        }
    }

    /// PKCS#8 / SEC1 PEM, as servers load it.
    public var pem: String {
        switch self {
        case .p256(let k): return k.pemRepresentation
        case .rsa(let k): return k.pemRepresentation
        }
    }

    static func rsa(bits: Int) throws -> LocalKey {
        do {
            // 1024 bits is the point of the weak-key case; swift-crypto makes it only through the unsafe initializer.
            return .rsa(bits < 2048 ? try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: bits))
                                    : try _RSA.Signing.PrivateKey(keySize: .init(bitCount: bits)))
        } catch {
            throw TestServerError("cannot make an RSA-\(bits) key: \(error)")
        }
    }
}

/// One certificate of the local PKI and its key.
public struct LocalCertificate: Sendable {
    /// The certificate, parsed.
    public let certificate: Certificate
    /// Its private key.
    public let key: LocalKey
    /// The certificate as DER, exactly as a server sends it.
    public let der: [UInt8]

    init(certificate: Certificate, key: LocalKey) throws {
        self.certificate = certificate
        self.key = key
        var serializer = DER.Serializer()
        do { try serializer.serialize(certificate) } catch { throw TestServerError("cannot encode a certificate: \(error)") }
        self.der = serializer.serializedBytes
    }

    /// PEM with a trailing newline, so that certificates concatenate into a bundle.
    public var pem: String {
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }
}

/// Issues the certificates of the local servers: a root CA that clients are told to trust, its intermediates,
/// and an unrelated root that nobody trusts. Everything is generated at start; nothing is stored.
public struct LocalPKI: Sendable {
    /// The local root CA, the anchor a client is given.
    public let root: LocalCertificate
    /// The P-256 intermediate CA under the root, which issues the leaves.
    public let intermediate: LocalCertificate
    /// An RSA intermediate: SHA-1 certificate signatures need an RSA signer.
    public let rsaIntermediate: LocalCertificate
    /// A root that is not in the CA file.
    public let untrustedRoot: LocalCertificate
    /// An intermediate under the untrusted root, for the untrusted-root case.
    public let untrustedIntermediate: LocalCertificate
    /// RSA-2048 key for servers that need an RSA certificate (static RSA key exchange).
    public let rsaKey: LocalKey
    /// The instant the certificates are built around: valid from 30 days before to a year after.
    public let now: Date
    /// The CT logs of the CT cases, in the log list ``LocalServers`` writes.
    public let ctLogs: [LocalCTLog]

    static let organization = "ats serve local CA"

    /// Makes the roots, intermediates and keys, valid around `now`; the RSA keys take a moment.
    public init(now: Date = Date()) throws {
        self.now = now
        // The two RSA keys are the slow part (seconds in a debug build); make them side by side.
        let keys = try Self.rsaKeys(count: 2)
        rsaKey = keys[0]
        root = try Self.issue(cn: "ats serve Local Root CA", key: .p256(P256.Signing.PrivateKey()), issuer: nil, now: now, ca: true)
        intermediate = try Self.issue(cn: "ats serve Local Intermediate CA", key: .p256(P256.Signing.PrivateKey()), issuer: root, now: now, ca: true)
        rsaIntermediate = try Self.issue(cn: "ats serve Local RSA Intermediate CA", key: keys[1], issuer: root, now: now, ca: true)
        untrustedRoot = try Self.issue(cn: "Untrusted Root CA", key: .p256(P256.Signing.PrivateKey()), issuer: nil, now: now, ca: true)
        untrustedIntermediate = try Self.issue(cn: "Untrusted Intermediate CA", key: .p256(P256.Signing.PrivateKey()), issuer: untrustedRoot, now: now, ca: true)
        ctLogs = (1...3).map { LocalCTLog(name: "ats serve Test Log \($0)") }
    }

    private static func rsaKeys(count: Int) throws -> [LocalKey] {
        let results = NIOLockedValueBox<[Result<LocalKey, TestServerError>]>([])
        DispatchQueue.concurrentPerform(iterations: count) { _ in
            let made: Result<LocalKey, TestServerError>
            do { made = .success(try LocalKey.rsa(bits: 2048)) } catch let error as TestServerError { made = .failure(error) } catch {
                made = .failure(TestServerError("\(error)"))
            }
            results.withLockedValue { $0.append(made) }
        }
        return try results.withLockedValue { $0 }.map { try $0.get() }
    }

    /// Issues a TLS server certificate for `ips` and `dns`.
    public func leaf(cn: String = "127.0.0.1", ips: [[UInt8]] = [[127, 0, 0, 1]], dns: [String] = [], key: LocalKey? = nil,
                     issuer: LocalCertificate? = nil, notValidBefore: Date? = nil, notValidAfter: Date? = nil,
                     signatureAlgorithm: Certificate.SignatureAlgorithm? = nil) throws -> LocalCertificate {
        let names = dns.map { GeneralName.dnsName($0) } + ips.map { GeneralName.ipAddress(ASN1OctetString(contentBytes: $0[...])) }
        return try Self.issue(cn: cn, key: key ?? .p256(P256.Signing.PrivateKey()), issuer: issuer ?? intermediate, now: now, ca: false,
                              sans: names, notValidBefore: notValidBefore, notValidAfter: notValidAfter, signatureAlgorithm: signatureAlgorithm)
    }

    static func serial() -> Certificate.SerialNumber {
        Certificate.SerialNumber(bytes: [UInt8.random(in: 0x01...0x7f)] + (0..<15).map { _ in UInt8.random(in: 0...255) })
    }

    /// A TLS server certificate for 127.0.0.1 carrying SCTs from the first `scts` of ``ctLogs``, as a CA issues it after
    /// logging its precertificate: the SCTs sign the certificate's TBS without the SCT list, under the intermediate.
    public func leafWithSCTs(_ scts: Int, lifetimeDays: Int) throws -> LocalCertificate {
        let key = LocalKey.p256(P256.Signing.PrivateKey())
        let serial = Self.serial()
        let from = now.addingTimeInterval(-86400)
        // Inclusive days, as Apple counts them: one second short of the whole days.
        let until = from.addingTimeInterval(Double(lifetimeDays) * 86400 - 1)
        let sans: [GeneralName] = [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))]
        let precert = try Self.issue(cn: "127.0.0.1", key: key, issuer: intermediate, now: now, ca: false, sans: sans,
                                     notValidBefore: from, notValidAfter: until, serial: serial)
        let tbs = Array(precert.certificate.tbsCertificateBytes)
        let signed = try ctLogs.prefix(scts).map { try $0.sct(tbs: tbs, issuer: intermediate, at: from.addingTimeInterval(60)) }
        let list: Certificate.Extension
        do { list = try SCTEncoding.listExtension(signed) } catch { throw TestServerError("cannot encode the SCT list: \(error)") }
        return try Self.issue(cn: "127.0.0.1", key: key, issuer: intermediate, now: now, ca: false, sans: sans,
                              notValidBefore: from, notValidAfter: until, serial: serial, extra: [list])
    }

    /// A self-signed server certificate (its own issuer, not a CA).
    public func selfSigned() throws -> LocalCertificate {
        try Self.issue(cn: "127.0.0.1", key: .p256(P256.Signing.PrivateKey()), issuer: nil, now: now, ca: false,
                       sans: [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
    }

    /// A client certificate issued by the local intermediate, for the mutual-TLS case.
    public func client(cn: String = "ats serve client") throws -> LocalCertificate {
        try Self.issue(cn: cn, key: .p256(P256.Signing.PrivateKey()), issuer: intermediate, now: now, ca: false, usage: .clientAuth)
    }

    /// A CA chain `depth` intermediates long under the untrusted root, for a hostile huge chain.
    public func longChain(depth: Int) throws -> [LocalCertificate] {
        var chain: [LocalCertificate] = []
        var issuer = untrustedRoot
        for i in 0..<depth {
            let next = try Self.issue(cn: "Chain Link \(i)", key: .p256(P256.Signing.PrivateKey()), issuer: issuer, now: now, ca: true)
            chain.append(next)
            issuer = next
        }
        let leaf = try leaf(issuer: issuer)
        return [leaf] + chain.reversed()
    }

    static func issue(cn: String, key: LocalKey, issuer: LocalCertificate?, now: Date, ca: Bool, sans: [GeneralName] = [],
                      usage: ExtendedKeyUsage.Usage = .serverAuth, notValidBefore: Date? = nil, notValidAfter: Date? = nil,
                      signatureAlgorithm: Certificate.SignatureAlgorithm? = nil, serial: Certificate.SerialNumber? = nil,
                      extra: [Certificate.Extension] = []) throws -> LocalCertificate {
        do {
            let subject = try DistinguishedName {
                OrganizationName(organization)
                CommonName(cn)
            }
            let publicKey = key.certificateKey.publicKey
            let signer = issuer?.key ?? key
            var extensions: [Certificate.Extension] = []
            if ca {
                extensions.append(try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true))
                extensions.append(try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true))
            } else {
                extensions.append(try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true))
                // RSA static key exchange encrypts to the certificate key: it needs keyEncipherment.
                let rsa: Bool
                if case .rsa = key { rsa = true } else { rsa = false }
                extensions.append(try Certificate.Extension(KeyUsage(digitalSignature: true, keyEncipherment: rsa), critical: true))
                extensions.append(try Certificate.Extension(try ExtendedKeyUsage([usage]), critical: false))
                if !sans.isEmpty { extensions.append(try Certificate.Extension(SubjectAlternativeNames(sans), critical: false)) }
            }
            extensions += extra
            let ski = SubjectKeyIdentifier(hash: publicKey)
            extensions.append(try Certificate.Extension(ski, critical: false))
            let authority = issuer.map { SubjectKeyIdentifier(hash: $0.key.certificateKey.publicKey) } ?? ski
            extensions.append(try Certificate.Extension(AuthorityKeyIdentifier(keyIdentifier: authority.keyIdentifier), critical: false))
            // 16 random octets, first below 0x80: positive and at most 20 octets once encoded.
            let serial = serial ?? Self.serial()
            let certificate = try Certificate(
                version: .v3, serialNumber: serial, publicKey: publicKey,
                notValidBefore: notValidBefore ?? now.addingTimeInterval(-30 * 86400),
                notValidAfter: notValidAfter ?? now.addingTimeInterval(365 * 86400),
                issuer: issuer?.certificate.subject ?? subject, subject: subject,
                signatureAlgorithm: signatureAlgorithm ?? signer.signatureAlgorithm,
                extensions: try Certificate.Extensions(extensions), issuerPrivateKey: signer.certificateKey)
            return try LocalCertificate(certificate: certificate, key: key)
        } catch let error as TestServerError {
            throw error
        } catch {
            throw TestServerError("cannot issue the certificate '\(cn)': \(error)")
        }
    }
}

