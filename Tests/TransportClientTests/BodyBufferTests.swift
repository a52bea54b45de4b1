import NIOConcurrencyHelpers
import Testing

@testable import TransportClient

/// A streamed body between the handler and its reader: bytes in the order they came, what is buffered taken in one
/// piece, reading paused past the high mark until the reader takes them, and the end or failure after the bytes.
@Suite struct BodyBufferTests {
    private func bytes(_ count: Int, _ value: UInt8 = 0x61) -> [UInt8] { [UInt8](repeating: value, count: count) }

    @Test func aReaderBehindTakesEverythingBufferedInOnePiece() async throws {
        let buffer = BodyBuffer()
        buffer.append(bytes(3, 1))
        buffer.append(bytes(2, 2))
        #expect(buffer.buffered == 5)
        #expect(try await buffer.next() == [1, 1, 1, 2, 2])
        #expect(buffer.buffered == 0)
        buffer.append(bytes(1, 3))
        buffer.finish()
        buffer.append(bytes(1, 4))
        #expect(try await buffer.next() == [3], "what came before the end, and nothing after it")
        #expect(try await buffer.next() == nil)
        #expect(try await buffer.next() == nil, "the end stays the end")
    }

    @Test func aWaitingReaderGetsBytesAsTheyCome() async throws {
        let buffer = BodyBuffer()
        let (waiting, signal) = AsyncStream<Void>.makeStream()
        async let first: [UInt8]? = {
            signal.yield()
            return try await buffer.next()
        }()
        for await _ in waiting { break }
        // The reader may not be waiting yet: either way it gets these bytes, once.
        buffer.append(bytes(4, 7))
        #expect(try await first == [7, 7, 7, 7])
        #expect(buffer.buffered == 0)
    }

    @Test func aFailureComesAfterTheBytesBeforeIt() async throws {
        let buffer = BodyBuffer()
        buffer.append(bytes(2))
        buffer.fail(.streamReset("CANCEL"))
        buffer.finish()
        #expect(try await buffer.next()?.count == 2)
        await #expect(throws: ExchangeFailure.self) { try await buffer.next() }
    }

    @Test func readingPausesPastHighAndResumesWhenTheReaderTakesTheBytes() async throws {
        let buffer = BodyBuffer()
        let resumes = NIOLockedValueBox(0)
        buffer.onResume { resumes.withLockedValue { $0 += 1 } }
        buffer.append(bytes(BodyBuffer.high))
        #expect(!buffer.isPaused, "at the mark, not past it")
        buffer.append(bytes(1))
        #expect(buffer.isPaused && buffer.buffered == BodyBuffer.high + 1)
        #expect(try await buffer.next()?.count == BodyBuffer.high + 1)
        #expect(!buffer.isPaused && resumes.withLockedValue { $0 } == 1)
        buffer.append(bytes(1))
        #expect(try await buffer.next()?.count == 1)
        #expect(resumes.withLockedValue { $0 } == 1, "a reader already going is not woken again")
    }

    /// Tests wait for a pause instead of for time to pass; one that came before they looked is not lost.
    @Test func aPauseBeforeAnyoneWatchesIsStillSeen() async throws {
        let buffer = BodyBuffer()
        buffer.append(bytes(BodyBuffer.high + 10))
        var pauses = buffer.pauses().makeAsyncIterator()
        #expect(await pauses.next() == BodyBuffer.high + 10)
        _ = try await buffer.next()
        buffer.append(bytes(BodyBuffer.high + 20))
        #expect(await pauses.next() == BodyBuffer.high + 20, "the next pause, seen as it comes")
    }

    /// A reader whose task is cancelled stops waiting at once, and what arrives after is dropped.
    @Test func aCancelledReaderStopsWaiting() async throws {
        let buffer = BodyBuffer()
        let (waiting, signal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            signal.yield()
            return try await buffer.next()
        }
        for await _ in waiting { break }
        reader.cancel()
        #expect(try await reader.value == nil)
        buffer.append(bytes(8))
        #expect(buffer.buffered == 0, "nobody will read it")
    }

    /// A second task reading while the first waits gets a clear failure; the first still gets the bytes.
    @Test func aSecondReaderAtOnceIsRefusedAndTheFirstGoesOn() async throws {
        let buffer = BodyBuffer()
        var waits = buffer.readerWaits().makeAsyncIterator()
        let first = Task { try await buffer.next() }
        await waits.next()
        await #expect(throws: ExchangeFailure.self) { try await buffer.next() }
        buffer.append(bytes(2, 9))
        #expect(try await first.value == [9, 9])
    }

    /// A reader already waiting when its task is cancelled stops at once.
    @Test func aWaitingReaderCancelledStopsAtOnce() async throws {
        let buffer = BodyBuffer()
        var waits = buffer.readerWaits().makeAsyncIterator()
        let reader = Task { try await buffer.next() }
        await waits.next()
        reader.cancel()
        #expect(try await reader.value == nil)
    }

    @Test func aCompleteBodyIsReadOnceThenEnds() async throws {
        let buffer = BodyBuffer(complete: [1, 2])
        #expect(try await buffer.next() == [1, 2])
        #expect(try await buffer.next() == nil)
        #expect(try await BodyBuffer(complete: []).next() == nil)
    }
}
