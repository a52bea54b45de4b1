/// Receives pin failure reports. The HTTPS client provides a reporter that POSTs ``PinFailureReport/json`` to
/// each URI; the trust library itself never does network I/O.
///
/// Evaluators await ``report(_:to:)`` on the evaluation path, so implementations should hand the work off
/// (queue it) rather than deliver inline.
public protocol PinFailureReporting: Sendable {
    /// Sends `report` to each of `uris` (a pin set's `report-uri`s); returns once the work is handed off.
    ///
    ///  - Parameters:
    ///    - report: the failure, in TrustKit's report format.
    ///    - uris: the collectors to send it to, as the pin set lists them.
    func report(_ report: PinFailureReport, to uris: [String]) async
}
