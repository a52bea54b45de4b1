import Crypto
import Foundation
import NIOSSL

/// Why a client identity could not be loaded.
public struct ClientIdentityError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A client certificate chain and its private key, for mutual TLS.
///
/// Load one from a PKCS#12 bundle with its password, or from PEM files. Loading fails with a clear error, never
/// later during a handshake.
public struct ClientIdentity: @unchecked Sendable {
    // NIOSSLCertificate and NIOSSLPrivateKey are immutable once made; swift-nio-ssl does not mark the key
    // Sendable, hence the unchecked conformance.
    public let certificateChain: [NIOSSLCertificate]
    public let privateKey: NIOSSLPrivateKey

    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) throws(ClientIdentityError) {
        guard !certificateChain.isEmpty else { throw ClientIdentityError("a client identity needs at least one certificate") }
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// Loads a PKCS#12 (`.p12`/`.pfx`) bundle.
    /// - Throws: ``ClientIdentityError`` naming the file when it cannot be read or the password is wrong.
    public init(pkcs12 bytes: [UInt8], password: String, source: String = "the PKCS#12 bundle") throws(ClientIdentityError) {
        let bundle: NIOSSLPKCS12Bundle
        do { bundle = try NIOSSLPKCS12Bundle(buffer: bytes, passphrase: Array(password.utf8)) } catch {
            throw ClientIdentityError("cannot open \(source): the password is wrong or the file is not PKCS#12 (\(error)); check the password, or convert the file with `openssl pkcs12`")
        }
        try self.init(certificateChain: bundle.certificateChain, privateKey: bundle.privateKey)
    }

    /// Loads a PKCS#12 file.
    public init(pkcs12File path: String, password: String) throws(ClientIdentityError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ClientIdentityError("cannot read '\(path)'; check the path and its permissions")
        }
        try self.init(pkcs12: Array(data), password: password, source: "'\(path)'")
    }

    /// Loads a PEM certificate chain and a PEM private key.
    public init(certificatePEM: [UInt8], keyPEM: [UInt8], keyPassword: String? = nil) throws(ClientIdentityError) {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMBytes(certificatePEM) } catch {
            throw ClientIdentityError("the client certificate is not valid PEM (\(error))")
        }
        let key: NIOSSLPrivateKey
        do {
            if let keyPassword {
                key = try NIOSSLPrivateKey(bytes: keyPEM, format: .pem) { callback in callback(Array(keyPassword.utf8)) }
            } else {
                key = try NIOSSLPrivateKey(bytes: keyPEM, format: .pem)
            }
        } catch {
            throw ClientIdentityError("the client private key is not a valid PEM key, or its password is wrong (\(error))")
        }
        try self.init(certificateChain: chain, privateKey: key)
    }

    /// Loads PEM files.
    public init(certificateFile: String, keyFile: String, keyPassword: String? = nil) throws(ClientIdentityError) {
        guard let cert = FileManager.default.contents(atPath: certificateFile) else {
            throw ClientIdentityError("cannot read '\(certificateFile)'; check the path and its permissions")
        }
        guard let key = FileManager.default.contents(atPath: keyFile) else {
            throw ClientIdentityError("cannot read '\(keyFile)'; check the path and its permissions")
        }
        try self.init(certificatePEM: Array(cert), keyPEM: Array(key), keyPassword: keyPassword)
    }

    /// A stable identity for caching TLS contexts.
    var cacheKey: String {
        var hash = SHA256()
        for certificate in certificateChain { hash.update(data: (try? certificate.toDERBytes()) ?? []) }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
