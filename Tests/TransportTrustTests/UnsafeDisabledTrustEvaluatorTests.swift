import TestSupport
import Foundation
import Testing

@testable import TransportTrust

@Suite struct UnsafeDisabledTrustEvaluatorTests {
    final class Capture: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        var lines: [String] { lock.withLock { stored } }
        func append(_ line: String) { lock.withLock { stored.append(line) } }
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
