import ATSTestServers
import Foundation
import NIOCore
import NIOSSL
import SwiftASN1
import TestSupport
import TransportServer
import TransportTrust
import X509

/// Client and server PKIs for mutual-TLS tests, with the files curl and openssl need.
///
/// Clients: root "Client Root CA" → "Client Issuing CA" → leaves with clientAuth. The server: its own root and a
/// leaf for 127.0.0.1.
public struct MTLSFixture: Sendable {
    public static let spiffeID = "spiffe://example.org/ns/payments/sa/api"

    public let clientRoot: TestCert
    public let clientCA: TestCert
    /// A good client: clientAuth, SANs URI (SPIFFE), DNS and email.
    public let client: TestCert
    public let serverRoot: TestCert
    public let serverLeaf: TestCert
    public let directory: TemporaryDirectory

    public init() throws {
        clientRoot = PKI.root("Client Root CA")
        clientCA = clientRoot.intermediate("Client Issuing CA")
        client = Self.clientLeaf(clientCA)
        serverRoot = PKI.root("Server Root CA")
        serverLeaf = serverRoot.leaf("127.0.0.1", dns: ["www.example.test"], ips: [[127, 0, 0, 1]])
        directory = try TemporaryDirectory()
        _ = try directory.write("server-ca.pem", serverRoot.pem)
        _ = try directory.write("client-anchors.pem", clientRoot.pem)
        _ = try directory.write("client-issuing-ca.pem", clientCA.pem)
        try write(client, as: "client")
    }

    /// A client leaf issued by `issuer`; clientAuth and the three SAN kinds unless told otherwise.
    public static func clientLeaf(_ issuer: TestCert, cn: String = "payments-api", uri: String = spiffeID,
                           eku: [ExtendedKeyUsage.Usage]? = [.clientAuth],
                           notValidBefore: Date = PKI.notBefore, notValidAfter: Date = PKI.notAfter) -> TestCert {
        issuer.leaf(cn, sans: [.uniformResourceIdentifier(uri), .dnsName("api.payments.internal"), .rfc822Name("api@example.org")],
                    extendedKeyUsage: eku, notValidBefore: notValidBefore, notValidAfter: notValidAfter)
    }

    /// Writes NAME.pem (the leaf and `chain`) and NAME-key.pem.
    public func write(_ leaf: TestCert, chain: [TestCert]? = nil, as name: String) throws {
        _ = try directory.write("\(name).pem", ([leaf] + (chain ?? [clientCA])).map(\.pem).joined())
        _ = try directory.write("\(name)-key.pem", leaf.key.pemString)
    }

    /// NAME.p12 (password "pw") from the files ``write(_:chain:as:)`` made, by openssl run off the cooperative pool,
    /// which the server's verification tasks need.
    public func pkcs12(_ name: String) async throws -> String {
        let result = try await runProcess(opensslPath ?? "openssl", [
            "pkcs12", "-export", "-in", directory.file("\(name).pem"), "-inkey", directory.file("\(name)-key.pem"),
            "-passout", "pass:pw", "-out", directory.file("\(name).p12"),
        ])
        guard result.status == 0 else { throw OpenSSLCommand.Failure(description: "openssl pkcs12 failed: \(result.output)") }
        return directory.file("\(name).p12")
    }

    /// openssl s_client as the good client against 127.0.0.1:`port`, sending one HTTP/1.0 request; `session` adds
    /// -sess_out or -sess_in, for resumption.
    public func sClient(port: Int, version: NIOSSL.TLSVersion, session: [String]) async throws -> ProcessResult {
        try await runProcess(opensslPath ?? "openssl", [
            "s_client", "-connect", "127.0.0.1:\(port)", version == .tlsv12 ? "-tls1_2" : "-tls1_3", "-ign_eof",
            "-CAfile", directory.file("server-ca.pem"), "-cert", directory.file("client.pem"), "-key", directory.file("client-key.pem"),
            "-cert_chain", directory.file("client-issuing-ca.pem"),
        ] + session, input: "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
    }

    public func policy(mode: ClientCertificateMode = .required, pins: PinSet? = nil, revocation: RevocationOptions = .off,
                nameRules: [ClientNameRule] = []) -> ClientVerificationPolicy {
        ClientVerificationPolicy(anchors: [clientRoot.input], mode: mode, pins: pins, revocation: revocation, nameRules: nameRules)
    }

    /// A running `ats serve --mtls` server for `policy`, TLS versions as `maximum` allows, logging to `log`.
    public func serve(_ policy: ClientVerificationPolicy, maximum: NIOSSL.TLSVersion = .tlsv13, engine: TrustEngine = TrustEngine(),
               handshakeTimeout: TimeAmount = .seconds(60), log: LogCapture) async throws -> VerdictServer {
        try await VerdictServer.start(try mutualTLSServer(policy, maximum: maximum, engine: engine, handshakeTimeout: handshakeTimeout, log: log))
    }

    /// The server's mutual-TLS half, for tests that reach into it.
    public func mutualTLSServer(_ policy: ClientVerificationPolicy, maximum: NIOSSL.TLSVersion = .tlsv13, engine: TrustEngine = TrustEngine(),
                         handshakeTimeout: TimeAmount = .seconds(60), log: LogCapture) throws -> MutualTLSServer {
        try MutualTLSServer(
            certificateChain: [try NIOSSLCertificate(bytes: serverLeaf.der, format: .der)],
            privateKey: try serverLeaf.key.nioPrivateKey(), policy: policy, engine: engine,
            handshakeTimeout: handshakeTimeout, logger: log.logger) { tls in
            tls.maximumTLSVersion = maximum
        }
    }
}
