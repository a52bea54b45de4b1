import Crypto
import Foundation
import SwiftASN1
import TransportTrust
import X509
import _CryptoExtras

/// A Certificate Transparency log the tests run: its own key, SCTs it signs, and its entry in a log list the tests write.
///
/// The SCT encoding here is written from RFC 6962 §3.2 independently of the package's reader, so that a mistake in
/// one is caught by the other.
public struct TestCTLog: @unchecked Sendable {
    public enum Key {
        case p256(P256.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    public let key: Key
    public let name: String
    public let operatorName: String
    public var state: String
    public var stateSince: Date
    public var interval: Range<Date>?

    public init(name: String, operatorName: String? = nil, key: Key = .p256(P256.Signing.PrivateKey()), state: String = "usable",
                stateSince: Date = Date(timeIntervalSince1970: 1_600_000_000), interval: Range<Date>? = nil) {
        self.key = key
        self.name = name
        self.operatorName = operatorName ?? "Operator of \(name)"
        self.state = state
        self.stateSince = stateSince
        self.interval = interval
    }

    public var spki: [UInt8] {
        switch key {
        case .p256(let k): return Array(k.publicKey.derRepresentation)
        case .rsa(let k): return Array(k.publicKey.derRepresentation)
        }
    }

    public var logID: [UInt8] { Array(SHA256.hash(data: spki)) }

    /// A serialized v1 SCT over the precertificate entry of `tbs` (a TBSCertificate without the SCT extension).
    /// `hash` is the TLS HashAlgorithm: 2 SHA-1, 4 SHA-256 (RFC 6962's only one), 5 SHA-384.
    public func sct(timestamp: Date, issuer: TestCert, tbs: [UInt8], corruptSignature: Bool = false, version: UInt8 = 0,
                    hash: UInt8 = 4) -> [UInt8] {
        let ms = UInt64(timestamp.timeIntervalSince1970 * 1000)
        let issuerKeyHash = Array(SHA256.hash(data: (try! RawCertificate(der: issuer.der)).subjectPublicKeyInfo))
        var signed: [UInt8] = [0, 0]
        signed += Self.be(ms, 8) + [0, 1] + issuerKeyHash + Self.be(UInt64(tbs.count), 3) + tbs + [0, 0]
        var signature: [UInt8]
        var algorithm: UInt8
        func sign<D: Digest>(_ digest: D) -> ([UInt8], UInt8) {
            switch key {
            case .p256(let k): return (Array(try! k.signature(for: digest).derRepresentation), 3)
            case .rsa(let k): return (Array(try! k.signature(for: digest, padding: .insecurePKCS1v1_5).rawRepresentation), 1)
            }
        }
        switch hash {
        case 2: (signature, algorithm) = sign(Insecure.SHA1.hash(data: signed))
        case 5: (signature, algorithm) = sign(SHA384.hash(data: signed))
        default: (signature, algorithm) = sign(SHA256.hash(data: signed))
        }
        if corruptSignature { signature[signature.count / 2] ^= 0x01 }
        return [version] + logID + Self.be(ms, 8) + [0, 0] + [hash, algorithm] + Self.be(UInt64(signature.count), 2) + signature
    }

    /// This log's entry in Apple's schema v5.
    public var listEntry: [String: Any] {
        var state: [String: Any] = ["timestamp": RFC3339.format(stateSince)]
        if self.state == "readonly" { state["final_tree_head"] = ["sha256_root_hash": Data(count: 32).base64EncodedString(), "tree_size": 1] }
        var entry: [String: Any] = [
            "description": name, "key": Data(spki).base64EncodedString(), "log_id": Data(logID).base64EncodedString(),
            "mmd": 86400, "url": "https://ct.invalid/\(name)/", "state": [self.state: state],
        ]
        if let interval {
            entry["temporal_interval"] = ["start_inclusive": RFC3339.format(interval.lowerBound), "end_exclusive": RFC3339.format(interval.upperBound)]
        }
        return entry
    }

    /// A log list in Apple's schema v5 holding `logs`, each under its own operator unless they share a name.
    public static func logList(_ logs: [TestCTLog], version: String = "1") -> [UInt8] {
        var operators: [String: [[String: Any]]] = [:]
        for log in logs { operators[log.operatorName, default: []].append(log.listEntry) }
        let doc: [String: Any] = [
            "version": version, "assetVersion": 1,
            "operators": operators.sorted { $0.key < $1.key }.map { ["name": $0.key, "email": [], "logs": $0.value, "tiled_logs": []] },
        ]
        return Array(try! JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]))
    }

