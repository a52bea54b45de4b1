import ATSTestServers
import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOSSL
import TransportClient
import TransportServer
import TransportTrust

/// `ats serve --mtls`: one HTTPS server that verifies client certificates with the trust engine and answers each
/// request with the verdict as JSON, the mutual-TLS counterpart of the badssl cases.
struct MutualTLSServeOptions: ParsableArguments {
    @Flag(name: .customLong("mtls"), help: "Run one mutual-TLS server instead of the badssl cases (see --client-anchors).")
    var enabled = false

    @Option(name: .customLong("client-anchors"), help: "The CA certificates (PEM or DER) client certificates must chain to. Repeatable; required with --mtls.")
    var clientAnchors: [String] = []

    @Option(name: .customLong("client-pin"), help: "An SPKI pin (sha256/BASE64) the client's chain must contain: its key or its CA's. Repeatable; any one matching is enough.")
    var clientPins: [String] = []

    @Option(name: .customLong("client-pin-scope"), help: "Where --client-pin hashes must match: any, ca or leaf (default any).")
    var clientPinScope: PinScope?

    @Option(name: .customLong("client-name"), help: "A name rule the client must match, FIELD:PATTERN with FIELD subject, cn, dns, uri or email and * for any run of characters (uri:spiffe://example.org/*). Repeatable; any one matching is enough.")
    var clientNames: [String] = []

    @Option(name: .customLong("client-mode"), help: "required (default): clients must send a valid certificate; optional: one is verified if sent.")
    var clientMode: ClientCertificateMode = .required

    @Option(name: .customLong("client-ocsp-response"), help: "A DER OCSP response about a client certificate; with no --client-revocation, soft-fail. Repeatable.")
    var clientOCSPResponses: [String] = []

    @Option(name: .customLong("client-crl"), help: "A CRL (DER or PEM) that client chains are checked against (RFC 5280 §6.3); with no --client-revocation, soft-fail. Repeatable.")
    var clientCRLs: [String] = []

    @Option(name: .customLong("client-revocation"), help: "Revocation checking of client chains: off (default, or soft with --client-ocsp-response or --client-crl), soft or hard.")
    var clientRevocation: RevocationOptions.Mode?

    @Option(name: .customLong("cert"), help: "The server's certificate chain (PEM, leaf first). Without it a local CA is generated and its server-ca.pem written.")
    var certificate: String?

    @Option(name: .customLong("key"), help: "The server's private key (PEM), with --cert.")
    var key: String?

    @Option(name: .customLong("port"), help: "The port on 127.0.0.1 (default 8443); 0 picks a free one.")
    var port: Int?

    @Option(name: .customLong("handshake-timeout"), help: "Seconds a client has to finish its handshake (default 10).")
    var handshakeTimeout: Int?

    @Option(name: .customLong("request-timeout"), help: "Seconds a client has to send its whole request, after connecting and after each answer on a kept-alive connection (default 30).")
    var requestTimeout: Int?

    var usesMutualTLSOptions: Bool {
        !clientAnchors.isEmpty || !clientPins.isEmpty || clientPinScope != nil || !clientNames.isEmpty || !clientOCSPResponses.isEmpty
            || !clientCRLs.isEmpty || clientRevocation != nil || certificate != nil || key != nil || clientMode != .required
            || port != nil || handshakeTimeout != nil || requestTimeout != nil
    }

    func validate() throws {
        guard enabled else {
            if usesMutualTLSOptions {
                throw ValidationError("--client-*, --cert, --key, --port, --handshake-timeout and --request-timeout go with --mtls; add --mtls")
            }
            return
        }
        if clientAnchors.isEmpty {
            throw ValidationError("--mtls needs --client-anchors FILE: the CA certificates client certificates must chain to")
        }
        if clientMode == .none { throw ValidationError("--client-mode none would verify nothing; use required or optional") }
        if (certificate == nil) != (key == nil) { throw ValidationError("--cert and --key go together: give both, or neither for a generated server certificate") }
        if let port, !(0...65535).contains(port) { throw ValidationError("--port must be between 0 and 65535, not \(port)") }
        if let handshakeTimeout, !(1...600).contains(handshakeTimeout) {
            throw ValidationError("--handshake-timeout must be between 1 and 600 seconds, not \(handshakeTimeout)")
        }
        if let requestTimeout, !(1...3600).contains(requestTimeout) {
            throw ValidationError("--request-timeout must be between 1 and 3600 seconds, not \(requestTimeout)")
        }
    }

