import NIOConcurrencyHelpers

/// A streamed response body between the exchange handler, which appends what arrives, and its one reader, which takes
/// everything buffered so far at each read, in one piece.
///
/// The handler stops reading from the connection past ``high`` unread bytes (TCP, or the HTTP/2 stream's flow
/// control, then holds the server back), and the reader lets it go on when it takes them. At that pause the pieces
/// waiting (one per read or DATA frame, about 3 KiB each from nghttpd) are joined into one array of the exact size:
/// their headers and the allocator's were most of what a paused stream held beyond its body. A reader that takes
/// two or more pieces at once gets them joined too, one copy; a reader that keeps up takes one piece and pays none.
final class BodyBuffer: Sendable {
    static let high = 256 * 1024

    private struct State {
        var pending = Pieces()
        /// How the body ended: `nil` while it goes on.
        var end: Result<Void, ExchangeFailure>?
        /// The reader gave up (its task was cancelled): what still arrives is dropped.
        var abandoned = false
        /// The reader waiting for bytes. It is resumed with nothing and takes them under the lock: bytes handed over
        /// through the continuation reached a task that had not suspended yet with nothing between the loop's writes
        /// and its reads that ThreadSanitizer could see.
        var reader: UnsafeContinuation<Void, any Error>?
        var paused = false
        var resume: (@Sendable () -> Void)?
        /// The bytes buffered at the latest pauses, and who watches for more (``pauses()``). Empty, they cost a
        /// stream nothing.
        var pausedAt: [Int] = []
        var watcher: AsyncStream<Int>.Continuation?
        /// Told each time a reader starts to wait (``readerWaits()``), for tests; nil otherwise.
        var waitWatcher: AsyncStream<Void>.Continuation?
    }

    /// The pieces not read yet: one array per read or frame, and their bytes.
    private struct Pieces {
        private var pieces = SmallList<[UInt8]>()
        private(set) var count = 0

        var isEmpty: Bool { pieces.isEmpty }

        mutating func append(_ piece: [UInt8]) {
            count += piece.count
            pieces.append(piece)
        }

        /// All of it, in one array of the exact size, and nothing left.
        mutating func take() -> [UInt8] {
            defer { self = Pieces() }
            if let only = pieces.only { return only }
            var joined: [UInt8] = []
            joined.reserveCapacity(count)
            pieces.forEach { joined += $0 }
            return joined
        }
    }

    private static let pausesKept = 16
    private let state = NIOLockedValueBox(State())

    init() {}

    /// A body already complete, such as one read before and handed on again.
    init(complete bytes: [UInt8]) {
        state.withLockedValue {
            if !bytes.isEmpty { $0.pending.append(bytes) }
            $0.end = .success(())
        }
    }

    /// Bytes arrived and not yet read.
    var buffered: Int { state.withLockedValue { $0.pending.count } }

    /// Whether the handler is to hold back reads: the one place that says so, so a resume queued before a new pause
    /// cannot undo it.
    var isPaused: Bool { state.withLockedValue { $0.paused } }

    /// How the reader wakes the handler; set when the handler takes the exchange over.
    func onResume(_ resume: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.resume = resume }
    }

    // MARK: The handler's side, on the event loop

    /// Keeps `bytes` for the reader and wakes it if it waits; past ``high`` unread, reading pauses (``isPaused``) and
    /// the pieces are joined.
    func append<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        guard !bytes.isEmpty else { return }
        let piece = Array(bytes)
        let (reader, pause): (UnsafeContinuation<Void, any Error>?, (Int, AsyncStream<Int>.Continuation?)?) = state.withLockedValue { state in
            guard state.end == nil, !state.abandoned else { return (nil, nil) }
            state.pending.append(piece)
            defer { state.reader = nil }
            guard !state.paused, state.pending.count > Self.high else { return (state.reader, nil) }
            state.paused = true
            let count = state.pending.count
            let joined = state.pending.take()
            state.pending.append(joined)
            state.pausedAt.append(count)
            if state.pausedAt.count > Self.pausesKept { state.pausedAt.removeFirst() }
            return (state.reader, (count, state.watcher))
        }
        reader?.resume()
        if let pause { pause.1?.yield(pause.0) }
    }

    /// The body is complete: the reader gets what is buffered, then its end.
    func finish() { end(.success(())) }

    /// The exchange failed: the reader gets what is buffered, then `failure`.
    func fail(_ failure: ExchangeFailure) { end(.failure(failure)) }

    private func end(_ result: Result<Void, ExchangeFailure>) {
        wakingReader { state in
            guard state.end == nil else { return false }
            state.end = result
            return true
        }
    }

    /// Applies `change` and, when it changed something, wakes the waiting reader, which reads under the lock what
    /// changed.
    private func wakingReader(_ change: (inout State) -> Bool) {
        let reader: UnsafeContinuation<Void, any Error>? = state.withLockedValue { state in
            guard change(&state) else { return nil }
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }

    // MARK: The reader's side

    private enum Read {
        case bytes([UInt8], resume: (@Sendable () -> Void)?)
        case ended(Result<Void, ExchangeFailure>)
        /// Bytes are there for a reader that was about to wait: it reads again instead.
        case ready
        case wait
        /// Another task already waits on this body.
        case busy
    }

    /// Everything buffered so far, waiting for bytes when there are none; nil at the end of the body, or when the
    /// reader's task is cancelled. One reader at a time: a second task reading at once gets
    /// ``ExchangeFailure/concurrentRead``, where it would otherwise have left the first waiting for good.
    func next() async throws -> [UInt8]? {
        while true {
            switch read(registering: nil) {
            case .bytes(let bytes, let resume):
                resume?()
                return bytes
            case .ended(let end): return try end.map { nil }.get()
            case .ready, .wait: break
            case .busy: throw ExchangeFailure.concurrentRead
            }
            try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                    switch read(registering: continuation) {
                    case .wait: state.withLockedValue { $0.waitWatcher }?.yield()
                    case .busy: continuation.resume(throwing: ExchangeFailure.concurrentRead)
                    // Something came since the look above: go round again at once.
                    case .bytes, .ended, .ready: continuation.resume()
                    }
                }
            } onCancel: {
                wakingReader { state in
                    state.abandoned = true
                    return true
                }
            }
        }
    }

    /// What the reader finds: the bytes (taken), the end, or nothing yet, when `reader` is left to wait. Taking the
    /// bytes of a paused body lets reading go on.
    private func read(registering reader: UnsafeContinuation<Void, any Error>?) -> Read {
        state.withLockedValue { state in
            if !state.pending.isEmpty {
                if reader != nil { return .ready }
                defer { state.paused = false }
                return .bytes(state.pending.take(), resume: state.paused ? state.resume : nil)
            }
            if let end = state.end { return reader == nil ? .ended(end) : .ready }
            if state.abandoned { return reader == nil ? .ended(.success(())) : .ready }
            if state.reader != nil { return .busy }
            if let reader { state.reader = reader }
            return .wait
        }
    }

    /// Each time a reader starts to wait for bytes: what tests wait for before racing it.
    func readerWaits() -> AsyncStream<Void> {
        let (waits, continuation) = AsyncStream.makeStream(of: Void.self)
        state.withLockedValue { $0.waitWatcher = continuation }
        return waits
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