    /// The SCT list extension (RFC 6962 §3.3) around serialized SCTs; `rawList` replaces the TLS list bytes.
    public static func sctListExtension(_ scts: [[UInt8]], rawList: [UInt8]? = nil) -> Certificate.Extension {
        var list: [UInt8] = []
        for s in scts { list += be(UInt64(s.count), 2) + s }
        let tls = rawList ?? (be(UInt64(list.count), 2) + list)
        var serializer = DER.Serializer()
        try! serializer.serialize(ASN1OctetString(contentBytes: tls[...]))
        return Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 11129, 2, 4, 2], critical: false, value: serializer.serializedBytes[...])
    }

    static func be(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).reversed().map { UInt8(truncatingIfNeeded: v >> (UInt64($0) * 8)) } }
}

extension TestCert {
    /// A TLS leaf carrying SCTs from `logs` (one each, at `sctTime`), as a CA issues it after logging its precertificate.
    /// `rawList` replaces the SCT list's TLS bytes, for hostile lists; `extraSCTs` are raw entries added after the SCTs.
    public func leafWithSCTs(
        _ logs: [TestCTLog], sctTime: Date? = nil, corrupt: Set<Int> = [], dns: [String] = ["www.example.com"],
        notValidBefore: Date = PKI.notBefore, notValidAfter: Date = PKI.notBefore.addingTimeInterval(90 * 86400 - 1),
        key: TestKey = .p256(), rawList: [UInt8]? = nil, extraSCTs: [[UInt8]] = [], hash: UInt8 = 4
    ) -> TestCert {
        let serial = PKI.serial()
        let precert = leaf(dns: dns, key: key, notValidBefore: notValidBefore, notValidAfter: notValidAfter, serial: serial)
        let tbs = Array(precert.certificate.tbsCertificateBytes)
        let time = sctTime ?? notValidBefore.addingTimeInterval(60)
        let scts = logs.enumerated().map { i, log in log.sct(timestamp: time, issuer: self, tbs: tbs, corruptSignature: corrupt.contains(i), hash: hash) }
        let ext = TestCTLog.sctListExtension(scts + extraSCTs, rawList: rawList)
        return leaf(dns: dns, key: key, notValidBefore: notValidBefore, notValidAfter: notValidAfter, serial: serial, extra: [ext])
    }
}

/// A public PKI of the tests' own: a root that comes in as a system root (as through `SSL_CERT_FILE`), an issuing CA,
/// and test CT logs in a log list the test writes.
public struct CTTestPKI: @unchecked Sendable {
    public let root: TestCert
    public let ca: TestCert
    /// The root as a system root, as if it came through `SSL_CERT_FILE`.
    public let publicAnchors: TrustAnchors
    /// The root as an anchor the caller supplied.
    public let userAnchors: TrustAnchors
    public let directory: TemporaryDirectory
    /// The root's PEM file, for `SSL_CERT_FILE`.
    public let rootFile: String

    /// The root and the CA are valid from 2015 to 2035, so that leaves of any date in the tests chain to them.
    public init(rootKey: TestKey = .p256()) throws {
        let (from, until) = (Date(timeIntervalSince1970: 1_420_070_400), Date(timeIntervalSince1970: 2_051_222_400))
        root = PKI.root("CT Test Root", key: rootKey, notValidBefore: from, notValidAfter: until)
        ca = root.intermediate("CT Test CA", notValidBefore: from, notValidAfter: until)
        directory = try TemporaryDirectory()
        rootFile = try directory.write("roots.pem", root.pem)
        publicAnchors = TrustAnchors(custom: [], anchorsOnly: false, systemRoots: SystemRoots.load(files: [rootFile], directories: []))
        userAnchors = TrustAnchors(custom: [root.input])
    }

    public func list(_ logs: [TestCTLog]) throws -> CTLogList {
        try CTLogList(json: TestCTLog.logList(logs), source: .supplied("test list"))
    }

    public func evaluate(_ leaf: TestCert, logs: [TestCTLog], mode: CertificateTransparencyOptions.Mode = .enforce, at time: Date = PKI.now,
                  public isPublic: Bool = true, platform: ApplePlatform = .newest, requiredByConfiguration: Bool = false,
                  engine: TrustEngine = TrustEngine(cacheCapacity: 0)) async throws -> TrustVerdict {
        var policy = PKI.ssl("www.example.com")
        policy.platform = platform
        policy.certificateTransparency = CertificateTransparencyOptions(mode: mode, logList: try list(logs),
                                                                        requiredByConfiguration: requiredByConfiguration)
        let trust = ServerTrust(certificates: [leaf.der, ca.der], anchors: isPublic ? publicAnchors : userAnchors, policy: policy,
                                validationTime: time)
        return await engine.evaluate(trust)
    }
}

