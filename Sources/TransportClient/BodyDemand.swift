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
        /// The bytes buffered at the latest pauses, and who watches for more (``pauses()``). Empty, they cost a
        /// stream nothing: a stream made for each body was most of this object's memory, for tests alone.
        var pausedAt: [Int] = []
        var watcher: AsyncStream<Int>.Continuation?
    }

    private static let pausesKept = 16
    private let state = NIOLockedValueBox(State())

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
        let pause: (at: Int, watcher: AsyncStream<Int>.Continuation?)? = state.withLockedValue {
            $0.buffered += count
            guard !$0.paused, $0.buffered > Self.high else { return nil }
            $0.paused = true
            $0.pausedAt.append($0.buffered)
            if $0.pausedAt.count > Self.pausesKept { $0.pausedAt.removeFirst() }
            return ($0.buffered, $0.watcher)
        }
        if let pause { pause.watcher?.yield(pause.at) }
    }

    /// The bytes buffered each time reading paused, the latest ones so far first: what tests wait for, instead of for
    /// time to pass.
    func pauses() -> AsyncStream<Int> {
        let (pauses, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(Self.pausesKept))
        let earlier = state.withLockedValue { state in
            state.watcher = continuation
            return state.pausedAt
        }
        earlier.forEach { continuation.yield($0) }
        return pauses
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
