import Crypto
import Foundation
import NIOSSL
import TransportTrust
import X509

/// Why a client identity could not be loaded.
public struct ClientIdentityError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with the identity, naming the file, and how to fix it.
    public var message: String
    /// An error with `message`.
    package init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A client certificate chain and its private key, for mutual TLS.
///
/// Load one from a PKCS#12 bundle with its password, or from PEM files. Loading fails with a clear error, never
/// later during a handshake.
public struct ClientIdentity: Sendable {
    /// The client's certificate first, then the intermediates to send with it.
    public let certificateChain: [NIOSSLCertificate]
    /// The key of the first certificate.
    public let privateKey: NIOSSLPrivateKey
    /// A stable identity for caching TLS contexts and pooling connections, computed once: a request asks for it.
    let cacheKey: String

    /// An identity from a chain and its key; refused when the key is not the first certificate's.
    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) throws(ClientIdentityError) {
        try self.init(certificateChain: certificateChain, privateKey: privateKey,
                      certificateSource: "the client certificate", keySource: "the private key")
    }

    private init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey, certificateSource: String, keySource: String) throws(ClientIdentityError) {
        guard let first = certificateChain.first else { throw ClientIdentityError("\(certificateSource) holds no certificate; a client identity needs at least one") }
        // BoringSSL refuses a key that does not match the certificate only when a TLS context is made, which would
        // otherwise be at the first handshake; making one here moves the error to loading, with the files named.
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([])
        configuration.certificateChain = [.certificate(first)]
        configuration.privateKey = .privateKey(privateKey)
        do { _ = try NIOSSLContext(configuration: configuration) } catch {
            throw ClientIdentityError("\(keySource) is not the private key of the first certificate in \(certificateSource) (\(Self.subject(of: first))); give the key that was issued with that certificate")
        }
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        var hash = SHA256()
        for certificate in certificateChain { hash.update(data: (try? certificate.toDERBytes()) ?? []) }
        cacheKey = hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    private static func subject(of certificate: NIOSSLCertificate) -> String {
        guard let der = try? certificate.toDERBytes(), let parsed = try? Certificate(derEncoded: der) else { return "a certificate" }
        return NameDisplay.quoted(parsed.subject.description)
    }

    /// Loads a PKCS#12 (`.p12`/`.pfx`) bundle.
    /// - Throws: ``ClientIdentityError`` naming the file when it cannot be read, the password is wrong, or it holds no
    ///   key with a certificate of that key.
    public init(pkcs12 bytes: [UInt8], password: String, source: String = "the PKCS#12 bundle") throws(ClientIdentityError) {
        let unopenable = "cannot open \(source): the password is wrong or the file is not PKCS#12; check the password, or convert the file with `openssl pkcs12`"
        let export = "export the client certificate together with its own key, for example `openssl pkcs12 -export -in cert.pem -inkey key.pem`"
        switch PKCS12Screen.read(bytes, password: Array(password.utf8)) {
        case .unreadable:
            throw ClientIdentityError(unopenable)
        case .noKey:
            throw ClientIdentityError("\(source) holds no private key, so it cannot identify a client; \(export)")
        case .noCertificate:
            throw ClientIdentityError("\(source) holds a private key but no certificate, so it cannot identify a client; \(export)")
        case .keyMatchesNoCertificate(let certificates):
            let which = certificates == 1 ? "does not match its certificate" : "matches none of its \(certificates) certificates"
            throw ClientIdentityError("the private key in \(source) \(which); \(export)")
        case .keyAndMatchingCertificate:
            break
        }
        let bundle: NIOSSLPKCS12Bundle
        do { bundle = try NIOSSLPKCS12Bundle(buffer: bytes, passphrase: Array(password.utf8)) } catch {
            throw ClientIdentityError(unopenable)
        }
        try self.init(certificateChain: bundle.certificateChain, privateKey: bundle.privateKey, certificateSource: source, keySource: "the key in \(source)")
    }

    /// Loads a PKCS#12 file.
    public init(pkcs12File path: String, password: String) throws(ClientIdentityError) {
        try self.init(pkcs12: try Self.read(path), password: password, source: "'\(InputFile.source(path))'")
    }

    /// Loads a PEM certificate chain and a PEM private key. `certificateSource` and `keySource` name them in errors.
    public init(certificatePEM: [UInt8], keyPEM: [UInt8], keyPassword: String? = nil,
                certificateSource: String = "the client certificate", keySource: String = "the private key") throws(ClientIdentityError) {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMBytes(certificatePEM) } catch {
            throw ClientIdentityError("\(certificateSource) is not a PEM certificate chain; it must hold '-----BEGIN CERTIFICATE-----' blocks, the leaf (end-entity) certificate first")
        }
        let key: NIOSSLPrivateKey
        do {
            if let keyPassword {
                key = try NIOSSLPrivateKey(bytes: keyPEM, format: .pem) { callback in callback(Array(keyPassword.utf8)) }
            } else {
                key = try NIOSSLPrivateKey(bytes: keyPEM, format: .pem)
            }
        } catch {
            throw ClientIdentityError("\(keySource) is not a PEM private key, or its password is wrong; it must hold one '-----BEGIN PRIVATE KEY-----' (or EC / RSA PRIVATE KEY) block")
        }
        try self.init(certificateChain: chain, privateKey: key, certificateSource: certificateSource, keySource: keySource)
    }

    /// Loads PEM files.
    public init(certificateFile: String, keyFile: String, keyPassword: String? = nil) throws(ClientIdentityError) {
        try self.init(certificatePEM: try Self.read(certificateFile), keyPEM: try Self.read(keyFile), keyPassword: keyPassword,
                      certificateSource: "'\(InputFile.source(certificateFile))'", keySource: "'\(InputFile.source(keyFile))'")
    }

    private static func read(_ path: String) throws(ClientIdentityError) -> [UInt8] {
        do { return Array(try InputFile.read(path)) } catch {
            throw ClientIdentityError("cannot read '\(InputFile.source(path))': \(error.reason); check the path and its permissions")
        }
    }
}
