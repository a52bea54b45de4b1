import TestSupport
import TestServersSupport
import ATSCommandLine
import ATSTestServers
import AppTransportSecurity
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import X509

@testable import TransportClient

/// BoringSSL's handshake failures in words, each produced by a real server: openssl s_server, or an in-process
/// NIO server that sends the alert under test.
@Suite struct TLSFailureReasonTests {
    let host = "www.example.test"

    @Test func theReasonIsReadFromBoringSSLsText() {
        let text = "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435758 error:1000012e:SSL routines:OPENSSL_internal:KEY_USAGE_BIT_INCORRECT at /src/ssl/ssl_cert.cc:403]))"
        #expect(TLSFailureReason(boringSSLText: text) == .keyUsageBitIncorrect)
        #expect(TLSFailureReason(boringSSLText: "error:10000410:SSL routines:OPENSSL_internal:SSLV3_ALERT_HANDSHAKE_FAILURE") == .alertHandshakeFailure)
        #expect(TLSFailureReason(boringSSLText: "OPENSSL_internal:SOMETHING_NEW at x.cc:1") == nil)
        #expect(TLSFailureReason(boringSSLText: "uncleanShutdown") == nil)
        // The first known reason wins over an unknown one before it.
        #expect(TLSFailureReason(boringSSLText: "OPENSSL_internal:NEW_THING OPENSSL_internal:WRONG_VERSION_NUMBER") == .wrongVersionNumber)
    }

    @Test func everyReasonHasASentenceInWordsAndSomeoneToFixIt() {
        for reason in TLSFailureReason.allCases {
            #expect(reason.sentence.count > 40, "\(reason)")
            #expect(!reason.sentence.contains(reason.rawValue), "\(reason): the code is for --verbose and JSON only")
            #expect(!reason.sentence.contains("OPENSSL") && !reason.sentence.contains("BoringSSL"))
            #expect(reason.sentence.contains("to be fixed by"))
        }
        // Every alert the classifier names has its reason.
        for description in HandshakeFailureClassifier.alertNames.keys {
            #expect(TLSFailureReason(alert: description) != nil, "alert \(description)")
        }
        #expect(TLSFailureReason(alert: 255) == nil)
    }

    // MARK: Real servers

