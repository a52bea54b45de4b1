import Foundation
import NIOConcurrencyHelpers
import NIOHTTP1
import TransportTrust

/// Delivers pin failure reports as TrustKit does: each report's JSON is POSTed to every report URI, in the
/// background. The evaluation that caused a report never waits for delivery and never fails because of it.
///
/// Deliveries are bounded: at most ``maximumInFlight`` at once, and reports beyond that are dropped and
/// counted rather than queued, so a storm of failures cannot pile up connections. Wrap it in
/// `TransportTrust.DeduplicatingPinFailureReporter` (``standard(client:)`` does) to drop identical reports
/// for 24 hours.
///
/// The delivering client must not itself send pin reports, or a pinned collector that fails would report
/// about its own reports. The default client uses ATS defaults and the system roots, with no pins.
public final class HTTPPinFailureReporter: PinFailureReporting {
    /// How many reports were delivered, failed or dropped, for tests and diagnostics.
    public struct Statistics: Sendable, Equatable {
        /// Reports the endpoint accepted.
        public var delivered = 0
        /// Deliveries that ended in a transport error or a status other than 2xx.
        public var failed = 0
        /// Reports not sent because ``maximumInFlight`` deliveries were already running.
        public var dropped = 0
    }

    /// The most reports sent at once; more are dropped, not queued.
    public let maximumInFlight: Int
    private let client: HTTPSClient
    private let state = NIOLockedValueBox((inFlight: 0, statistics: Statistics(), waiters: [CheckedContinuation<Void, Never>]()))

    /// A reporter that posts through `client`, at most `maximumInFlight` at once.
    public init(client: HTTPSClient = HTTPSClient(configuration: HTTPPinFailureReporter.defaultClientConfiguration()), maximumInFlight: Int = 8) {
        self.client = client
        self.maximumInFlight = max(1, maximumInFlight)
    }

    /// The default client's configuration: ATS defaults, the system roots, no pins, short time limits; through
    /// `proxy` when the requests it reports on go through one, so that the reports go the same way.
    public static func defaultClientConfiguration(proxy: ProxyConfiguration? = nil) -> HTTPSClientConfiguration {
        var configuration = HTTPSClientConfiguration(timeouts: Timeouts(connect: .seconds(5), handshake: .seconds(5), request: .seconds(10)))
        configuration.proxy = proxy
        return configuration
    }

    /// The reporter most apps want: this one behind a 24-hour filter of identical reports.
    public static func standard(client: HTTPSClient? = nil) -> DeduplicatingPinFailureReporter {
        DeduplicatingPinFailureReporter(client.map { HTTPPinFailureReporter(client: $0) } ?? HTTPPinFailureReporter())
    }

    /// Posts `report` as JSON to each URI, as TrustKit does, without waiting for the answer.
    public func report(_ report: PinFailureReport, to uris: [String]) async {
        let body = report.json
        for uri in uris {
            let admitted = state.withLockedValue { s -> Bool in
                guard s.inFlight < maximumInFlight else {
                    s.statistics.dropped += 1
                    return false
                }
                s.inFlight += 1
                return true
            }
            guard admitted else { continue }
            Task.detached { [client, state] in
                var request = HTTPRequest(url: uri, method: .POST, body: body)
                request.headers.add(name: "Content-Type", value: "application/json")
                let ok: Bool
                do { ok = (200..<300).contains(try await client.execute(request).statusCode) } catch { ok = false }
                let waiters = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
                    s.inFlight -= 1
                    if ok { s.statistics.delivered += 1 } else { s.statistics.failed += 1 }
                    guard s.inFlight == 0 else { return [] }
                    defer { s.waiters = [] }
                    return s.waiters
                }
                for w in waiters { w.resume() }
            }
        }
    }

    /// How many reports were delivered, failed and dropped so far.
    public var statistics: Statistics { state.withLockedValue { $0.statistics } }

    /// Returns once no delivery is running; for shutdown and tests.
    public func drained() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { s -> Bool in
                if s.inFlight == 0 { return true }
                s.waiters.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    /// Stops the delivering client once every delivery has ended.
    public func shutdown() async {
        await drained()
        await client.shutdown()
    }
}
