import NIOConcurrencyHelpers
import TestSupport
import Foundation
import Testing

@testable import TransportTrust

@Suite struct UnsafeDisabledTrustEvaluatorTests {
    final class Capture: Sendable {
        private let stored = NIOLockedValueBox<[String]>([])
        var lines: [String] { stored.withLockedValue { $0 } }
        func append(_ line: String) { stored.withLockedValue { $0.append(line) } }
    }

    @Test func trustsAnythingAndWarnsEveryTime() async {
        let capture = Capture()
        let evaluator = UnsafeDisabledTrustEvaluator(warn: { capture.append($0) })
        let leaf = PinningFixtures.selfSignedLeaf()
        let trust = PKI.trust([leaf], anchors: [PKI.root("Other")])
        for _ in 0..<3 {
            let v = await evaluator.evaluate(trust)
            #expect(v.isTrusted)
            #expect(v.notes.first?.contains("UNSAFE") == true)
        }
        #expect(capture.lines.count == 3)
        #expect(capture.lines.allSatisfy { $0.contains("UNSAFE") })
    }
}
