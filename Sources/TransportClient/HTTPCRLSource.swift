import Foundation
import TransportTrust

/// Fetches CRLs from the http distribution points certificates name (RFC 5280 §4.2.1.13), with this package's own
/// client: a plain GET.
///
/// As for OCSP, plain HTTP is by design: the CRL is signed by its issuer and the trust engine verifies that signature,
/// so ATS does not apply. Each fetch has a short deadline, a size limit and no redirect, so a slow or hostile server
/// costs a handshake at most ``timeout``; the policy's soft- or hard-fail mode decides what a missing CRL means.
public final class HTTPCRLSource: CRLSource {
    /// How long one fetch may take.
    public let timeout: Duration
    /// The largest CRL read; a larger one counts as unavailable.
    public let maximumBytes: Int
    private let client: HTTPSClient

    /// A source that fetches CRLs over HTTP from their distribution points.
    ///
    /// - Parameters:
    ///   - timeout: the limit for each fetch, connection included.
    ///   - maximumBytes: the largest CRL read; a larger body fails the fetch (at most `CertificateRevocationList.maximumBytes`).
    ///   - addressOverrides: as ``HTTPSClientConfiguration/addressOverrides``, for distribution points.
    ///   - proxy: as ``HTTPSClientConfiguration/proxy``, so that a fetch goes where the requests go.
    public init(timeout: Duration = .seconds(5), maximumBytes: Int = 10 << 20, addressOverrides: [String: String] = [:],
                proxy: ProxyConfiguration? = nil) {
        self.timeout = timeout
        self.maximumBytes = min(maximumBytes, CertificateRevocationList.maximumBytes)
        var configuration = HTTPSClientConfiguration(
            ats: .disabled, timeouts: Timeouts(connect: timeout, handshake: timeout, request: timeout), maximumRedirects: 0,
            maximumResponseBytes: self.maximumBytes, addressOverrides: addressOverrides)
        configuration.proxy = proxy
        client = HTTPSClient(configuration: configuration)
    }

    public func crl(at uri: String) async -> [UInt8]? {
        // https would need trust in its own right, and a loop when the CRL server's chain names the same point.
        guard URLComponents(string: uri)?.scheme?.lowercased() == "http" else { return nil }
        var get = HTTPRequest(url: uri, method: .GET)
        get.headers.add(name: "Accept", value: "application/pkix-crl")
        guard let response = try? await client.execute(get), response.statusCode == 200, !response.body.isEmpty else { return nil }
        return response.body
    }

    /// Closes idle connections to distribution points.
    public func shutdown() async { await client.shutdown() }
}
