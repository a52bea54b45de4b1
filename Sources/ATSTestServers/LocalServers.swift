import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import TransportTrust

/// Every ``BadSSLCase`` running on 127.0.0.1 behind one generated local CA: a badssl.com that needs no network.
///
/// ```swift
/// let servers = try await LocalServers.start(directory: dir)
/// print(servers.url(for: .expired), servers.caFile)
/// await servers.shutdown()
/// ```
public final class LocalServers: Sendable {
    /// One running case: which, where, and its server.
    public struct Running: Sendable {
        /// The case this server plays.
        public var testCase: BadSSLCase
        /// Its https:// URL on 127.0.0.1.
        public var url: String
        /// The server itself.
        public var server: LocalServer
    }

    /// Every case started, in the order of `BadSSLCase.allCases`.
    public let cases: [Running]
    /// The plain HTTP server the redirect case points to.
    public let httpTarget: LocalServer
    /// PEM file holding the local root CA: the one anchor clients must trust.
    public let caFile: String
    /// The CT log list of the CT cases (Apple's schema v5), holding the local PKI's test logs.
    public let ctLogListFile: String
    /// PEM client certificate and key (issued by the local CA) for the client-certificate case.
    public let clientCertificateFile: String
    /// The PEM key of the client certificate the client-certificate case accepts.
    public let clientKeyFile: String
    /// The certificates and keys every case was made from.
    public let pki: LocalPKI
    /// The Basic-auth case's credentials.
    public static let basicAuthUser = "user"
    /// The Basic-auth case's password, with ``basicAuthUser``.
    public static let basicAuthPassword = "passwd"

    private init(cases: [Running], httpTarget: LocalServer, caFile: String, ctLogListFile: String, clientCertificateFile: String,
                 clientKeyFile: String, pki: LocalPKI) {
        self.cases = cases
        self.httpTarget = httpTarget
        self.caFile = caFile
        self.ctLogListFile = ctLogListFile
        self.clientCertificateFile = clientCertificateFile
        self.clientKeyFile = clientKeyFile
        self.pki = pki
    }

    /// A case's URL, nil when it was not started.
    public func url(for testCase: BadSSLCase) -> String? { cases.first { $0.testCase == testCase }?.url }

    /// What a client must be given to judge `testCase` as its expectations assume: the local CA as the caller's anchor,
    /// or, for the CT cases, as a public root (as `SSL_CERT_FILE` would give it) with the local CT log list.
    public func trust(for testCase: BadSSLCase) throws -> (anchors: TrustAnchors, transparency: CertificateTransparencyOptions) {
        guard testCase.needsPublicRoot else {
            return (TrustAnchors(custom: try CertificateLoader.certificates(atPath: caFile)), CertificateTransparencyOptions())
        }
        let roots = SystemRoots.load(files: [caFile], directories: [])
        if let reason = roots.emptyReason { throw TestServerError("the local CA cannot serve as a public root: \(reason)") }
        let json: [UInt8]
        do { json = Array(try Data(contentsOf: URL(fileURLWithPath: ctLogListFile))) } catch {
            throw TestServerError("cannot read \(ctLogListFile): \(error.localizedDescription)")
        }
        return (TrustAnchors(custom: [], anchorsOnly: false, systemRoots: roots),
                CertificateTransparencyOptions(logList: try CTLogList(json: json, source: .supplied(ctLogListFile))))
    }

    /// Stops every server.
    public func shutdown() async {
        for running in cases { await running.server.shutdown() }
        await httpTarget.shutdown()
    }

    /// Starts the servers.
    /// - Parameters:
    ///   - portBase: case *i* (in `BadSSLCase.allCases` order) listens on `portBase + i` and the plain HTTP
    ///     redirect target on `portBase + count`; 0 picks free ports.
    ///   - directory: where `ca.pem`, `client.pem` and `client-key.pem` are written; it must exist.
    ///   - only: the cases to run (all by default).
    ///   - existing: the PKI to issue from; by default a new one.
    public static func start(portBase: Int = 0, directory: String, only: [BadSSLCase] = BadSSLCase.allCases,
                             pki existing: LocalPKI? = nil) async throws -> LocalServers {
        if portBase != 0 && !(1...(65535 - BadSSLCase.allCases.count)).contains(portBase) {
            throw TestServerError("the port base \(portBase) leaves no room for \(BadSSLCase.allCases.count + 1) ports below 65536")
        }
        let pki = try existing ?? LocalPKI()
        let client = try pki.client()
        let dir = URL(fileURLWithPath: directory)
        let caFile = dir.appendingPathComponent("ca.pem").path
        let clientFile = dir.appendingPathComponent("client.pem").path
        let clientKeyFile = dir.appendingPathComponent("client-key.pem").path
        let ctLogListFile = dir.appendingPathComponent("ct-log-list.json").path
        do {
            try Data(pki.root.pem.utf8).write(to: URL(fileURLWithPath: caFile))
            try Data(try LocalCTLog.logList(pki.ctLogs, since: pki.now.addingTimeInterval(-400 * 86400))).write(to: URL(fileURLWithPath: ctLogListFile))
            try Data((client.pem + pki.intermediate.pem).utf8).write(to: URL(fileURLWithPath: clientFile))
            try Data(client.key.pem.utf8).write(to: URL(fileURLWithPath: clientKeyFile))
        } catch {
            throw TestServerError("cannot write the CA and client files in \(directory): \(error)")
        }

        var started: [LocalServer] = []
        do {
            let httpTarget = try await LocalServer.start(tls: nil, response: .text("plain http: redirect target\n"),
                                                         port: portBase == 0 ? 0 : portBase + BadSSLCase.allCases.count)
            started.append(httpTarget)
            var running: [Running] = []
            for (index, testCase) in BadSSLCase.allCases.enumerated() where only.contains(testCase) {
                let tls = try configuration(for: testCase, pki: pki)
                let response: LocalResponse
                switch testCase {
                case .basicAuth: response = .basicAuth(user: basicAuthUser, password: basicAuthPassword)
                case .redirectToHTTP: response = .redirect(to: "http://127.0.0.1:\(httpTarget.port)/")
                default: response = .text("ats serve: \(testCase.rawValue)\n")
                }
                let server = try await LocalServer.start(tls: tls, response: response, port: portBase == 0 ? 0 : portBase + index)
                started.append(server)
                running.append(Running(testCase: testCase, url: "https://127.0.0.1:\(server.port)/", server: server))
            }
            return LocalServers(cases: running, httpTarget: httpTarget, caFile: caFile, ctLogListFile: ctLogListFile,
                                clientCertificateFile: clientFile, clientKeyFile: clientKeyFile, pki: pki)
        } catch {
            for server in started { await server.shutdown() }
            throw error
        }
    }

