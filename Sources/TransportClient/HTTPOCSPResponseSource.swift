import Foundation
import NIOHTTP1
import TransportTrust

/// Fetches OCSP responses from the responder a certificate names in its authorityInfoAccess, with this
/// package's own client (RFC 6960 Appendix A: a POST of `application/ocsp-request`).
///
/// Responders are plain HTTP by design: the response is signed by the CA, and the trust engine verifies that
/// signature, so ATS does not apply to these requests (Apple's system OCSP fetches are exempt too). Each fetch
/// has a short deadline and a small size limit, and follows no redirect: a slow or hostile responder costs a
/// handshake at most ``timeout``, and the policy's soft- or hard-fail mode decides what a missing answer means.
public final class HTTPOCSPResponseSource: OCSPResponseSource {
    /// How long one request may take.
    public let timeout: Duration
    private let client: HTTPSClient

    /// A source that asks OCSP responders over HTTP.
    ///
    /// - Parameters:
    ///   - timeout: the limit for each request to a responder; a response that is late counts as none.
    ///   - maximumResponseBytes: the largest response read; a larger one counts as none.
    ///   - addressOverrides: as ``HTTPSClientConfiguration/addressOverrides``, for responders.
    ///   - proxy: as ``HTTPSClientConfiguration/proxy``: where only a proxy reaches out, a fetch around it finds
    ///     nothing (hard-fail refuses every server, soft-fail checks nothing) and tells the network which CAs are used.
    public init(timeout: Duration = .seconds(5), maximumResponseBytes: Int = 64 << 10, addressOverrides: [String: String] = [:],
                proxy: ProxyConfiguration? = nil) {
        self.timeout = timeout
        var configuration = HTTPSClientConfiguration(
            ats: .disabled, timeouts: Timeouts(connect: timeout, handshake: timeout, request: timeout), maximumRedirects: 0,
            maximumResponseBytes: maximumResponseBytes, addressOverrides: addressOverrides)
        configuration.proxy = proxy
        client = HTTPSClient(configuration: configuration)
    }

    public func response(for request: [UInt8], responderURI: String) async -> [UInt8]? {
        guard let scheme = URLComponents(string: responderURI)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        var post = HTTPRequest(url: responderURI, method: .POST, body: request)
        post.headers.add(name: "Content-Type", value: "application/ocsp-request")
        post.headers.add(name: "Accept", value: "application/ocsp-response")
        guard let response = try? await client.execute(post), response.statusCode == 200, !response.body.isEmpty else { return nil }
        return response.body
    }

    /// Closes idle connections to responders.
    public func shutdown() async { await client.shutdown() }
}
