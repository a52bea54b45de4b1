import TransportTrust

/// Collects reports instead of sending them.
actor RecordingReporter: PinFailureReporting {
    var received: [(PinFailureReport, [String])] = []
    func report(_ report: PinFailureReport, to uris: [String]) async { received.append((report, uris)) }
    var count: Int { received.count }
}
