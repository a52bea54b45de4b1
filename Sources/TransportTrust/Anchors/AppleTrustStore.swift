import Crypto
import Foundation
import X509

/// Apple's root store as an iPhone on iOS 26 has it: trust store 2025072000, 156 roots, shipped with the package
/// (`Resources/AppleTrustStore`, whose `store.json` names the source and date), with the limits Apple puts on some
/// of them (`RootConstraints`).
///
/// Its roots count as public (system) roots, as on a device: Apple's lifetime limits for public roots apply to
/// chains that end in one.
public struct AppleTrustStore: Sendable {
    /// The trust store version, as in security_certificates' `TRUST_STORE_VERSION`: 2025072000. Zero when the
    /// resources cannot be read.
    public let version: Int
    /// The releases that ship this store, e.g. "iOS 26, iPadOS 26, macOS 26, …".
    public let platforms: String
    /// The date of the store's source release, and where it was taken from.
    public let date: String
    /// Where the store was taken from.
    public let source: String
    /// The roots, loaded like a system bundle; when the resources cannot be read, none, with the reason in
    /// ``SystemRoots/skipped``.
    public let roots: SystemRoots
    let constraints: RootConstraints

    /// Loaded from the package's resources on first use.
    public static let shared = AppleTrustStore.load(from: resourceDirectory)

    /// The folder of the store's files among the package's resources; nil when the resource bundle is not next to
    /// the executable (SwiftPM's `Bundle.module` would end the process there, so it is asked only once the bundle is
    /// known to be present).
    static var resourceDirectory: URL? { PackageResources.directory("AppleTrustStore") }

    struct Metadata: Decodable {
        struct Named: Decodable {
            let sha256: String
            let name: String
            let issuedFrom: String?
        }

        struct Roots: Decodable { let roots: [Named] }
        struct Certificates: Decodable { let certificates: [Named] }

        let storeVersion: Int
        let platform: String
        let date: String
        let source: String
        let rootCount: Int
        let tlsServerDisallowed: Roots
        let distrust: Roots
        let blocked: Certificates
    }

    /// Reads `roots.pem`, `blocked.pem` and `store.json` from `directory`. Fails closed: when any of them cannot be
    /// read, or the roots are not the number the metadata gives, the store has no root (a store without its
    /// constraints would trust roots Apple limits).
    static func load(from directory: URL?) -> AppleTrustStore {
        let place = directory?.path ?? "the package's AppleTrustStore resources"
        func refused(_ reason: String) -> AppleTrustStore {
            AppleTrustStore(version: 0, platforms: "", date: "", source: place,
                            roots: SystemRoots(certificates: [], skipped: ["\(place): \(reason)"], sources: [place], settings: []),
                            constraints: RootConstraints())
        }
        guard let directory else {
            return refused("not found; the executable was installed without its resource bundle swift-transport-security_TransportTrust.resources beside it")
        }
        let metadata: Metadata
        do {
            let data = try InputFile.read(directory.appendingPathComponent("store.json").path)
            metadata = try JSONDecoder().decode(Metadata.self, from: data)
        } catch {
            return refused("store.json cannot be read (\(error)); reinstall the package")
        }
        let rootsPath = directory.appendingPathComponent("roots.pem").path
        let loaded = SystemRoots.load(files: [rootsPath], directories: [])
        guard loaded.certificates.count == metadata.rootCount, loaded.skipped.isEmpty else {
            return refused("roots.pem holds \(loaded.certificates.count) usable roots, not the \(metadata.rootCount) of store \(metadata.storeVersion)"
                           + (loaded.skipped.first.map { " (\($0))" } ?? ""))
        }
        let (blocked, _) = SystemRoots.readLeniently(path: directory.appendingPathComponent("blocked.pem").path)
        guard let constraints = RootConstraints(metadata: metadata, roots: loaded.certificates, blocked: blocked) else {
            return refused("store.json names a root or blocked certificate that roots.pem or blocked.pem does not hold")
        }
        let roots = SystemRoots(certificates: loaded.certificates, skipped: [], sources: ["Apple trust store \(metadata.storeVersion)"], settings: [])
        return AppleTrustStore(version: metadata.storeVersion, platforms: metadata.platform, date: metadata.date, source: metadata.source,
                               roots: roots, constraints: constraints)
    }
}

extension SystemRoots {
    /// The roots of Apple's trust store (``AppleTrustStore/shared``).
    public static var apple: SystemRoots { AppleTrustStore.shared.roots }
}

