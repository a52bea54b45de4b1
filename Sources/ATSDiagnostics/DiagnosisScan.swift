/// Diagnoses many URLs with bounded concurrency and hands each result over as soon as it is ready, so that
/// memory stays flat however long the list: at most `concurrency` diagnoses exist at once.
public struct DiagnosisScan: Sendable {
    /// What diagnoses each URL.
    public var diagnoser: Diagnoser
    /// How many diagnoses run at once, at least 1.
    public var concurrency: Int

    /// A scan running `concurrency` diagnoses at once (at least one).
    public init(diagnoser: Diagnoser, concurrency: Int = 8) {
        self.diagnoser = diagnoser
        self.concurrency = max(1, concurrency)
    }

    /// Runs every URL (validated beforehand by the caller) and calls `report` once per URL, in completion order,
    /// never concurrently with itself. Once the calling task is cancelled, no further URL is started.
    public func run(_ urls: [String], report: (HostDiagnosis) async -> Void) async {
        await run(reportingUntilStopped: urls) { await report($0); return true }
    }

    /// Like ``run(_:report:)``, until `report` returns false: then no further URL is started and the diagnoses still
    /// running are cancelled and not reported. The caller's task is left as it was, so a caller that stops the scan
    /// (say, because nobody reads its output any more) can go on.
    public func run(reportingUntilStopped urls: [String], _ report: (HostDiagnosis) async -> Bool) async {
        await withTaskGroup(of: HostDiagnosis?.self) { group in
            var next = urls.makeIterator()
            func startOne() -> Bool {
                guard !Task.isCancelled, let url = next.next() else { return false }
                group.addTask { try? await diagnoser.diagnose(url: url) }
                return true
            }
            var started = 0
            while started < concurrency, startOne() { started += 1 }
            while let finished = await group.next() {
                if let finished, !(await report(finished)) {
                    group.cancelAll()
                    return
                }
                _ = startOne()
            }
        }
    }
}
