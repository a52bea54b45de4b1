import Foundation
import TransportTrust

/// Files from the repository the targets hold fixed, read by path like the tests' fixtures.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func bytes(_ path: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) else {
            violated("fixture \(path) is missing from \(root.path)")
        }
        return Array(data)
    }

    static func certificates(_ path: String) -> [InputCertificate] {
        do { return try CertificateLoader.certificates(from: bytes(path), source: path) } catch {
            violated("fixture \(path) does not load: \(error)")
        }
    }

    /// The anchor of `Examples/chain.pem`.
    static let exampleAnchors = TrustAnchors(custom: certificates("Examples/root.pem"))
    /// The OCSP fixture: a leaf naming a responder, and its CA as the only anchor.
    static let ocspLeaf = certificates("Fuzz/Fixtures/ocsp/leaf.pem")
    static let ocspAnchors = TrustAnchors(custom: certificates("Fuzz/Fixtures/ocsp/ca.pem"))
    static let ocspLeafPEM = bytes("Fuzz/Fixtures/ocsp/leaf.pem")
    static let ocspLeafKeyPEM = bytes("Fuzz/Fixtures/ocsp/leaf.key")
    /// The CRL fixture: a leaf without distribution points (its issuer's CRL covers it), and its CA.
    static let crlLeaf = certificates("Fuzz/Fixtures/crl/leaf.pem")
    static let crlAnchors = TrustAnchors(custom: certificates("Fuzz/Fixtures/crl/ca.pem"))
}
