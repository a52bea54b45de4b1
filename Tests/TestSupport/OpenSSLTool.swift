import Foundation
import TransportTrust
import X509

/// Certificates swift-certificates cannot make (RSA-1024 keys, RSA-PSS), made by the `openssl` tool in a
/// temporary directory.
public struct OpenSSLTool {
    public typealias Failure = OpenSSLCommand.Failure

    public let dir: TemporaryDirectory

    public init() throws { dir = try TemporaryDirectory() }

    public static var isAvailable: Bool { OpenSSLCommand.isAvailable }

    @discardableResult
    public func run(_ arguments: [String]) throws -> String { try OpenSSLCommand.run(arguments, in: dir.url) }

    /// Writes a swift-certificates CA (certificate and key) where openssl can use it, and returns its base name.
    public func export(_ ca: TestCert, as name: String) throws -> String {
        try dir.write("\(name).pem", ca.pem)
        try dir.write("\(name).key", ca.key.certificateKey.serializeAsPEM().pemString)
        return name
    }

    /// Makes a new key with `genpkey` arguments, such as `["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"]`.
    public func newKey(_ name: String, _ genpkey: [String]) throws {
        try run(["genpkey"] + genpkey + ["-out", "\(name).key"])
    }

    /// Issues `name` (key `name.key`, which must exist) from the CA `issuer` (files `issuer.pem`, `issuer.key`).
    /// - Parameters:
    ///   - extensions: lines of an openssl extension section.
    ///   - signing: `x509` options for the signature, e.g. `["-sha1"]` or PSS `-sigopt`s.
    public func issue(_ name: String, cn: String, issuer: String, extensions: [String], signing: [String] = ["-sha256"]) throws -> InputCertificate {
        try run(["req", "-new", "-key", "\(name).key", "-subj", "/O=Transport Trust Tests/CN=\(cn)", "-out", "\(name).csr"])
        try dir.write("\(name).ext", extensions.joined(separator: "\n") + "\n")
        // A positive serial of 16 octets.
        let serial = "0x1" + (0..<15).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined() + "f"
        try run(["x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key", "-set_serial", serial,
                 "-days", "60", "-extfile", "\(name).ext", "-out", "\(name).pem"] + signing)
        return try load(name)
    }

    public func load(_ name: String) throws -> InputCertificate {
        let certs = try CertificateLoader.certificates(atPath: dir.file("\(name).pem"))
        guard let first = certs.first else { throw Failure(description: "\(name).pem holds no certificate") }
        return first
    }

    /// A root, an intermediate with an RSA-1024 key (which swift-certificates cannot parse) under it, and a P-256 leaf
    /// for www.example.com under that.
    public static func chainWithRSA1024Intermediate() throws -> (root: TestCert, intermediate: InputCertificate, leaf: InputCertificate) {
        let root = PKI.root()
        let tool = try OpenSSLTool()
        let rootName = try tool.export(root, as: "root")
        try tool.newKey("weakca", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        let weakCA = try tool.issue("weakca", cn: "Weak RSA CA", issuer: rootName, extensions: caExtensions)
        try tool.newKey("leaf", p256Key)
        return (root, weakCA, try tool.issue("leaf", cn: "www.example.com", issuer: "weakca", extensions: leafExtensions))
    }

    /// An RSA-1024 leaf for www.example.com (CN `cn`) issued by `issuer`.
    public static func rsa1024Leaf(cn: String, issuer: TestCert) throws -> InputCertificate {
        let tool = try OpenSSLTool()
        let ca = try tool.export(issuer, as: "ca")
        try tool.newKey("leaf", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        return try tool.issue("leaf", cn: cn, issuer: ca, extensions: leafExtensions)
    }

    /// `genpkey` arguments for the usual EC key, P-256.
    public static let p256Key = ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]

    public static let leafExtensions = [
        "basicConstraints=critical,CA:FALSE",
        "keyUsage=critical,digitalSignature,keyEncipherment",
        "extendedKeyUsage=serverAuth",
        "subjectAltName=DNS:www.example.com",
    ]

    public static let caExtensions = [
        "basicConstraints=critical,CA:TRUE",
        "keyUsage=critical,keyCertSign,cRLSign",
    ]
}
