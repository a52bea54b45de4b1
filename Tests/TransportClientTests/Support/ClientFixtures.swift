import NIOConcurrencyHelpers
import TestSupport
import AppTransportSecurity
import Foundation
import NIOSSL
import Testing
import TransportTrust
import X509

@testable import TransportClient

/// An ATS configuration from a plist-like dictionary.
func atsConfiguration(_ dictionary: [String: PlistValue]) -> ATSConfiguration { ATSConfiguration(dictionary: dictionary) }

/// An exception-domain entry.
func exceptionDomains(_ entries: [String: [String: PlistValue]]) -> ATSConfiguration {
    atsConfiguration(["NSExceptionDomains": .dictionary(entries.mapValues { .dictionary($0) })])
}

/// A client that sends every listed host to 127.0.0.1 and trusts `anchors`.
func makeClient(anchors: TrustAnchors, hosts: [String] = ["www.example.test"], ats: ATSPolicy = .default(),
                // Long: the whole package's tests share two cores, and CPU-bound trust tests can starve the
                // cooperative pool for seconds. Tests about deadlines set their own.
                trustManager: ServerTrustManager? = nil, timeouts: Timeouts = Timeouts(connect: .seconds(30), handshake: .seconds(30), request: .seconds(60)),
                configure: (inout HTTPSClientConfiguration) -> Void = { _ in }) -> HTTPSClient {
    var configuration = HTTPSClientConfiguration(ats: ats, trustManager: trustManager, anchors: anchors, timeouts: timeouts,
                                                 addressOverrides: Dictionary(uniqueKeysWithValues: hosts.map { ($0, "127.0.0.1") }))
    // The same for the OCSP and CRL fetches the client makes: a local responder answers at once unless starved.
    configuration.revocationFetchTimeout = .seconds(30)
    configure(&configuration)
    return HTTPSClient(configuration: configuration)
}

/// Runs `body` and returns the TransportError it throws, or nil when it succeeds.
func transportError<T>(_ body: () async throws -> T) async -> TransportError? {
    do {
        _ = try await body()
        return nil
    } catch let error as TransportError {
        return error
    } catch {
        Issue.record("expected a TransportError, got \(error)")
        return nil
    }
}

/// An evaluator that counts its calls and delegates to another.
final class CountingEvaluator: ServerTrustEvaluating, Sendable {
    private let count = NIOLockedValueBox(0)
    let decide: @Sendable (Int, ServerTrust) async -> TrustVerdict

    init(decide: @escaping @Sendable (Int, ServerTrust) async -> TrustVerdict) { self.decide = decide }

    var calls: Int { count.withLockedValue { $0 } }

    func evaluate(_ trust: ServerTrust) async -> TrustVerdict {
        let n = count.withLockedValue { $0 += 1; return $0 }
        return await decide(n, trust)
    }
}
