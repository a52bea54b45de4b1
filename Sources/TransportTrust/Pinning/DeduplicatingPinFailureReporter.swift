import Foundation

/// Passes reports on to another reporter, dropping any report identical (all but its time) to one passed on in
/// the last 24 hours, as TrustKit does, so a client that retries does not flood the collector.
public actor DeduplicatingPinFailureReporter: PinFailureReporting {
    /// Where reports that are not repeats go.
    public nonisolated let destination: any PinFailureReporting
    /// How long, in seconds, a report identical to one passed on is dropped.
    public nonisolated let interval: TimeInterval
    private let clock: @Sendable () -> Date
    private var sent: [PinFailureReport: Date] = [:]

    /// A reporter that passes each distinct report on to `destination` once per `interval`.
    ///
    /// - Parameters:
    ///   - destination: where reports that are not repeats go.
    ///   - interval: how long an identical report is dropped; 24 hours by default.
    ///   - clock: the time source; tests pass their own.
    public init(_ destination: any PinFailureReporting, interval: TimeInterval = 24 * 3600,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.destination = destination
        self.interval = interval
        self.clock = clock
    }

    /// Passes `report` on, unless an identical one went to the same URIs within the interval.
    ///
    ///  - Parameters:
    ///    - report: the failure to report.
    ///    - uris: where the destination sends it; with none, nothing is sent or remembered.
    public func report(_ report: PinFailureReport, to uris: [String]) async {
        guard !uris.isEmpty else { return }
        let now = clock()
        sent = sent.filter { now.timeIntervalSince($0.value) < interval }
        let key = report.deduplicationKey
        if sent[key] != nil { return }
        sent[key] = now
        await destination.report(report, to: uris)
    }

    /// How many distinct reports are remembered now.
    public var remembered: Int { sent.count }
}
