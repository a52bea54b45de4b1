import TestSupport
import ATSCommandLine
import Foundation
import NIOConcurrencyHelpers
import Testing
import TransportTrust

@testable import TransportClient

/// HTTP/2 against a real server, nghttpd: ALPN, streams over one connection within the server's bound, trust and pins
/// evaluated before any frame, and fallback to HTTP/1.1 where the server offers only that.
@Suite struct HTTPSClientHTTP2Tests {
    let host = "www.example.test"
    static let missing = "nghttpd is not installed (apt-get install nghttp2-server; .ci/run does)"

    @Test(.enabled(if: Nghttpd.path != nil, "\(missing)"))
    func aRequestOverHTTP2IsEvaluatedAsAnyOther() async throws {
        let pki = ServerPKI()
        let server = try await Nghttpd.start(pki, files: ["index.html": Array("over h2".utf8)])
        defer { server.stop() }
        let client = makeClient(anchors: pki.anchors)
        defer { Task { await client.shutdown() } }
        let response = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/index.html"))
        #expect(response.text == "over h2")
        #expect(response.connection.httpVersion == "HTTP/2")
        #expect(response.connection.verdict?.isTrusted == true)
        #expect(response.connection.handshake?.tlsVersion == .tls13)

        let missing = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/nothing-here"))
        #expect(missing.statusCode == 404)
    }

    @Test(.enabled(if: Nghttpd.path != nil, "\(missing)"))
    func aHundredConcurrentRequestsShareOneConnectionWithinTheServersBound() async throws {
        let pki = ServerPKI()
        let body = Array(repeating: UInt8(ascii: "x"), count: 20_000)
        let server = try await Nghttpd.start(pki, files: ["big": body], maxConcurrentStreams: 10)
        defer { server.stop() }
        let handshakes = NIOLockedValueBox(0)
        let client = makeClient(anchors: pki.anchors) { config in
            config.handshakeObserver = { _ in handshakes.withLockedValue { $0 += 1 } }
        }
        defer { Task { await client.shutdown() } }
        // The first request opens the connection; the hundred then go as streams on it, ten at a time (the server's
        // SETTINGS_MAX_CONCURRENT_STREAMS), the rest queued by NIO until streams close.
        _ = try await client.execute(HTTPRequest(url: "https://\(host):\(server.port)/big"))
        let url = "https://\(host):\(server.port)/big"
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await client.execute(HTTPRequest(url: url)).body.count } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(sizes.count == 100)
        #expect(sizes.allSatisfy { $0 == body.count })
        #expect(handshakes.withLockedValue { $0 } == 1, "one connection, one evaluation")
        #expect(await client.idleConnectionCount == 1)
    }

    @Test(.enabled(if: Nghttpd.path != nil, "\(missing)"))
    func pinsAreCheckedBeforeAnyFrame() async throws {
        let pki = ServerPKI()
        let server = try await Nghttpd.start(pki, files: ["index.html": Array("pinned".utf8)])
        defer { server.stop() }
        let good = try ServerTrustManager(evaluators: [host: PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + ServerPKI.pin(pki.intermediate))])])
        let pinned = makeClient(anchors: pki.anchors, trustManager: good)
        let response = try await pinned.execute(HTTPRequest(url: "https://\(host):\(server.port)/index.html"))
        await pinned.shutdown()
        #expect(response.text == "pinned")
        #expect(response.connection.httpVersion == "HTTP/2")

        let wrong = try ServerTrustManager(evaluators: [host: PinSetEvaluator(pins: [try Pin(parsing: "sha256/" + ServerPKI.pin(ServerPKI().leaf))])])
        let misPinned = makeClient(anchors: pki.anchors, trustManager: wrong)
        let error = await transportError { try await misPinned.execute(HTTPRequest(url: "https://\(host):\(server.port)/index.html")) }
        await misPinned.shutdown()
        #expect(error?.kind == .pinMismatch)
        #expect(error?.phase == .handshake)
        #expect(!server.daemon.log.contains(":path: /index.html") || server.daemon.log.components(separatedBy: ":path: /index.html").count == 2,
                "only the pinned client's request reached the server")
    }

    @Test func aServerWithoutHTTP2IsSpokenToInHTTP1() async throws {
        let pki = ServerPKI()
        let server = try await TestServer.https(chain: pki.served, key: pki.leaf.key) { _ in .text("one point one") }
        defer { Task { await server.shutdown() } }
        let negotiating = makeClient(anchors: pki.anchors)
        let response = try await negotiating.execute(HTTPRequest(url: "https://\(host):\(server.port)/"))
        await negotiating.shutdown()
        #expect(response.text == "one point one")
        #expect(response.connection.httpVersion == "HTTP/1.1")

        let insisting = makeClient(anchors: pki.anchors) { $0.httpVersions = .http2Only }
        let error = await transportError { try await insisting.execute(HTTPRequest(url: "https://\(host):\(server.port)/")) }
        await insisting.shutdown()
        #expect(error?.message.contains("ALPN") == true)
        #expect(server.requests.count == 1, "nothing was sent to a server that would not speak HTTP/2")
    }

    @Test(.enabled(if: Nghttpd.path != nil, "\(missing)"))
    func atsFetchSaysWhichVersionItUsed() async throws {
        let pki = ServerPKI()
        let server = try await Nghttpd.start(pki, files: ["index.html": Array("fetched".utf8)])
        defer { server.stop() }
        let dir = try TemporaryDirectory()
        let anchors = try dir.write("root.pem", pki.root.pem)
        let base = ["fetch", "https://\(host):\(server.port)/index.html", "--anchors", anchors, "--resolve", "\(host):127.0.0.1"]
        let verbose = Output.capture()
        #expect(await ATSCommand.run(arguments: base + ["--http2", "--verbose"], output: verbose) == 0, "\(verbose.standardError)")
        #expect(verbose.standardOutput == "fetched")
        #expect(verbose.standardError.contains("* HTTP/2 (h2 chosen through ALPN)"))
        let json = Output.capture()
        #expect(await ATSCommand.run(arguments: base + ["--json"], output: json) == 0)
        #expect(json.standardOutput.contains("\"httpVersion\" : \"HTTP/2\""))
        let both = Output.capture()
        #expect(await ATSCommand.run(arguments: base + ["--http2", "--http1.1"], output: both) == 2)
    }
}