    @Test(.enabled(if: opensslAvailable))
    func aStaticRSAServerWhoseCertificateLacksKeyEnciphermentIsTheServersToFix() async throws {
        // The example: RSA key exchange needs keyEncipherment; this leaf has digitalSignature only.
        let pki = ServerPKI(key: .rsa2048(), leafKeyUsage: KeyUsage(digitalSignature: true))
        let (server, dir) = try opensslServer(pki, ["-tls1_2", "-cipher", "AES128-SHA"])
        defer { server.stop(); _ = dir }
        let ats = ATSPolicy.configuration(exceptionDomains([host: ["NSExceptionRequiresForwardSecrecy": .boolean(false)]]))
        let error = await transportError { try await makeClient(anchors: pki.anchors, ats: ats).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
        #expect(error?.kind == .tlsFailure)
        #expect(error?.tlsReason == .keyUsageBitIncorrect)
        #expect(error?.tlsReason?.fixedBy == .server)
        #expect(error?.message.contains("keyEncipherment") == true)
        #expect(error?.message.contains("KEY_USAGE_BIT_INCORRECT") == false, "the raw code is for --verbose and JSON")
        #expect(error?.message.contains("ssl_cert.cc") == false)
        #expect(error?.underlying?.contains("KEY_USAGE_BIT_INCORRECT") == true)
    }

    @Test(.enabled(if: opensslAvailable))
    func aServerWithoutACertificateForTheNameSaysSo() async throws {
        let pki = ServerPKI()
        let (server, dir) = try opensslServer(pki, ["-servername", "other.example.test", "-cert2", "leaf.pem", "-key2", "key.pem", "-servername_fatal"])
        defer { server.stop(); _ = dir }
        let error = await transportError { try await makeClient(anchors: pki.anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
        #expect(error?.tlsReason == .alertUnrecognizedName)
        #expect(error?.kind == .tlsFailure)
        #expect(error?.message.contains("SNI") == true)
    }

    @Test(.enabled(if: opensslAvailable))
    func aServerOfferingOnlyAnOlderVersionKeepsTheATSAdviceAndGainsItsCode() async throws {
        let pki = ServerPKI()
        let (server, dir) = try opensslServer(pki, ["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"])
        defer { server.stop(); _ = dir }
        let error = await transportError { try await makeClient(anchors: pki.anchors).execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
        #expect(error?.kind == .atsRefused)
        #expect(error?.message.contains("NSExceptionMinimumTLSVersion") == true)
        #expect([.unsupportedProtocol, .alertProtocolVersion].contains(error?.tlsReason), "\(String(describing: error?.underlying))")
        #expect(error?.message.contains("OPENSSL") == false)
    }

    @Test func eachAlertAServerSendsIsPutIntoWords() async throws {
        let pki = ServerPKI()
        // 40, 70 and 71 keep their ATS advice (version or suite); the rest are the server's words for other things.
        let alerts = HandshakeFailureClassifier.alertNames.keys.filter { ![0, 40, 70, 71].contains($0) }.sorted()
        let server = try await AlertServer.start()
        await withShutdown({ await server.shutdown() }) {
            let client = makeClient(anchors: pki.anchors)
            await withShutdown({ await client.shutdown() }) {
                for alert in alerts {
                    server.next(alert)
                    let error = await transportError { try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
                    let expected = TLSFailureReason(alert: alert)
                    #expect(error?.tlsReason == expected, "alert \(alert)")
                    #expect(error?.message == expected?.sentence, "alert \(alert)")
                    let clientSide = [42, 43, 44, 45, 46, 48, 49, 116].contains(alert)
                    #expect(error?.kind == (clientSide ? .clientCertificateRejected : .tlsFailure), "alert \(alert)")
                }
            }
        }
    }

    @Test func atsFetchShowsTheCodeOnlyWhenVerboseOrInJSON() async throws {
        let server = try await AlertServer.start()
        await withShutdown({ await server.shutdown() }) {
            server.next(80)
            let base = ["fetch", "https://\(host):\(server.port)/", "--resolve", "\(host):127.0.0.1"]
            func run(_ extra: [String]) async -> (Int32, Output) {
                let output = Output.capture()
                return (await ATSCommand.run(arguments: withGenerousTimeLimits(base + extra), output: output), output)
            }
            let (plain, plainOut) = await run([])
            #expect(plain == 1)
            #expect(plainOut.standardError.contains("failed internally"))
            #expect(!plainOut.standardError.contains("TLSV1_ALERT_INTERNAL_ERROR"))
            let (_, verboseOut) = await run(["--verbose"])
            #expect(verboseOut.standardError.contains("TLS library reason: TLSV1_ALERT_INTERNAL_ERROR"))
            let (_, jsonOut) = await run(["--json"])
            #expect(jsonOut.standardOutput.contains("\"tlsReason\" : \"TLSV1_ALERT_INTERNAL_ERROR\""))
            #expect(jsonOut.standardOutput.contains("\"fixedBy\" : \"server\""))
        }
    }
}

/// Answers every ClientHello with one fatal TLS alert, whose description the test sets before each connection.
private final class AlertServer: Sendable {
    let channel: any Channel
    let port: Int
    private let alert: NIOLockedValueBox<UInt8>

    private init(channel: any Channel, port: Int, alert: NIOLockedValueBox<UInt8>) {
        self.channel = channel
        self.port = port
        self.alert = alert
    }

    func next(_ description: UInt8) { alert.withLockedValue { $0 = description } }

    func shutdown() async { try? await channel.close() }

    static func start() async throws -> AlertServer {
        let alert = NIOLockedValueBox<UInt8>(40)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AlertAnswer(alert: alert)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw TestServerError("no port") }
        return AlertServer(channel: channel, port: port, alert: alert)
    }
}

private final class AlertAnswer: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let alert: NIOLockedValueBox<UInt8>
    private var answered = false

    init(alert: NIOLockedValueBox<UInt8>) { self.alert = alert }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        answered = true
        // An alert record: content type 21, TLS 1.2 record version, length 2, level fatal (2), description.
        let bytes: [UInt8] = [21, 3, 3, 0, 2, 2, alert.withLockedValue { $0 }]
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes))).whenComplete { _ in channel.close(promise: nil) }
    }
}
