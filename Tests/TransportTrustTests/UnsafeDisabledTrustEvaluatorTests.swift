import TestSupport
import Foundation
import Testing

@testable import TransportTrust

@Suite struct UnsafeDisabledTrustEvaluatorTests {
    /// Keeps every warning. `warn` is synchronous, so the lines go through a stream, whose continuation may be used
    /// from any thread, and are read once the evaluations are over.
    struct Capture {
        private let stream: AsyncStream<String>
        private let continuation: AsyncStream<String>.Continuation

        init() { (stream, continuation) = AsyncStream.makeStream(of: String.self) }

        func append(_ line: String) { continuation.yield(line) }

        /// Every line so far; no more may come after.
        func lines() async -> [String] {
            continuation.finish()
            return await stream.reduce(into: []) { $0.append($1) }
        }
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
        let lines = await capture.lines()
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.contains("UNSAFE") })
    }
}
