import AsyncHTTPClient
import BenchmarkSupport
import NIOCore
import NIOSSL

/// AsyncHTTPClient as a peer of ours in the client and HTTP/2 benchmarks (bench/peers.sh): in the same process, on the
/// same server, trusting only the same local root (no pin: AsyncHTTPClient has none, so ours does a little more).
enum AHCPeer {
    /// A client trusting `rootPEM` alone, reaching `host` at 127.0.0.1 under its own name (so SNI and the name checked
    /// are the same as ours). `connections` counts the HTTP/2 connections it opens.
    static func client(rootPEM: String, host: String, http2: Bool, connections: Counter? = nil) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(rootPEM.utf8)))
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = http2 ? .automatic : .http1Only
        configuration.dnsOverride = [host: "127.0.0.1"]
        if let connections {
            configuration.http2ConnectionDebugInitializer = { channel in
                connections.increment()
                return channel.eventLoop.makeSucceededVoidFuture()
            }
        }
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}

extension HTTPClient {
    /// A GET whose response must be a 200 (over HTTP/2 when `http2`), its body read to the end.
    /// `close` asks for the connection to be closed after it, so every request connects and handshakes.
    func get(_ url: String, close: Bool = false, http2: Bool = false) async throws {
        var request = HTTPClientRequest(url: url)
        if close { request.headers.add(name: "Connection", value: "close") }
        let response = try await execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == 200 else { throw BenchmarkError(description: "AsyncHTTPClient: \(url) answered \(response.status.code)") }
        if http2, response.version.major != 2 {
            throw BenchmarkError(description: "AsyncHTTPClient: \(url) answered over HTTP/\(response.version.major), not HTTP/2")
        }
    }
}