    /// The TLS server configuration of one case.
    public static func configuration(for testCase: BadSSLCase, pki: LocalPKI) throws -> TLSConfiguration {
        let day: TimeInterval = 86400
        var chain: [LocalCertificate]
        var minimum: NIOSSL.TLSVersion = .tlsv12
        var maximum: NIOSSL.TLSVersion = .tlsv13
        var suites: String?
        var requireClientCertificate = false
        switch testCase {
        case .good, .basicAuth, .redirectToHTTP:
            chain = [try pki.leaf(), pki.intermediate]
        case .expired:
            chain = [try pki.leaf(notValidBefore: pki.now.addingTimeInterval(-400 * day), notValidAfter: pki.now.addingTimeInterval(-30 * day)), pki.intermediate]
        case .notYetValid:
            chain = [try pki.leaf(notValidBefore: pki.now.addingTimeInterval(30 * day), notValidAfter: pki.now.addingTimeInterval(400 * day)), pki.intermediate]
        case .wrongHost:
            chain = [try pki.leaf(cn: "wrong.host.example", ips: [], dns: ["wrong.host.example"]), pki.intermediate]
        case .selfSigned:
            chain = [try pki.selfSigned()]
        case .untrustedRoot:
            // The whole chain, root included, as servers on a private CA often send it: the root is known, just not trusted.
            chain = [try pki.leaf(issuer: pki.untrustedIntermediate), pki.untrustedIntermediate, pki.untrustedRoot]
        case .incompleteChain:
            chain = [try pki.leaf()]
        case .tls10Only, .tls11Only:
            chain = [try pki.leaf(), pki.intermediate]
            minimum = testCase == .tls10Only ? .tlsv1 : .tlsv11
            maximum = minimum
        case .staticRSA:
            chain = [try pki.leaf(key: pki.rsaKey), pki.intermediate]
            maximum = .tlsv12
            suites = "AES128-GCM-SHA256"
        case .sha1Signature:
            chain = [try pki.leaf(issuer: pki.rsaIntermediate, signatureAlgorithm: .sha1WithRSAEncryption), pki.rsaIntermediate]
        case .rsa1024:
            chain = [try pki.leaf(key: try LocalKey.rsa(bits: 1024)), pki.intermediate]
        case .clientCertificateRequired:
            chain = [try pki.leaf(), pki.intermediate]
            requireClientCertificate = true
        case .ctTooFewSCTs:
            chain = [try pki.leafWithSCTs(1, lifetimeDays: 90), pki.intermediate]
        case .ct400Days:
            chain = [try pki.leafWithSCTs(3, lifetimeDays: 400), pki.intermediate]
        }
        return try serverConfiguration(chain: chain, minimum: minimum, maximum: maximum, suites: suites,
                                       clientRoots: requireClientCertificate ? [pki.root] : nil)
    }

    /// A swift-nio-ssl server configuration presenting `chain` (leaf first, its key the leaf's).
    public static func serverConfiguration(chain: [LocalCertificate], minimum: NIOSSL.TLSVersion = .tlsv12,
                                           maximum: NIOSSL.TLSVersion = .tlsv13, suites: String? = nil,
                                           clientRoots: [LocalCertificate]? = nil) throws -> TLSConfiguration {
        guard let leaf = chain.first else { throw TestServerError("a server needs at least one certificate") }
        do {
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try chain.map { .certificate(try NIOSSLCertificate(bytes: $0.der, format: .der)) },
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(leaf.key.pem.utf8), format: .pem)))
            tls.minimumTLSVersion = minimum
            tls.maximumTLSVersion = maximum
            if let suites { tls.cipherSuites = suites }
            if let clientRoots {
                tls.certificateVerification = .noHostnameVerification
                tls.trustRoots = .certificates(try clientRoots.map { try NIOSSLCertificate(bytes: $0.der, format: .der) })
            }
            return tls
        } catch {
            throw TestServerError("the server's certificate or key could not be loaded: \(error)")
        }
    }
}