extension TrustAnchors {
    /// Apple's roots alone, with Apple's limits on them, as an iPhone on iOS 26 trusts.
    public static let apple = TrustAnchors(custom: [], anchorsOnly: false, store: .apple)
}

/// What Apple's store says about some of its roots beyond trusting them. Empty for the system store.
struct RootConstraints: Sendable {
    struct Named: Sendable {
        let name: String
        let sha256: String
    }

    /// Roots that may anchor Apple's own policies only, not a TLS server (constraints.json).
    private(set) var tlsServerDisallowed: [CertificateKey: Named] = [:]
    /// Certificates refused wherever they appear in a path.
    private(set) var blocked: [CertificateKey: Named] = [:]
    /// Their keys: trustd looks blocked keys up for every certificate of the path but the anchor
    /// (`SecPVCBlackListedKeyChecks`), so a reissued or cross-signed certificate with a blocked key is refused too.
    private(set) var blockedKeys: [(key: Certificate.PublicKey, named: Named)] = []
    /// CAs whose leaves issued from a date on are refused: matched by subject and key, so that a cross-signed copy of
    /// the root counts as the root.
    private(set) var distrusted: [DistinguishedName: [(key: Certificate.PublicKey, name: String, from: Date)]] = [:]
    /// The store's version, for messages.
    private(set) var storeVersion = 0

    var isEmpty: Bool { tlsServerDisallowed.isEmpty && blocked.isEmpty && distrusted.isEmpty }

    init() {}

    /// Constraints on given certificates, for tests that cannot sign under Apple's roots.
    init(storeVersion: Int, tlsServerDisallowed: [Certificate] = [], blocked: [Certificate] = [], distrusted: [(Certificate, Date)] = []) {
        self.storeVersion = storeVersion
        for cert in tlsServerDisallowed { self.tlsServerDisallowed[CertificateKey(cert)] = Named(name: cert.subject.label, sha256: "") }
        for cert in blocked {
            self.blocked[CertificateKey(cert)] = Named(name: cert.subject.label, sha256: "")
            blockedKeys.append((cert.publicKey, Named(name: cert.subject.label, sha256: "")))
        }
        for (cert, from) in distrusted { self.distrusted[cert.subject, default: []].append((cert.publicKey, cert.subject.label, from)) }
    }

    /// nil when the metadata names a certificate the PEM files do not hold, or a date that does not parse.
    init?(metadata: AppleTrustStore.Metadata, roots: [InputCertificate], blocked blockedCertificates: [InputCertificate]) {
        storeVersion = metadata.storeVersion
        func bySHA256(_ certificates: [InputCertificate]) -> [String: InputCertificate] {
            Dictionary(certificates.map { (Self.hex(SHA256.hash(data: $0.der)), $0) }, uniquingKeysWith: { first, _ in first })
        }
        let rootsBySHA256 = bySHA256(roots), blockedBySHA256 = bySHA256(blockedCertificates)
        for entry in metadata.tlsServerDisallowed.roots {
            guard let cert = rootsBySHA256[entry.sha256.lowercased()]?.certificate else { return nil }
            tlsServerDisallowed[CertificateKey(cert)] = Named(name: entry.name, sha256: entry.sha256)
        }
        for entry in metadata.distrust.roots {
            guard let cert = rootsBySHA256[entry.sha256.lowercased()]?.certificate, let text = entry.issuedFrom, let from = RFC3339.parse(text)
            else { return nil }
            distrusted[cert.subject, default: []].append((cert.publicKey, entry.name, from))
        }
        for entry in metadata.blocked.certificates {
            guard let input = blockedBySHA256[entry.sha256.lowercased()] else { return nil }
            // Those swift-certificates cannot parse (RSA-1024 CAs) can never be part of a path here.
            if let cert = input.certificate {
                blocked[CertificateKey(cert)] = Named(name: entry.name, sha256: entry.sha256)
                blockedKeys.append((cert.publicKey, Named(name: entry.name, sha256: entry.sha256)))
            }
        }
    }

    /// The blocked certificate whose key `certificate` carries, if any.
    func blockedKey(of certificate: Certificate) -> Named? {
        blockedKeys.first { $0.key == certificate.publicKey }?.named
    }

    /// The distrust that applies to `certificate` as a CA, if any.
    func distrust(of certificate: Certificate) -> (name: String, from: Date)? {
        guard let entries = distrusted[certificate.subject] else { return nil }
        return entries.first { $0.key == certificate.publicKey }.map { ($0.name, $0.from) }
    }

    static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
