import Foundation
import TestSupport
import TransportTrust
import X509

/// A server PKI: root → intermediate → leaf for the given names.
public struct ServerPKI: Sendable {
    public let root: TestCert
    public let intermediate: TestCert
    public let leaf: TestCert

    public init(dns: [String] = ["www.example.test"], key: @autoclosure () -> TestKey = .p256(), leafNotAfter: Date = PKI.notAfter,
                leafNotBefore: Date = PKI.notBefore, leafKeyUsage: KeyUsage = KeyUsage(digitalSignature: true)) {
        root = PKI.root(key: key())
        intermediate = root.intermediate("Test Intermediate CA", key: key())
        leaf = intermediate.leaf(dns: dns, key: key(), keyUsage: leafKeyUsage, notValidBefore: leafNotBefore, notValidAfter: leafNotAfter)
    }

    public init(root: TestCert, intermediate: TestCert, leaf: TestCert) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
    }

    /// What a well-configured server presents.
    public var served: [TestCert] { [leaf, intermediate] }

    public var anchors: TrustAnchors { TrustAnchors(custom: [root.input]) }

    /// The base64 SPKI SHA-256 of a certificate.
    public static func pin(_ cert: TestCert) -> String { cert.input.spkiSHA256Base64 ?? "" }
}
