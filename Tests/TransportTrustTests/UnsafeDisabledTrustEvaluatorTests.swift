import TestSupport
import Foundation
import Logging
import Testing

@testable import TransportTrust

@Suite struct UnsafeDisabledTrustEvaluatorTests {
    final class Capture: LogHandler, @unchecked Sendable {
        let lock = NSLock()
        var lines: [(Logger.Level, String)] = []
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? { get { metadata[key] } set { metadata[key] = newValue } }
        func log(event: LogEvent) {
            lock.withLock { lines.append((event.level, event.message.description)) }
        }
    }

    @Test func trustsAnythingAndWarnsEveryTime() async {
        let capture = Capture()
        let evaluator = UnsafeDisabledTrustEvaluator(logger: Logger(label: "test", factory: { _ in capture }))
        let leaf = PinningFixtures.selfSignedLeaf()
        let trust = PKI.trust([leaf], anchors: [PKI.root("Other")])
        for _ in 0..<3 {
            let v = await evaluator.evaluate(trust)
            #expect(v.isTrusted)
            #expect(v.notes.first?.contains("UNSAFE") == true)
        }
        #expect(capture.lines.count == 3)
        #expect(capture.lines.allSatisfy { $0.0 == .warning && $0.1.contains("UNSAFE") })
    }
}