    /// The client policy these options describe.
    func policy(output out: Output) throws -> ClientVerificationPolicy {
        var anchors: [InputCertificate] = []
        for path in clientAnchors { anchors += try CertificateLoader.certificates(atPath: path) }
        var pins: PinSet?
        if !clientPins.isEmpty {
            var set = PinSet()
            for text in clientPins {
                do { set[clientPinScope ?? .any].append(try Pin(parsing: text)) } catch { throw InputError("--client-pin: \(error)") }
            }
            pins = set
        }
        var rules: [ClientNameRule] = []
        for text in clientNames {
            do { rules.append(try ClientNameRule(parsing: text)) } catch { throw InputError("--client-name: \(error)") }
        }
        let revocation = try OCSPResponseFiles.revocation(mode: clientRevocation, responses: clientOCSPResponses, crls: clientCRLs,
                                                           options: ("--client-ocsp-response", "--client-revocation"), crlOption: "--client-crl")
        return ClientVerificationPolicy(anchors: anchors, mode: clientMode, pins: pins, revocation: revocation, nameRules: rules)
    }

    /// The server's certificate chain and key: the files given, or a certificate for 127.0.0.1 from a new local CA
    /// whose server-ca.pem is written to `directory`.
    func serverIdentity(directory: String?) throws -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey, caFile: String?) {
        if let certificate, let key {
            do {
                let identity = try ClientIdentity(certificateFile: certificate, keyFile: key)
                return (identity.certificateChain, identity.privateKey, nil)
            } catch {
                throw InputError("--cert/--key: \(error)")
            }
        }
        let dir = try directory ?? ServeCommand.temporaryDirectory()
        let pki = try LocalPKI()
        let leaf = try pki.leaf()
        let caFile = URL(fileURLWithPath: dir).appendingPathComponent("server-ca.pem").path
        do { try Data(pki.root.pem.utf8).write(to: URL(fileURLWithPath: caFile)) } catch {
            throw InputError("cannot write the server's CA file \(caFile): \(error.localizedDescription)")
        }
        do {
            let chain = try [leaf, pki.intermediate].map { try NIOSSLCertificate(bytes: $0.der, format: .der) }
            return (chain, try NIOSSLPrivateKey(bytes: Array(leaf.key.pem.utf8), format: .pem), caFile)
        } catch {
            throw InputError("the generated server certificate could not be loaded")
        }
    }

    func execute(directory: String?, output out: Output) async -> Int32 {
        let server: VerdictServer
        let caFile: String?
        do {
            let policy = try policy(output: out)
            let identity = try serverIdentity(directory: directory)
            caFile = identity.caFile
            // Refusals go to standard error, one line each.
            let logger = Logger(label: "ats.serve.mtls") { _ in LineLogHandler { out.error($0 + "\n") } }
            let mtls: MutualTLSServer
            do {
                mtls = try MutualTLSServer(certificateChain: identity.chain, privateKey: identity.key, policy: policy,
                                           handshakeTimeout: .seconds(Int64(handshakeTimeout ?? 10)), logger: logger)
            } catch {
                throw InputError("the server's certificate and key cannot be used together for TLS")
            }
            server = try await VerdictServer.start(mtls, port: port ?? 8443, requestTimeout: .seconds(Int64(requestTimeout ?? 30)))
        } catch {
            out.error("ats serve: \(error)\n")
            return 2
        }
        var s = "mutual TLS server: \(server.url)\n"
        s += "client anchors:    \(clientAnchors.joined(separator: ", "))\n"
        if !clientPins.isEmpty { s += "client pins (\((clientPinScope ?? .any).rawValue)): \(clientPins.joined(separator: ", "))\n" }
        if !clientNames.isEmpty { s += "client names:      \(clientNames.joined(separator: ", "))\n" }
        if let caFile { s += "server CA file:    \(caFile)\n" }
        s += "\ntry:  curl --cacert \(caFile ?? "SERVER_CA.pem") --cert CLIENT.pem --key CLIENT-KEY.pem \(server.url)\n"
        s += "each request is answered with the client's verdict as JSON; refusals are printed below\n"
        s += "serving until interrupted (Ctrl-C)\n"
        out.write(s)
        await ServeCommand.waitForInterrupt()
        out.write("\nstopping\n")
        await server.shutdown()
        return 0
    }
}

extension ClientCertificateMode: ExpressibleByArgument {}
