import NIOConcurrencyHelpers

/// How much of a streamed response body has arrived and is not yet read, so that a reader slower than the server
/// holds back the connection instead of buffering the whole body.
///
/// The exchange handler stops reading from the connection past ``high`` bytes (TCP, or the HTTP/2 stream's flow
/// control, then holds the server back), and the reader lets it go on once it has taken the buffer down to ``low``.
final class BodyDemand: Sendable {
    static let high = 256 * 1024
    static let low = 64 * 1024

    private struct State {
        var buffered = 0
        var paused = false
        var resume: (@Sendable () -> Void)?
    }

    private let state = NIOLockedValueBox(State())
    /// The bytes buffered each time reading paused: what tests wait for, instead of for time to pass.
    let pauses: AsyncStream<Int>
    private let pausesContinuation: AsyncStream<Int>.Continuation

    init() {
        (pauses, pausesContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(16))
    }

    /// Bytes arrived and not yet read.
    var buffered: Int { state.withLockedValue { $0.buffered } }

    /// Whether the handler is to hold back reads: the one place that says so, so a resume queued before a new pause
    /// cannot undo it.
    var isPaused: Bool { state.withLockedValue { $0.paused } }

    /// How the reader wakes the handler; set when the handler takes the exchange over.
    func onResume(_ resume: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.resume = resume }
    }

    /// The handler passed on `count` bytes; past ``high`` reading pauses (``isPaused``).
    func arrived(_ count: Int) {
        let pausedAt: Int? = state.withLockedValue {
            $0.buffered += count
            guard !$0.paused, $0.buffered > Self.high else { return nil }
            $0.paused = true
            return $0.buffered
        }
        if let pausedAt { pausesContinuation.yield(pausedAt) }
    }

    /// The reader took `count` bytes; wakes the handler when that brings a paused body down to ``low``.
    func read(_ count: Int) {
        let resume: (@Sendable () -> Void)? = state.withLockedValue {
            $0.buffered -= count
            guard $0.paused, $0.buffered <= Self.low else { return nil }
            $0.paused = false
            return $0.resume
        }
        resume?()
    }
}
