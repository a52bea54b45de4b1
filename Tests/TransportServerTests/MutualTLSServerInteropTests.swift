import ATSTestServers
import Foundation
import NIOSSL
import TestSupport
import TestServersSupport
import Testing
import TransportClient
import TransportTrust

@testable import TransportServer

/// Issue 23's matrix with the two real clients besides curl: openssl s_client (`-cert`/`-key`/`-cert_chain`) and our
/// HTTPSClient with a PKCS#12 identity, each under TLS 1.2 and TLS 1.3. MutualTLSServerTests runs the matrix with curl
/// and has the good client and the serverAuth-only EKU with these two clients; this suite has the rest.
///
/// Every refusal is checked on both ends: the server's one log line with its reason code, and what the client saw
/// (s_client's alert text; HTTPSClient's `clientCertificateRejected` and "client certificate rejected", which under
/// TLS 1.3 it learns only after its handshake is over, from its first read).
// Serialized, as MutualTLSServerTests: servers, client processes and verification tasks starve one another on two cores.
@Suite(.serialized, .enabled(if: opensslPath != nil)) struct MutualTLSServerInteropTests {
    static let versions: [NIOSSL.TLSVersion] = [.tlsv12, .tlsv13]

    /// What a refused client is told: certificate_unknown for a certificate the verifier refused; for none where one
    /// is required, BoringSSL's handshake_failure under TLS 1.2 and certificate_required under TLS 1.3.
    enum Alert {
        case certificateUnknown, noCertificate

        /// The alert as s_client prints it ("SSL alert number 46", "tlsv13 alert certificate required", …).
        func sClientText(_ version: NIOSSL.TLSVersion) -> String {
            switch self {
            case .certificateUnknown: return "alert certificate unknown"
            case .noCertificate: return version == .tlsv13 ? "alert certificate required" : "alert handshake failure"
            }
        }

        /// The alert as HTTPSClient names it in its TransportError.
        func clientName(_ version: NIOSSL.TLSVersion) -> String {
            switch self {
            case .certificateUnknown: return "certificate_unknown"
            case .noCertificate: return version == .tlsv13 ? "certificate_required" : "handshake_failure"
            }
        }
    }

    /// Writes NAME.pem and NAME-key.pem (``MTLSFixture/write(_:chain:as:)``), NAME-chain.pem (the certificates after
    /// the leaf, for s_client's `-cert_chain`: its `-cert` reads only the first certificate of a file) and NAME.p12.
    @discardableResult
    func identity(_ f: MTLSFixture, _ leaf: TestCert, chain: [TestCert]? = nil, as name: String) async throws -> String {
        try f.write(leaf, chain: chain, as: name)
        _ = try f.directory.write("\(name)-chain.pem", (chain ?? [f.clientCA]).map(\.pem).joined())
        return try await f.pkcs12(name)
    }

    /// openssl s_client against `server` under `version`, presenting `name` (none when nil), sending one HTTP/1.0 GET.
    func sClient(_ f: MTLSFixture, _ server: VerdictServer, as name: String?, version: NIOSSL.TLSVersion) async throws -> ProcessResult {
        var args = ["s_client", "-connect", "127.0.0.1:\(server.port)", version == .tlsv12 ? "-tls1_2" : "-tls1_3",
                    "-CAfile", f.directory.file("server-ca.pem"), "-verify_return_error", "-ign_eof"]
        if let name {
            args += ["-cert", f.directory.file("\(name).pem"), "-key", f.directory.file("\(name)-key.pem"),
                     "-cert_chain", f.directory.file("\(name)-chain.pem")]
        }
        return try await runProcess(opensslPath ?? "openssl", args, input: "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
    }

    /// HTTPSClient with the PKCS#12 identity at `p12` (none when nil): the answer's body, or its error.
    func httpsClient(_ f: MTLSFixture, _ server: VerdictServer, p12: String?) async throws -> Result<String, TransportError> {
        let client = HTTPSClient(configuration: HTTPSClientConfiguration(
            anchors: TrustAnchors(custom: [f.serverRoot.input]), clientIdentity: try p12.map { try ClientIdentity(pkcs12File: $0, password: "pw") },
            timeouts: Timeouts(connect: .seconds(30), handshake: .seconds(30), request: .seconds(60)),
            addressOverrides: ["www.example.test": "127.0.0.1"]))
        let result: Result<String, TransportError>
        do throws(TransportError) {
            result = .success(try await client.execute(HTTPRequest(url: "https://www.example.test:\(server.port)/")).text)
        } catch {
            result = .failure(error)
        }
        await client.shutdown()
        return result
    }

    /// `name` is admitted by `server` through both clients, and nothing is logged.
    func expectAdmitted(_ f: MTLSFixture, _ server: VerdictServer, log: LogCapture, as name: String, p12: String, version: NIOSSL.TLSVersion,
                        containing expected: [String] = ["\"verified\" : true"],
                        sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let viaSClient = try await sClient(f, server, as: name, version: version)
        for text in expected { #expect(viaSClient.output.contains(text), "s_client \(name): \(viaSClient.output)", sourceLocation: sourceLocation) }
        switch try await httpsClient(f, server, p12: p12) {
        case .success(let body):
            for text in expected { #expect(body.contains(text), "HTTPSClient \(name): \(body)", sourceLocation: sourceLocation) }
        case .failure(let error):
            Issue.record("HTTPSClient \(name) was refused: \(error)", sourceLocation: sourceLocation)
        }
        #expect(log.lines.isEmpty, "\(log.lines)", sourceLocation: sourceLocation)
    }

    /// `name` (none when nil) is refused by `server` through s_client and then HTTPSClient: each gets `alert`, and
    /// the server logs one line for each, with `reason` and (when given) `subject`, never the chain.
    func expectRefused(_ f: MTLSFixture, _ server: VerdictServer, log: LogCapture, as name: String?, p12: String?,
                       version: NIOSSL.TLSVersion, reason: String, subject: String? = "CN=payments-api", alert: Alert = .certificateUnknown,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let who = name ?? "no certificate"
        let before = log.lines.count

        let viaSClient = try await sClient(f, server, as: name, version: version)
        #expect(!viaSClient.output.contains("\"verified\""), "s_client \(who) got an answer: \(viaSClient.output)", sourceLocation: sourceLocation)
        #expect(viaSClient.output.contains(alert.sClientText(version)), "s_client \(who): \(viaSClient.output)", sourceLocation: sourceLocation)
        let afterSClient = await log.waitForLines(before + 1)

        switch try await httpsClient(f, server, p12: p12) {
        case .success(let body):
            Issue.record("HTTPSClient \(who) got an answer: \(body)", sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.kind == .clientCertificateRejected, "HTTPSClient \(who): \(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains("client certificate rejected"), "HTTPSClient \(who): \(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(alert.clientName(version)), "HTTPSClient \(who): \(error)", sourceLocation: sourceLocation)
            // Under TLS 1.3 the client's handshake is over before the server has read its certificate.
            #expect(version == .tlsv13 ? [TransportError.Phase.request, .response].contains(error.phase) : error.phase == .handshake,
                    "HTTPSClient \(who) under \(version): \(error)", sourceLocation: sourceLocation)
        }
        let lines = await log.waitForLines(before + 2)

        #expect(afterSClient.count == before + 1 && lines.count == before + 2, "one line per refusal: \(lines)", sourceLocation: sourceLocation)
        for (client, line) in zip(["s_client", "HTTPSClient"], lines.dropFirst(before)) {
            #expect(line.hasPrefix("client refused: reason=\(reason) "), "\(client) \(who): \(line)", sourceLocation: sourceLocation)
            if let subject { #expect(line.contains("subject=\"\(subject)"), "\(client) \(who): \(line)", sourceLocation: sourceLocation) }
            #expect(line.contains(" from 127.0.0.1:"), "\(client) \(who): \(line)", sourceLocation: sourceLocation)
            #expect(!line.contains("BEGIN CERTIFICATE"), sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: versions)
    func noCertificateIsRefusedWhenRequiredAndAdmittedWhenOptional(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        let p12 = try await identity(f, f.client, as: "client")
        let expired = try await identity(f, MTLSFixture.clientLeaf(f.clientCA, notValidBefore: PKI.now.addingTimeInterval(-90 * 86400),
                                                                   notValidAfter: PKI.now.addingTimeInterval(-7200)), as: "expired")
        let log = LogCapture()
        let required = try await f.serve(f.policy(), maximum: version, log: log)
        try await withShutdown({ await required.shutdown() }) {
            try await expectRefused(f, required, log: log, as: nil, p12: nil, version: version, reason: "noCertificate",
                                    subject: "-", alert: .noCertificate)
        }

        let optionalLog = LogCapture()
        let optional = try await f.serve(f.policy(mode: .optional), maximum: version, log: optionalLog)
        try await withShutdown({ await optional.shutdown() }) {
            let viaSClient = try await sClient(f, optional, as: nil, version: version)
            #expect(viaSClient.output.contains("\"outcome\" : \"not-presented\""), "\(viaSClient.output)")
            #expect(!viaSClient.output.contains("\"verified\" : true"), "\(viaSClient.output)")
            switch try await httpsClient(f, optional, p12: nil) {
            case .success(let body):
                #expect(body.contains("\"outcome\" : \"not-presented\""), "\(body)")
                #expect(!body.contains("\"verified\" : true"), "\(body)")
            case .failure(let error):
                Issue.record("optional mode refused a client without a certificate: \(error)")
            }
            // Optional mode still verifies a certificate that is sent, and refuses a bad one.
            try await expectAdmitted(f, optional, log: optionalLog, as: "client", p12: p12, version: version)
            try await expectRefused(f, optional, log: optionalLog, as: "expired", p12: expired, version: version, reason: "expired")
        }
    }

    @Test(arguments: versions)
    func anExpiredClientCertificateIsRefused(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        let p12 = try await identity(f, MTLSFixture.clientLeaf(f.clientCA, notValidBefore: PKI.now.addingTimeInterval(-90 * 86400),
                                                               notValidAfter: PKI.now.addingTimeInterval(-7200)), as: "expired")
        let log = LogCapture()
        let server = try await f.serve(f.policy(), maximum: version, log: log)
        try await withShutdown({ await server.shutdown() }) {
            try await expectRefused(f, server, log: log, as: "expired", p12: p12, version: version, reason: "expired")
        }
    }

    @Test(arguments: versions)
    func aClientCertificateFromAnotherCAIsRefused(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        let otherCA = PKI.root("Other Root CA").intermediate("Other Issuing CA")
        let p12 = try await identity(f, MTLSFixture.clientLeaf(otherCA), chain: [otherCA], as: "stranger")
        let log = LogCapture()
        let server = try await f.serve(f.policy(), maximum: version, log: log)
        try await withShutdown({ await server.shutdown() }) {
            try await expectRefused(f, server, log: log, as: "stranger", p12: p12, version: version, reason: "unknownIssuer")
        }
    }

    @Test(arguments: versions)
    func pinsAdmitThePinnedKeyAndRefuseAnotherKeyFromTheSameCA(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        let pinned = try await identity(f, f.client, as: "client")
        let unpinned = try await identity(f, MTLSFixture.clientLeaf(f.clientCA, cn: "unpinned"), as: "unpinned")
        let pins = PinSet([try Pin.spkiSHA256(of: f.client.input)], scope: .leaf)
        let log = LogCapture()
        let server = try await f.serve(f.policy(pins: pins), maximum: version, log: log)
        try await withShutdown({ await server.shutdown() }) {
            try await expectAdmitted(f, server, log: log, as: "client", p12: pinned, version: version,
                                     containing: ["\"verified\" : true", "\"spkiSHA256\" : \"sha256/\(f.client.input.spkiSHA256Base64 ?? "?")\""])
            try await expectRefused(f, server, log: log, as: "unpinned", p12: unpinned, version: version, reason: "pinMismatch",
                                    subject: "CN=unpinned")
        }
    }

    @Test(arguments: versions)
    func nameRulesAdmitAMatchAndRefuseAMismatch(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        let p12 = try await identity(f, f.client, as: "client")
        let matchLog = LogCapture()
        let matching = try await f.serve(f.policy(nameRules: [try ClientNameRule(parsing: "dns:*.payments.internal")]), maximum: version, log: matchLog)
        try await withShutdown({ await matching.shutdown() }) {
            try await expectAdmitted(f, matching, log: matchLog, as: "client", p12: p12, version: version,
                                     containing: ["\"verified\" : true", "dns:*.payments.internal", "api.payments.internal"])
        }

        let log = LogCapture()
        let mismatching = try await f.serve(f.policy(nameRules: [try ClientNameRule(parsing: "uri:spiffe://example.org/ns/billing/*")]),
                                            maximum: version, log: log)
        try await withShutdown({ await mismatching.shutdown() }) {
            try await expectRefused(f, mismatching, log: log, as: "client", p12: p12, version: version, reason: "nameNotAllowed")
        }
    }

    @Test(arguments: versions)
    func aRevokedClientIsRefusedThroughAHandedInOCSPResponse(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        let p12 = try await identity(f, f.client, as: "client")
        let response = try OCSPResponseBuilder.response(for: f.client, issuer: f.clientCA, status: .revoked(at: PKI.now.addingTimeInterval(-86400)))
        let log = LogCapture()
        let server = try await f.serve(f.policy(revocation: RevocationOptions(mode: .hard, responses: [response])), maximum: version, log: log)
        try await withShutdown({ await server.shutdown() }) {
            try await expectRefused(f, server, log: log, as: "client", p12: p12, version: version, reason: "revoked")
        }
    }

    @Test(arguments: versions)
    func aClientSending150CertificatesIsRefusedAndTheServerStaysUp(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        let filler = (0..<149).map { f.clientRoot.intermediate("Filler CA \($0)") }
        let flood = try await identity(f, f.client, chain: filler, as: "flood")
        // The bundle really holds the 150 certificates HTTPSClient is to send.
        #expect(try ClientIdentity(pkcs12File: flood, password: "pw").certificateChain.count == 150)
        let good = try await identity(f, f.client, as: "client")
        let log = LogCapture()
        let server = try await f.serve(f.policy(), maximum: version, log: log)
        try await withShutdown({ await server.shutdown() }) {
            try await expectRefused(f, server, log: log, as: "flood", p12: flood, version: version, reason: "chainTooLong")
            #expect(log.lines.allSatisfy { $0.contains("the client sent 150 certificates") }, "\(log.lines)")
            // Still up, and still admitting a good client through both.
            let viaSClient = try await sClient(f, server, as: "client", version: version)
            #expect(viaSClient.output.contains("\"verified\" : true"), "\(viaSClient.output)")
            let viaHTTPSClient = try await httpsClient(f, server, p12: good)
            #expect((try? viaHTTPSClient.get())?.contains("\"verified\" : true") == true, "\(viaHTTPSClient)")
        }
    }

    /// MutualTLSServerTests resumes a TLS 1.2 session; a TLS 1.3 session resumes through a PSK from a ticket, which
    /// likewise skips the verification callback. Its client must be verified again too, and refused when it cannot be.
    @Test func aResumedTLS13SessionIsVerifiedAgainOrRefused() async throws {
        let f = try MTLSFixture()
        try await identity(f, f.client, as: "client")
        let log = LogCapture()
        let mtls = try f.mutualTLSServer(f.policy(), maximum: .tlsv13, log: log)
        let server = try await VerdictServer.start(mtls)
        try await withShutdown({ await server.shutdown() }) {
            func sClient(_ session: [String]) async throws -> ProcessResult {
                try await f.sClient(port: server.port, version: .tlsv13, session: session)
            }
            let first = try await sClient(["-sess_out", f.directory.file("session.pem")])
            #expect(first.output.contains("\"verified\" : true"), "\(first.output)")
            let resumed = try await sClient(["-sess_in", f.directory.file("session.pem")])
            #expect(resumed.output.contains("Reused, TLSv1.3"), "the client did not resume, so nothing is tested: \(resumed.output)")
            #expect(resumed.output.contains("\"verified\" : true"), "\(resumed.output)")
            #expect(resumed.output.contains("a resumed TLS session: verified again"), "\(resumed.output)")
            #expect(log.lines.isEmpty, "\(log.lines)")

            mtls.recentChains.removeAll()
            let forgotten = try await sClient(["-sess_in", f.directory.file("session.pem")])
            #expect(forgotten.output.contains("Reused, TLSv1.3"), "the client did not resume, so nothing is tested: \(forgotten.output)")
            #expect(!forgotten.output.contains("\"verified\""), "\(forgotten.output)")
            let lines = await log.waitForLines(1)
            #expect(lines.count == 1 && lines.first?.hasPrefix("client refused: reason=unverifiedResumption subject=\"CN=payments-api") == true, "\(lines)")
        }
    }
}
