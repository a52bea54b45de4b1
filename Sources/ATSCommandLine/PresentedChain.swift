import Foundation
import NIOConcurrencyHelpers
import TransportClient
import TransportTrust

/// The chain a server presents, taken during the handshake without sending a request (`ats pins https://…`).
enum PresentedChain {
    /// Connects to `url`, captures the certificates the server presents (trusted or not) and cancels before any
    /// HTTP byte is sent.
    static func fetch(_ url: String, timeout: Duration = .seconds(10)) async throws -> [InputCertificate] {
        let captured = CapturedChain()
        let configuration = HTTPSClientConfiguration(
            ats: .disabled,
            challengeHandler: { challenge in
                if let info = challenge.serverTrust { captured.set(info.presentedCertificates) }
                return .cancelAuthenticationChallenge
            },
            timeouts: Timeouts(connect: timeout, handshake: timeout, request: timeout))
        let client = HTTPSClient(configuration: configuration)
        var failure: TransportError?
        do throws(TransportError) { _ = try await client.execute(HTTPRequest(url: url)) } catch { failure = error }
        await client.shutdown()
        let der = captured.value
        guard !der.isEmpty else {
            let timedOut = failure?.kind == .timedOut
            var text = "\(url): no certificate chain was received" + (timedOut ? " within \(timeout.secondsText) s" : "")
            if let failure { text += " (\(failure.message))" }
            if timedOut { text += "; a slow server may need a longer --timeout" }
            throw InputError(text)
        }
        var chain: [InputCertificate] = []
        for bytes in der { chain.append(try InputCertificate(der: bytes)) }
        return chain
    }
}

private final class CapturedChain: Sendable {
    private let der = NIOLockedValueBox<[[UInt8]]>([])
    func set(_ value: [[UInt8]]) { der.withLockedValue { if $0.isEmpty { $0 = value } } }
    var value: [[UInt8]] { der.withLockedValue { $0 } }
}
