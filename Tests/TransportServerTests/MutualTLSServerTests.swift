import ATSTestServers
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import TestSupport
import TestServersSupport
import Testing
import TransportClient
import TransportTrust
import X509

@testable import TransportServer

/// The matrix of issue 23 against a running server on 127.0.0.1, with real clients: curl, openssl s_client and our
/// HTTPSClient with a PKCS#12 identity, under TLS 1.2 and TLS 1.3.
// Serialized: each test runs a server, a client process and verification tasks; in parallel on two cores they starved
// one another's handshakes past their time limit under the whole package's tests.
@Suite(.serialized, .enabled(if: curlPath != nil && opensslPath != nil)) struct MutualTLSServerTests {
    static let versions: [NIOSSL.TLSVersion] = [.tlsv12, .tlsv13]

    /// curl against `server`, presenting `name`.pem / `name`-key.pem from the fixture's directory (none when nil).
    func curl(_ f: MTLSFixture, _ server: VerdictServer, as name: String?, version: NIOSSL.TLSVersion) async throws -> ProcessResult {
        var args = ["-sS", "--max-time", "120", "--cacert", f.directory.file("server-ca.pem")]
        args += version == .tlsv12 ? ["--tlsv1.2", "--tls-max", "1.2"] : ["--tlsv1.3"]
        if let name { args += ["--cert", f.directory.file("\(name).pem"), "--key", f.directory.file("\(name)-key.pem")] }
        return try await runProcess(curlPath ?? "curl", args + [server.url])
    }

    /// The JSON verdict of a successful answer.
    func verdict(_ result: ProcessResult) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
        return object as? [String: Any] ?? [:]
    }

    /// Serves `policy`, runs curl as `name`, and returns curl's result and the server's log.
    func refusal(_ f: MTLSFixture, _ policy: ClientVerificationPolicy, as name: String?, version: NIOSSL.TLSVersion) async throws -> (ProcessResult, String) {
        let log = LogCapture()
        let server = try await f.serve(policy, maximum: version, log: log)
        let result = try await curl(f, server, as: name, version: version)
        let lines = await log.waitForLines(1)
        await server.shutdown()
        #expect(lines.count == 1, "one line per refusal: \(lines)")
        #expect(lines.allSatisfy { !$0.contains("BEGIN CERTIFICATE") })
        return (result, lines.first ?? "")
    }

    @Test(arguments: versions)
    func aGoodClientGetsItsVerdictAsJSON(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        let log = LogCapture()
        let server = try await f.serve(f.policy(nameRules: [try ClientNameRule(parsing: "uri:spiffe://example.org/ns/payments/*")]),
                                       maximum: version, log: log)
        try await withShutdown({ await server.shutdown() }) {
            let result = try await curl(f, server, as: "client", version: version)
            #expect(result.status == 0, "\(result.output)")
            let json = try verdict(result)
            #expect(json["verified"] as? Bool == true, "\(result.output)")
            #expect(json["spkiSHA256"] as? String == "sha256/" + (f.client.input.spkiSHA256Base64 ?? ""))
            #expect((json["chain"] as? [[String: Any]])?.count == 3)
            #expect((json["names"] as? [String: Any])?["uris"] as? [String] == [MTLSFixture.spiffeID])
            #expect((json["matchedRule"] as? String)?.contains("uri:spiffe://example.org/ns/payments/*") == true)
            #expect(log.lines.isEmpty)
        }
    }

    @Test(arguments: versions)
    func noCertificateIsRefusedWhenRequiredAndAdmittedWhenOptional(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        let (result, line) = try await refusal(f, f.policy(), as: nil, version: version)
        #expect(result.status != 0, "\(result.output)")
        #expect(!result.output.contains("\"verified\""), "\(result.output)")
        #expect(line.contains("reason=noCertificate"), "\(line)")

        let log = LogCapture()
        let server = try await f.serve(f.policy(mode: .optional), maximum: version, log: log)
        try await withShutdown({ await server.shutdown() }) {
            let optional = try await curl(f, server, as: nil, version: version)
            #expect(try verdict(optional)["outcome"] as? String == "not-presented", "\(optional.output)")
            let withCertificate = try await curl(f, server, as: "client", version: version)
            #expect(try verdict(withCertificate)["verified"] as? Bool == true, "optional mode still verifies a certificate that is sent")
        }
    }

    @Test(arguments: versions)
    func badCertificatesAreRefusedWithTheirReason(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        try f.write(MTLSFixture.clientLeaf(f.clientCA, notValidBefore: PKI.now.addingTimeInterval(-90 * 86400),
                                           notValidAfter: PKI.now.addingTimeInterval(-7200)), as: "expired")
        let otherCA = PKI.root("Other Root CA").intermediate("Other Issuing CA")
        try f.write(MTLSFixture.clientLeaf(otherCA), chain: [otherCA], as: "stranger")
        try f.write(MTLSFixture.clientLeaf(f.clientCA, eku: [.serverAuth]), as: "serverauth")
        for (name, reason) in [("expired", "reason=expired"), ("stranger", "reason=unknownIssuer"), ("serverauth", "reason=extendedKeyUsage")] {
            let (result, line) = try await refusal(f, f.policy(), as: name, version: version)
            #expect(!result.output.contains("\"verified\" : true"), "\(name): \(result.output)")
            #expect(line.contains(reason), "\(name): \(line)")
            #expect(line.contains("subject=\"CN=payments-api"), "\(line)")
            #expect(line.contains("spki=sha256/"), "\(line)")
        }
    }

    @Test(arguments: versions)
    func pinsAdmitThePinnedKeyAndRefuseAnotherKeyFromTheSameCA(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        try f.write(MTLSFixture.clientLeaf(f.clientCA, cn: "unpinned"), as: "unpinned")
        let pins = PinSet([try Pin.spkiSHA256(of: f.client.input)], scope: .leaf)
        let log = LogCapture()
        let server = try await f.serve(f.policy(pins: pins), maximum: version, log: log)
        let pinned = try await curl(f, server, as: "client", version: version)
        #expect(try verdict(pinned)["verified"] as? Bool == true, "\(pinned.output)")
        _ = try await curl(f, server, as: "unpinned", version: version)
        let lines = await log.waitForLines(1)
        await server.shutdown()
        #expect(lines.count == 1 && (lines.first ?? "").contains("reason=pinMismatch") && (lines.first ?? "").contains("CN=unpinned"), "\(lines)")
    }

    @Test(arguments: versions)
    func nameRulesAdmitAMatchAndRefuseAMismatch(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        let log = LogCapture()
        let server = try await f.serve(f.policy(nameRules: [try ClientNameRule(parsing: "dns:*.payments.internal")]), maximum: version, log: log)
        let matched = try await curl(f, server, as: "client", version: version)
        await server.shutdown()
        #expect(try verdict(matched)["verified"] as? Bool == true, "\(matched.output)")

        let (_, line) = try await refusal(f, f.policy(nameRules: [try ClientNameRule(parsing: "uri:spiffe://example.org/ns/billing/*")]),
                                          as: "client", version: version)
        #expect(line.contains("reason=nameNotAllowed"), "\(line)")
    }

    @Test(arguments: versions)
    func aRevokedClientIsRefusedThroughAHandedInOCSPResponse(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        let response = try OCSPResponseBuilder.response(for: f.client, issuer: f.clientCA, status: .revoked(at: PKI.now.addingTimeInterval(-86400)))
        let (_, line) = try await refusal(f, f.policy(revocation: RevocationOptions(mode: .hard, responses: [response])), as: "client", version: version)
        #expect(line.contains("reason=revoked"), "\(line)")
    }

    @Test func aClientSending150CertificatesIsRefusedAndTheServerStaysUp() async throws {
        let f = try MTLSFixture()
        let filler = (0..<149).map { f.clientRoot.intermediate("Filler CA \($0)") }
        try f.write(f.client, chain: filler, as: "flood")
        let log = LogCapture()
        let server = try await f.serve(f.policy(), log: log)
        try await withShutdown({ await server.shutdown() }) {
            let flood = try await curl(f, server, as: "flood", version: .tlsv13)
            #expect(!flood.output.contains("\"verified\" : true"))
            let lines = await log.waitForLines(1)
            #expect((lines.first ?? "").contains("reason=chainTooLong"), "\(lines)")
            let after = try await curl(f, server, as: "client", version: .tlsv13)
            #expect(try verdict(after)["verified"] as? Bool == true, "\(after.output)")
        }
    }

    @Test func aClientThatStallsMidHandshakeIsClosedAtTheHandshakeLimit() async throws {
        let f = try MTLSFixture()
        let log = LogCapture()
        let server = try await f.serve(f.policy(), handshakeTimeout: .seconds(1), log: log)
        try await withShutdown({ await server.shutdown() }) {
            // Half a ClientHello record header, then nothing.
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: server.port).get()
            // The write may find the channel closed already, when this process was slow: the close is what is tested.
            try? await channel.writeAndFlush(channel.allocator.buffer(bytes: [0x16, 0x03, 0x01])).get()
            let closed = await bounded(.seconds(60)) { (try? await channel.closeFuture.get()) != nil }
            #expect(closed != nil, "the server never closed a stalled client")
            let lines = await log.waitForLines(1)
            #expect((lines.first ?? "").contains("reason=handshakeTimeout"), "\(lines)")
        }
    }

    /// A verified client that then sends no request holds no connection past the request limit (slowloris after the
    /// handshake). TLS 1.2, so that the client's finished handshake means the server has verified it: the close
    /// can only be the limit's. The limit counts from the connection's start, the handshake included, so it is long
    /// enough for a handshake on a loaded machine: at 1 s, one parallel run in ten closed the connection mid-handshake.
    @Test func aVerifiedClientThatSendsNoRequestIsClosedAtTheRequestLimit() async throws {
        let f = try MTLSFixture()
        let log = LogCapture()
        let server = try await VerdictServer.start(try f.mutualTLSServer(f.policy(), maximum: .tlsv12, log: log), requestTimeout: .seconds(5))
        try await withShutdown({ await server.shutdown() }) {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            tls.certificateChain = try [f.client, f.clientCA].map { .certificate(try NIOSSLCertificate(bytes: $0.der, format: .der)) }
            tls.privateKey = .privateKey(try f.client.key.nioPrivateKey())
            let context = try NIOSSLContext(configuration: tls)
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let handshake = loop.makePromise(of: Void.self)
            let channel = try await ClientBootstrap(group: loop).channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: nil))
                    try channel.pipeline.syncOperations.addHandler(HandshakeSignal(promise: handshake))
                }
            }.connect(host: "127.0.0.1", port: server.port).get()
            try await handshake.futureResult.get()
            let closed = await bounded(.seconds(60)) { (try? await channel.closeFuture.get()) != nil }
            #expect(closed != nil, "the server kept a connection that sent no request")
            #expect(log.lines.isEmpty, "a verified client is not a refusal: \(log.lines)")
        }
    }

    /// Completes `promise` when the TLS handshake does, fails it when the connection ends first.
    final class HandshakeSignal: ChannelInboundHandler, Sendable {
        typealias InboundIn = NIOAny
        let promise: EventLoopPromise<Void>

        init(promise: EventLoopPromise<Void>) { self.promise = promise }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .handshakeCompleted = event as? TLSUserEvent { promise.succeed(()) }
            context.fireUserInboundEventTriggered(event)
        }

        func channelInactive(context: ChannelHandlerContext) {
            promise.fail(ChannelError.ioOnClosedChannel)
            context.fireChannelInactive()
        }
    }

    @Test(arguments: versions)
    func opensslSClientIsVerifiedOrRefused(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        try f.write(MTLSFixture.clientLeaf(f.clientCA, eku: [.serverAuth]), as: "serverauth")
        let log = LogCapture()
        let server = try await f.serve(f.policy(), maximum: version, log: log)
        try await withShutdown({ await server.shutdown() }) {
            func sClient(_ name: String) async throws -> ProcessResult {
                try await runProcess(opensslPath ?? "openssl", [
                    "s_client", "-connect", "127.0.0.1:\(server.port)", version == .tlsv12 ? "-tls1_2" : "-tls1_3",
                    "-CAfile", f.directory.file("server-ca.pem"), "-verify_return_error", "-ign_eof",
                    "-cert", f.directory.file("\(name).pem"), "-key", f.directory.file("\(name)-key.pem"),
                    "-cert_chain", f.directory.file("client-issuing-ca.pem"),
                ], input: "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            }
            let good = try await sClient("client")
            #expect(good.output.contains("\"verified\" : true"), "\(good.output)")
            let bad = try await sClient("serverauth")
            #expect(!bad.output.contains("\"verified\" : true"))
            #expect(bad.output.contains("certificate unknown"), "the refusal is a TLS alert: \(bad.output)")
            let lines = await log.waitForLines(1)
            #expect((lines.first ?? "").contains("reason=extendedKeyUsage"), "\(lines)")
        }
    }

    /// A resumed session skips swift-nio-ssl's verification callback; the client must be verified again all the same.
    @Test func aResumedTLS12SessionIsVerifiedAgainFromItsChain() async throws {
        let f = try MTLSFixture()
        let log = LogCapture()
        let server = try await f.serve(f.policy(), maximum: .tlsv12, log: log)
        try await withShutdown({ await server.shutdown() }) {
            let result = try await runProcess(opensslPath ?? "openssl", [
                "s_client", "-connect", "127.0.0.1:\(server.port)", "-tls1_2", "-reconnect", "-ign_eof",
                "-CAfile", f.directory.file("server-ca.pem"),
                "-cert", f.directory.file("client.pem"), "-key", f.directory.file("client-key.pem"),
                "-cert_chain", f.directory.file("client-issuing-ca.pem"),
            ], input: "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(result.output.contains("Reused, TLSv1.2"), "the client did not resume, so nothing is tested: \(result.output)")
            #expect(result.output.contains("\"verified\" : true"), "\(result.output)")
            #expect(result.output.contains("a resumed TLS session: verified again"), "\(result.output)")
            #expect(log.lines.isEmpty, "\(log.lines)")
        }
    }

    /// Fail closed: a resumed session whose client's chain the server no longer has is refused, not let in unverified.
    @Test func aResumedSessionThatCannotBeVerifiedAgainIsRefused() async throws {
        let f = try MTLSFixture()
        let log = LogCapture()
        let mtls = try f.mutualTLSServer(f.policy(), maximum: .tlsv12, log: log)
        let server = try await VerdictServer.start(mtls)
        try await withShutdown({ await server.shutdown() }) {
            func sClient(_ session: [String]) async throws -> ProcessResult {
                try await f.sClient(port: server.port, version: .tlsv12, session: session)
            }
            let first = try await sClient(["-sess_out", f.directory.file("session.pem")])
            #expect(first.output.contains("\"verified\" : true"), "\(first.output)")
            mtls.recentChains.removeAll()
            let resumed = try await sClient(["-sess_in", f.directory.file("session.pem")])
            #expect(resumed.output.contains("Reused, TLSv1.2"), "the client did not resume, so nothing is tested: \(resumed.output)")
            #expect(!resumed.output.contains("\"verified\""), "\(resumed.output)")
            let lines = await log.waitForLines(1)
            #expect(lines.first?.contains("reason=unverifiedResumption subject=\"CN=payments-api") == true, "\(lines)")
        }
    }

    /// The second verification of a resumed session is held to the handshake's limit: a revocation fetch that hangs
    /// closes the connection with its reason, and what the client sends meanwhile waits in the socket.
    @Test func aResumedSessionWhoseVerificationHangsIsClosedAtTheHandshakeLimit() async throws {
        let f = try MTLSFixture()
        let aia = try Certificate.Extension(AuthorityInformationAccess([.init(method: .ocspServer, location: .uniformResourceIdentifier("http://127.0.0.1:9/"))]), critical: false)
        try f.write(f.clientCA.leaf("payments-api", sans: [.uniformResourceIdentifier(MTLSFixture.spiffeID)], extendedKeyUsage: [.clientAuth], extra: [aia]), as: "client")
        let log = LogCapture()
        let policy = f.policy(revocation: RevocationOptions(mode: .soft, source: HangsAfterFirstAnswer()))
        // Long enough for the first, full handshake on a loaded machine: it must succeed for the resumption to be tested.
        let mtls = try f.mutualTLSServer(policy, maximum: .tlsv12, handshakeTimeout: .seconds(5), log: log)
        let server = try await VerdictServer.start(mtls)
        try await withShutdown({ await server.shutdown() }) {
            let first = try await f.sClient(port: server.port, version: .tlsv12, session: ["-sess_out", f.directory.file("session.pem")])
            #expect(first.output.contains("\"verified\" : true"), "\(first.output)")
            let resumed = try await f.sClient(port: server.port, version: .tlsv12, session: ["-sess_in", f.directory.file("session.pem")])
            #expect(resumed.output.contains("Reused, TLSv1.2"), "the client did not resume, so nothing is tested: \(resumed.output)")
            #expect(!resumed.output.contains("\"verified\""), "\(resumed.output)")
            let lines = await log.waitForLines(1)
            #expect(lines.first?.contains("reason=handshakeTimeout (the resumed session's client was not verified again") == true, "\(lines)")
        }
    }

    @Test(arguments: versions)
    func httpsClientWithAPKCS12IdentityIsVerifiedOrReportsItsRejection(version: NIOSSL.TLSVersion) async throws {
        let f = try MTLSFixture()
        try f.write(MTLSFixture.clientLeaf(f.clientCA, eku: [.serverAuth]), as: "serverauth")
        let (goodP12, badP12) = (try await f.pkcs12("client"), try await f.pkcs12("serverauth"))
        let log = LogCapture()
        let server = try await f.serve(f.policy(), maximum: version, log: log)
        try await withShutdown({ await server.shutdown() }) {
            func client(_ p12: String?) throws -> HTTPSClient {
                HTTPSClient(configuration: HTTPSClientConfiguration(
                    anchors: TrustAnchors(custom: [f.serverRoot.input]), clientIdentity: try p12.map { try ClientIdentity(pkcs12File: $0, password: "pw") },
                    timeouts: Timeouts(connect: .seconds(30), handshake: .seconds(30), request: .seconds(60)),
                    addressOverrides: ["www.example.test": "127.0.0.1"]))
            }
            let url = "https://www.example.test:\(server.port)/"
            let good = try client(goodP12)
            let response = try await good.execute(HTTPRequest(url: url))
            await good.shutdown()
            #expect(response.text.contains("\"verified\" : true"), "\(response.text)")

            // Under TLS 1.3 the client's handshake is over before the server's verdict, which reaches it as an alert on
            // its first read; under TLS 1.2 the alert ends the handshake. Either way: "client certificate rejected".
            for (p12, alert) in [(badP12, "certificate_unknown"), (nil, version == .tlsv13 ? "certificate_required" : "handshake_failure")] {
                let refused = try client(p12)
                do throws(TransportError) {
                    let answer = try await refused.execute(HTTPRequest(url: url))
                    Issue.record("a refused client got an answer: \(answer.text)")
                } catch {
                    #expect(error.kind == .clientCertificateRejected, "\(error)")
                    #expect(error.message.contains("client certificate rejected"), "\(error)")
                    #expect(error.message.contains(alert), "\(error)")
                }
                await refused.shutdown()
            }
            let lines = await log.waitForLines(2)
            #expect(lines.contains { $0.contains("reason=extendedKeyUsage") }, "\(lines)")
            #expect(lines.contains { $0.contains("reason=noCertificate") }, "\(lines)")
        }
    }
}

/// Answers nothing at once the first time (soft-fail lets the client in), and never answers after that.
private final class HangsAfterFirstAnswer: OCSPResponseSource {
    private let calls = NIOLockedValueBox(0)

    func response(for request: [UInt8], responderURI: String) async -> [UInt8]? {
        guard calls.withLockedValue({ $0 += 1; return $0 }) > 1 else { return nil }
        try? await Task.sleep(for: .seconds(3600))
        return nil
    }
}
