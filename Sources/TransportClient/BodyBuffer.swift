import NIOConcurrencyHelpers

/// A streamed response body between the exchange handler, which appends what arrives, and its one reader, which takes
/// everything buffered so far at each read, in one piece.
///
/// The handler stops reading from the connection past ``high`` unread bytes (TCP, or the HTTP/2 stream's flow
/// control, then holds the server back), and the reader lets it go on when it takes them. At that pause the pieces
/// waiting (one per read or DATA frame, about 3 KiB each from nghttpd) are joined into one array of the exact size:
/// their headers and the allocator's were most of what a paused stream held beyond its body. Joining only then
/// costs one copy per pause, and none for a reader that keeps up.
final class BodyBuffer: Sendable {
    static let high = 256 * 1024

    private struct State {
        var pending: [[UInt8]] = []
        var count = 0
        /// How the body ended: `nil` while it goes on.
        var end: Result<Void, ExchangeFailure>?
        /// The reader gave up (its task was cancelled): what still arrives is dropped.
        var abandoned = false
        var reader: UnsafeContinuation<[UInt8]?, any Error>?
        var paused = false
        var resume: (@Sendable () -> Void)?
        /// The bytes buffered at the latest pauses, and who watches for more (``pauses()``). Empty, they cost a
        /// stream nothing.
        var pausedAt: [Int] = []
        var watcher: AsyncStream<Int>.Continuation?
    }

    private static let pausesKept = 16
    private let state = NIOLockedValueBox(State())

    private enum AppendStep {
        case none
        case hand(UnsafeContinuation<[UInt8]?, any Error>)
        case paused(Int, AsyncStream<Int>.Continuation?)
    }

    init() {}

    /// A body already complete, such as one read before and handed on again.
    init(complete bytes: [UInt8]) {
        state.withLockedValue {
            if !bytes.isEmpty { $0.pending = [bytes] }
            $0.count = bytes.count
            $0.end = .success(())
        }
    }

    /// Bytes arrived and not yet read.
    var buffered: Int { state.withLockedValue { $0.count } }

    /// Whether the handler is to hold back reads: the one place that says so, so a resume queued before a new pause
    /// cannot undo it.
    var isPaused: Bool { state.withLockedValue { $0.paused } }

    /// How the reader wakes the handler; set when the handler takes the exchange over.
    func onResume(_ resume: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.resume = resume }
    }

    // MARK: The handler's side, on the event loop

    /// Hands `bytes` to a waiting reader, or keeps them; past ``high`` unread, reading pauses (``isPaused``).
    func append<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let step: AppendStep = state.withLockedValue { state in
            guard state.end == nil, !state.abandoned else { return .none }
            if let reader = state.reader {
                state.reader = nil
                return .hand(reader)
            }
            state.pending.append(Array(bytes))
            state.count += bytes.count
            guard !state.paused, state.count > Self.high else { return .none }
            state.paused = true
            state.pending = [Self.joined(state.pending, count: state.count)]
            state.pausedAt.append(state.count)
            if state.pausedAt.count > Self.pausesKept { state.pausedAt.removeFirst() }
            return .paused(state.count, state.watcher)
        }
        switch step {
        case .none: return
        case .hand(let reader): reader.resume(returning: Array(bytes))
        case .paused(let count, let watcher): watcher?.yield(count)
        }
    }

    /// The body is complete: the reader gets what is buffered, then its end.
    func finish() { end(.success(())) }

    /// The exchange failed: the reader gets what is buffered, then `failure`.
    func fail(_ failure: ExchangeFailure) { end(.failure(failure)) }

    private func end(_ result: Result<Void, ExchangeFailure>) {
        let reader: UnsafeContinuation<[UInt8]?, any Error>? = state.withLockedValue { state in
            guard state.end == nil else { return nil }
            state.end = result
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(with: result.map { nil }.mapError { $0 })
    }

    // MARK: The reader's side

    /// Everything buffered so far, waiting for bytes when there are none; nil at the end of the body, or when the
    /// reader's task is cancelled. One reader at a time.
    func next() async throws -> [UInt8]? {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<[UInt8]?, any Error>) in
                enum Step { case wait, taken([[UInt8]], count: Int, resume: (@Sendable () -> Void)?), ended(Result<Void, ExchangeFailure>) }
                let step: Step = state.withLockedValue { state in
                    if !state.pending.isEmpty {
                        defer { (state.pending, state.count, state.paused) = ([], 0, false) }
                        return .taken(state.pending, count: state.count, resume: state.paused ? state.resume : nil)
                    }
                    if let end = state.end { return .ended(end) }
                    if state.abandoned { return .ended(.success(())) }
                    state.reader = continuation
                    return .wait
                }
                switch step {
                case .wait: return
                case .taken(let pieces, let count, let resume):
                    resume?()
                    continuation.resume(returning: Self.joined(pieces, count: count))
                case .ended(let end): continuation.resume(with: end.map { nil }.mapError { $0 })
                }
            }
        } onCancel: {
            let reader: UnsafeContinuation<[UInt8]?, any Error>? = state.withLockedValue { state in
                state.abandoned = true
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(returning: nil)
        }
    }

    private static func joined(_ pieces: [[UInt8]], count: Int) -> [UInt8] {
        if pieces.count == 1, let only = pieces.first { return only }
        var joined: [UInt8] = []
        joined.reserveCapacity(count)
        for piece in pieces { joined += piece }
        return joined
    }

    /// The bytes buffered each time reading paused, those kept so far first: what tests wait for, instead of for
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
}
